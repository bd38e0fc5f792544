import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  histogramOf,
  interleave,
  median,
  mergeHistograms,
  pairedRatio,
  percentiles,
  ratio,
  roundRatios,
  summarize,
  voidReason,
  type CaseSummary,
  type Histogram,
  type RoundMeasure,
} from './stats.ts';

/** 1..n milliseconds, one response each. */
const oneEach = (n: number): Histogram => histogramOf(Array.from({ length: n }, (_, i) => i + 1));

const cases: Array<[string, Histogram, number, number]> = [
  ['p50 of 1..100 ms is 50 (nearest rank)', oneEach(100), 50, 50],
  ['p99 of 1..100 ms is 99', oneEach(100), 99, 99],
  ['p100 is the maximum', oneEach(3), 100, 3],
  ['p99 of 1..1000 ms is 990', oneEach(1000), 99, 990],
  ['p50 of one sample is that sample', histogramOf([7.25]), 50, 7.25],
  ['p99 of two samples is the larger', histogramOf([1, 2]), 99, 2],
  ['a tiny percentile is the minimum', histogramOf([5, 6, 7]), 0.001, 5],
  // wrk's histogram: 90 responses at 100 us and 10 at 5 ms.
  [
    'counts weigh their value: p90',
    new Map([
      [100, 90],
      [5000, 10],
    ]),
    90,
    0.1,
  ],
  [
    'counts weigh their value: p91',
    new Map([
      [5000, 10],
      [100, 90],
    ]),
    91,
    5,
  ],
];
for (const [name, h, p, expected] of cases) {
  test(`percentile: ${name}`, () => assert.is(percentiles(h, [p])[0], expected));
}

test('percentiles of nothing are NaN; out-of-range percentiles are refused', () => {
  assert.ok(Number.isNaN(percentiles(new Map(), [50])[0]));
  assert.throws(() => percentiles(oneEach(1), [0]), /percentile/);
  assert.throws(() => percentiles(oneEach(1), [101]), /percentile/);
});

test('histograms hold microseconds; merging adds counts', () => {
  assert.equal(
    [...histogramOf([0.0014, 1.5, 1.5])],
    [
      [1, 1],
      [1500, 2],
    ],
  );
  assert.equal(
    [
      ...mergeHistograms([
        new Map([
          [10, 1],
          [20, 2],
        ]),
        new Map([[20, 3]]),
      ]),
    ].sort(),
    [
      [10, 1],
      [20, 5],
    ],
  );
});

const round = (n: number, ok: number, seconds: number, samplesMs: number[], extra: Partial<RoundMeasure> = {}): RoundMeasure => {
  const r: RoundMeasure = {
    round: n,
    ok,
    unexpected: {},
    errors: 0,
    timeouts: 0,
    seconds,
    bytes: ok * 100,
    latency: histogramOf(samplesMs),
    foreignCores: 0,
    serverCpuSeconds: ok / 1000,
    generatorCpuSeconds: seconds / 4,
    ...extra,
  };
  return { ...r, void: extra.void ?? voidReason(r) };
};

const reasons: Array<[string, Partial<RoundMeasure>, string | undefined, string?]> = [
  ['a clean round', { ok: 10 }, undefined],
  ['429s', { ok: 10, unexpected: { '429': 3 } }, '3 x 429'],
  ['wrk without a hook: statuses outside 200-399', { ok: 10, unexpected: { 'non-2xx/3xx': 2 } }, '2 x non-2xx/3xx'],
  ['socket errors and timeouts', { ok: 10, errors: 4, timeouts: 1 }, '4 socket errors; 1 timeouts'],
  ['nothing answered', { ok: 0 }, 'no expected response'],
  ['a create lost after SIGKILL', { ok: 10 }, '1 acknowledged or original pets missing after SIGKILL', '1 acknowledged or original pets missing after SIGKILL'],
  ['a zero count is no reason', { ok: 10, unexpected: { '500': 0 } }, undefined],
];
for (const [name, measure, expected, lost] of reasons) {
  test(`voidReason: ${name}`, () => assert.is(voidReason({ ok: 0, unexpected: {}, errors: 0, timeouts: 0, ...measure }, lost), expected));
}

test('summarize: only clean rounds make the figures; void rounds are listed and their bad answers counted', () => {
  // Round 2 is void (429s): its fast rate and its latencies must not move anything.
  const summary = summarize([
    round(1, 300, 1, Array(300).fill(1)),
    round(2, 9000, 1, Array(100).fill(0.1), { unexpected: { '429': 5 } }),
    round(3, 100, 1, Array(100).fill(40), { errors: 0 }),
  ]);
  assert.is(summary.cleanRounds, 2);
  assert.equal(summary.voidRounds, [{ round: 2, reason: '5 x 429' }]);
  assert.is(summary.requests, 400);
  assert.equal(
    summary.perRound.map((r) => [r.round, r.rps]),
    [
      [1, 300],
      [3, 100],
    ],
    'the clean rounds, by their own numbers, for pairing',
  );
  assert.is(summary.rps, 200);
  assert.is(summary.p50, 1);
  assert.is(summary.p99, 40);
  assert.is(summary.max, 40);
  assert.equal(summary.unexpected, { '429': 5 });
  assert.is(summary.cpuMicrosPerRequest, 1000);
  assert.is(summary.generatorBusy, 0.25);
});

test('summarize: no clean round gives no figures, only the reasons', () => {
  const summary = summarize([round(1, 50, 1, [1], { errors: 3 })]);
  assert.is(summary.cleanRounds, 0);
  assert.is(summary.rps, 0);
  assert.ok(Number.isNaN(summary.p99));
  assert.ok(Number.isNaN(summary.cpuMicrosPerRequest));
  assert.equal(summary.voidRounds, [{ round: 1, reason: '3 socket errors' }]);
});

