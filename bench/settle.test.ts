// When a ratio may be quoted: the rounds' own ratios must agree (settle.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pairRounds, settle, type PairedRound } from './settle.ts';
import type { CaseSummary, RoundFigures } from './stats.ts';

const rounds = (ratios: number[], disturbance: number[] = []): PairedRound[] =>
  ratios.map((ratio, i) => ({ round: i + 1, ratio, disturbance: disturbance[i] ?? 0.01 }));
const atLeast = (min: number) => (v: number) => v >= min;

const cases: Array<[string, PairedRound[], ((v: number) => boolean) | undefined, { settled: boolean; value?: number; why?: RegExp }]> = [
  ['three rounds within 15%, all over the target: quoted, their median', rounds([0.62, 0.66, 0.64]), atLeast(0.6), { settled: true, value: 0.64 }],
  ['all under the target, close together: a settled miss', rounds([0.5, 0.55]), atLeast(0.6), { settled: true, value: 0.525 }],
  [
    "issue 31's run: bare hapi 0.53x-0.63x, met in one run and missed in the next",
    rounds([0.53, 0.63, 0.58]),
    atLeast(0.6),
    { settled: false, value: 0.58, why: /^rounds 0\.53x-0\.63x, 19% apart \(at most 15%\); rounds 0\.53x-0\.63x on both sides of the target$/ },
  ],
  [
    'close together but on both sides of the target',
    rounds([0.59, 0.62]),
    atLeast(0.6),
    { settled: false, why: /^rounds 0\.59x-0\.62x on both sides of the target$/ },
  ],
  ['every round misses, but 33% apart: the noise is larger than the verdict can stand', rounds([3.4, 4.52]), atLeast(5), { settled: false, why: /33% apart/ }],
  ['no target: only their spread counts', rounds([0.55, 0.62]), undefined, { settled: true, value: 0.585 }],
  ['one round cannot show agreement', rounds([0.7]), atLeast(0.6), { settled: false, value: 0.7, why: /^1 round in common \(at least 2 wanted\)$/ }],
  ['no round in common', [], atLeast(0.6), { settled: false, why: /^no round in common$/ }],
  [
    "rounds agree, but something else took 45% of a server's core in round 2",
    rounds([0.62, 0.63], [0.02, 0.45]),
    atLeast(0.6),
    { settled: false, why: /^something else ran beside the benchmark in round 2 \(up to 0\.45 of a core; at most 0\.10\)$/ },
  ],
  ['0.10 of a core exactly is still quiet enough', rounds([0.62, 0.63], [0.1, 0.1]), atLeast(0.6), { settled: true }],
];
for (const [name, given, meets, expected] of cases) {
  test(`settle: ${name}`, () => {
    const s = settle(given, meets);
    assert.is(s.settled, expected.settled);
    if (expected.value !== undefined) assert.ok(Math.abs(s.value! - expected.value) < 1e-9, `value ${s.value}`);
    if (expected.why) assert.match(s.settled ? '' : s.why, expected.why);
  });
}

function summary(perRound: RoundFigures[]): CaseSummary {
  return { perRound } as CaseSummary;
}

test('pairRounds: the rounds both cases measured, in round order, with the larger disturbance of the two', () => {
  const a = summary([
    { round: 1, rps: 600, cpuMicros: 150, disturbance: 0.3 },
    { round: 2, rps: 700, cpuMicros: 140, disturbance: 0 },
    { round: 3, rps: 650, cpuMicros: 145, disturbance: 0 },
  ]);
  // Round 2 of b was void: it is not in its figures.
  const b = summary([
    { round: 1, rps: 1000, cpuMicros: 100, disturbance: 0.05 },
    { round: 3, rps: 1000, cpuMicros: 100, disturbance: 0.2 },
  ]);
  assert.equal(pairRounds(a, b, 'rps'), [
    { round: 1, ratio: 0.6, disturbance: 0.3 },
    { round: 3, ratio: 0.65, disturbance: 0.2 },
  ]);
  assert.equal(
    pairRounds(a, b, 'cpu').map((r) => r.ratio),
    [1.5, 1.45],
  );
  const unmeasured = summary([{ round: 1, rps: 0, cpuMicros: Number.NaN, disturbance: 0 }]);
  assert.equal(pairRounds(unmeasured, b, 'cpu'), [], 'a round without a figure pairs with nothing');
});

test.run();
