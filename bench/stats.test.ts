import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { interleave, median, mergeSorted, percentile, ratio, summarize, type RoundMeasure } from './stats.ts';

const sorted = (...values: number[]) => new Float64Array(values).sort();

const percentiles: Array<[string, Float64Array, number, number]> = [
  ['p50 of 1..100 is 50 (nearest rank)', sorted(...Array.from({ length: 100 }, (_, i) => i + 1)), 50, 50],
  ['p99 of 1..100 is 99', sorted(...Array.from({ length: 100 }, (_, i) => i + 1)), 99, 99],
  ['p100 is the maximum', sorted(3, 1, 2), 100, 3],
  ['p99 of 1..1000 is 990', sorted(...Array.from({ length: 1000 }, (_, i) => i + 1)), 99, 990],
  ['p50 of one sample is that sample', sorted(7.25), 50, 7.25],
  ['p99 of two samples is the larger', sorted(1, 2), 99, 2],
  ['a tiny percentile is the minimum', sorted(5, 6, 7), 0.001, 5],
];
for (const [name, values, p, expected] of percentiles) {
  test(`percentile: ${name}`, () => assert.is(percentile(values, p), expected));
}

test('percentile of nothing is NaN; out-of-range percentiles are refused', () => {
  assert.ok(Number.isNaN(percentile(new Float64Array(), 50)));
  assert.throws(() => percentile(sorted(1), 0), /percentile/);
  assert.throws(() => percentile(sorted(1), 101), /percentile/);
});

test('mergeSorted sorts numerically across parts', () => {
  assert.equal([...mergeSorted([new Float64Array([10, 2]), new Float64Array([1, 100, 3])])], [1, 2, 3, 10, 100]);
});

const round = (n: number, ok: number, seconds: number, latencies: number[], extra: Partial<RoundMeasure> = {}): RoundMeasure => ({
  round: n,
  ok,
  unexpected: {},
  errors: 0,
  timeouts: 0,
  seconds,
  bytes: ok * 100,
  latencies: new Float64Array(latencies),
  foreignCores: 0,
  serverCpuSeconds: ok / 1000,
  ...extra,
});

test('summarize: rps is the median round, percentiles over all samples together, unexpected statuses added up', () => {
  // Round 1 is fast, round 2 slow: per-round p99s would hide that 1/4 of all responses took 40 ms.
  const summary = summarize([
    round(1, 300, 1, [...Array(300).fill(1)], { unexpected: { '429': 2 } }),
    round(2, 100, 1, [...Array(100).fill(40)], { unexpected: { '429': 1, '500': 4 }, errors: 3 }),
  ]);
  assert.is(summary.requests, 400);
  assert.is(summary.rps, 200);
  assert.equal(summary.rpsPerRound, [300, 100]);
  assert.is(summary.p50, 1);
  assert.is(summary.p99, 40);
  assert.is(summary.max, 40);
  assert.equal(summary.unexpected, { '429': 3, '500': 4 });
  assert.is(summary.errors, 3);
  assert.is(summary.bytesPerResponse, 100);
  assert.is(summary.cpuMicrosPerRequest, 1000);
});

test('summarize: one disturbed round does not move the rate; the disturbance is reported', () => {
  const summary = summarize([round(1, 1000, 1, [1]), round(2, 200, 1, [1], { foreignCores: 0.9 }), round(3, 1100, 1, [1], { foreignCores: 0.05 })]);
  assert.is(summary.rps, 1000);
  assert.is(summary.foreignCoresMax, 0.9);
});

const medians: Array<[number[], number]> = [
  [[3, 1, 2], 2],
  [[4, 1, 3, 2], 2.5],
  [[7], 7],
];
for (const [values, expected] of medians) test(`median of ${values} is ${expected}`, () => assert.is(median(values), expected));
test('median of nothing is NaN', () => assert.ok(Number.isNaN(median([]))));

test('server CPU per request: the CPU of all rounds over all their responses', () => {
  const summary = summarize([round(1, 100, 1, [1], { serverCpuSeconds: 0.01 }), round(2, 300, 1, [1], { serverCpuSeconds: 0.05 })]);
  assert.ok(Math.abs(summary.cpuMicrosPerRequest - 150) < 1e-9, String(summary.cpuMicrosPerRequest));
});

test('summarize of rounds with no response reports zero, not NaN rates', () => {
  const summary = summarize([round(1, 0, 1, [])]);
  assert.ok(Number.isNaN(summary.cpuMicrosPerRequest));
  assert.is(summary.rps, 0);
  assert.is(summary.bytesPerResponse, 0);
  assert.ok(Number.isNaN(summary.p99));
});

const ratios: Array<[number | undefined, number | undefined, number | null]> = [
  [6, 10, 0.6],
  [10, 1, 10],
  [undefined, 1, null],
  [1, undefined, null],
  [0, 5, null],
  [5, 0, null],
];
for (const [a, b, expected] of ratios) {
  test(`ratio(${a}, ${b}) is ${expected}`, () => assert.is(ratio(a, b), expected));
}

test('interleave rotates the order so every case runs first once', () => {
  const cases = ['a', 'b', 'c'];
  assert.equal(interleave(cases, 0), ['a', 'b', 'c']);
  assert.equal(interleave(cases, 1), ['b', 'c', 'a']);
  assert.equal(interleave(cases, 2), ['c', 'a', 'b']);
  assert.equal(interleave(cases, 3), ['a', 'b', 'c']);
  assert.equal(interleave([], 2), []);
});

test.run();