test('summarize: one disturbed round does not move the rate; the disturbance and the busiest generator are reported', () => {
  const summary = summarize([
    round(1, 1000, 1, [1]),
    round(2, 200, 1, [1], { foreignCores: 0.9, generatorCpuSeconds: 0.7 }),
    round(3, 1100, 1, [1], { foreignCores: 0.05 }),
  ]);
  assert.is(summary.rps, 1000);
  assert.is(summary.foreignCoresMax, 0.9);
  assert.is(summary.generatorBusy, 0.7);
});

test("summarize: each round's disturbance is the larger of its server's core shared and the machine's other processes", () => {
  const summary = summarize([
    round(1, 1000, 1, [1], { serverCore: { bystanders: 0.002, others: 0.01 }, foreignCores: 0.3 }),
    round(2, 1000, 1, [1], { serverCore: { bystanders: 0.001, others: 0.4 }, foreignCores: 0.05 }),
    round(3, 1000, 1, [1], { serverCore: { bystanders: 0, others: 0.9 }, errors: 1 }),
  ]);
  assert.equal(
    summary.perRound.map((r) => [r.round, r.disturbance]),
    [
      [1, 0.3],
      [2, 0.401],
    ],
    "round 1: the load generator's core was taken, not the server's",
  );
  assert.equal([summary.coreBystandersMax, summary.coreOthersMax], [0.002, 0.4], 'over the clean rounds only');
  const unpinned = summarize([round(1, 1000, 1, [1], { foreignCores: 0.2 })]);
  assert.equal([unpinned.perRound[0]!.disturbance, unpinned.coreOthersMax, unpinned.coreBystandersMax], [0.2, null, null]);
});

test('server CPU per request and busy cores: over all clean rounds', () => {
  const summary = summarize([round(1, 100, 1, [1], { serverCpuSeconds: 0.01 }), round(2, 300, 2, [1], { serverCpuSeconds: 0.05 })]);
  assert.ok(Math.abs(summary.cpuMicrosPerRequest - 150) < 1e-9, String(summary.cpuMicrosPerRequest));
  assert.ok(Math.abs(summary.serverBusy - (0.01 + 0.025) / 2) < 1e-9, String(summary.serverBusy));
});

const medians: Array<[number[], number]> = [
  [[3, 1, 2], 2],
  [[4, 1, 3, 2], 2.5],
  [[7], 7],
];
for (const [values, expected] of medians) test(`median of ${values} is ${expected}`, () => assert.is(median(values), expected));
test('median of nothing is NaN', () => assert.ok(Number.isNaN(median([]))));

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
  const items = ['a', 'b', 'c'];
  assert.equal(interleave(items, 0), ['a', 'b', 'c']);
  assert.equal(interleave(items, 1), ['b', 'c', 'a']);
  assert.equal(interleave(items, 2), ['c', 'a', 'b']);
  assert.equal(interleave(items, 3), ['a', 'b', 'c']);
  assert.equal(interleave([], 2), []);
});

/** A case's figures round by round: [round, req/s, server us per request]. */
const byRound = (rounds: Array<[number, number, number]>): CaseSummary =>
  ({
    rps: median(rounds.map(([, rps]) => rps)),
    cpuMicrosPerRequest: median(rounds.map(([, , us]) => us)),
    perRound: rounds.map(([round, rps, cpuMicros]) => ({ round, rps, cpuMicros })),
  }) as CaseSummary;

// [case, a, b, by, a over b]
const paired: Array<[string, CaseSummary, CaseSummary, 'rps' | 'cpu', number]> = [
  // The machine slowed in round 2: the ratio of medians (90 / 100 = 0.9) mixes minutes; the pairs do not.
  [
    'the median of the rounds’ own ratios, not the ratio of medians',
    byRound([
      [1, 100, 10],
      [2, 40, 25],
      [3, 90, 11],
    ]),
    byRound([
      [1, 200, 5],
      [2, 60, 16],
      [3, 100, 10],
    ]),
    'rps',
    2 / 3,
  ],
  [
    'server CPU per request, round by round',
    byRound([
      [1, 100, 30],
      [2, 100, 60],
    ]),
    byRound([
      [1, 100, 10],
      [2, 100, 30],
    ]),
    'cpu',
    2.5,
  ],
  [
    'only rounds both measured cleanly are paired',
    byRound([
      [1, 100, 10],
      [3, 50, 20],
    ]),
    byRound([
      [2, 400, 3],
      [3, 100, 10],
    ]),
    'rps',
    0.5,
  ],
  ['no round in common: the ratio of the cases’ own figures', byRound([[1, 100, 10]]), byRound([[2, 400, 3]]), 'rps', 0.25],
];
for (const [name, a, b, by, expected] of paired)
  test(`pairedRatio: ${name}`, () => assert.ok(Math.abs(pairedRatio(a, b, by)! - expected) < 1e-9, String(pairedRatio(a, b, by))));
test('roundRatios: a over b in each round both measured, in round order', () => {
  const a = byRound([
    [1, 100, 10],
    [2, 50, 20],
    [4, 80, 10],
  ]);
  const b = byRound([
    [1, 200, 5],
    [2, 100, 10],
    [3, 10, 1],
  ]);
  assert.equal(roundRatios(a, b, 'rps'), [0.5, 0.5]);
  assert.equal(roundRatios(a, b, 'cpu'), [2, 2]);
});

test('pairedRatio: a case not measured gives no ratio', () => {
  assert.is(pairedRatio(undefined, byRound([[1, 1, 1]]), 'rps'), null);
  assert.is(pairedRatio(byRound([[1, 1, 1]]), undefined, 'cpu'), null);
});

test.run();
