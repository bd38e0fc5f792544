// capacity.js's reading of its steps (knee.js): recorded step results and the verdict each must give.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { behindPlan, boundLine, judgeSteps, missedRate, nextPass, plannedBefore, stepLine, vusText, type StepStats, overwhelmed } from './knee.js';
import { doublingRates, refineRates, stepPlan } from './phases.js';

const criteria = { maxErrorRate: 0.01, p95Ms: 100, p99Ms: 200, minAchieved: 0.95, maxDropped: 0.01 };
const good = (rate: number, holdS = 10): StepStats => ({ count: rate * holdS, errorRate: 0, p95: 5, p99: 9, dropped: 0 });

/** Recorded step results of runs against targets with a knee, and the verdict each must give. */
const recorded: Array<[string, number[], Record<string, StepStats>, number | null, number | null, RegExp | null]> = [
  [
    'the p95 breaks at 800/s',
    [100, 200, 400, 800, 1600],
    {
      'step-100': good(100),
      'step-200': good(200),
      'step-400': good(400),
      'step-800': { ...good(800), p95: 140, p99: 190 },
      'step-1600': { ...good(1600), p95: 900, p99: 1500 },
    },
    400,
    800,
    /^p95 140\.0 ms$/,
  ],
  [
    'errors break it',
    [100, 200, 400],
    { 'step-100': good(100), 'step-200': { ...good(200), errorRate: 0.05 }, 'step-400': good(400) },
    100,
    200,
    /errors 5\.00%/,
  ],
  [
    'k6 dropped iterations: the target was too slow to keep the VUs free',
    [100, 200],
    { 'step-100': good(100), 'step-200': { ...good(200), count: 1950, dropped: 50 } },
    100,
    200,
    /^50 iterations dropped, the generator's ceiling/,
  ],
  [
    "a few dropped iterations at a step's start are tolerated",
    [100, 200],
    { 'step-100': good(100), 'step-200': { ...good(200), dropped: 15 } },
    200,
    null,
    null,
  ],
  [
    'the load generator could not deliver the rate',
    [100, 200],
    { 'step-100': good(100), 'step-200': { ...good(200), count: 1500 } },
    100,
    200,
    /achieved 150\.0\/s of 200\/s/,
  ],
  ['a step with no requests at all', [100, 200], { 'step-100': good(100) }, 100, 200, /^no requests$/],
  ['the first step already broke', [100, 200], { 'step-100': { ...good(100), p99: 900 }, 'step-200': good(200) }, null, 100, /p99 900\.0 ms/],
  ['nothing broke', [100, 200, 400], { 'step-100': good(100), 'step-200': good(200), 'step-400': good(400) }, 400, null, null],
];
for (const [name, rates, stats, held, broke, why] of recorded) {
  test(`judgeSteps: ${name}`, () => {
    const knee = judgeSteps(stepPlan(rates, 10), (n) => stats[n] ?? null, criteria);
    assert.is(knee.held === null ? null : knee.held.rate, held, 'held');
    assert.is(knee.broke === null ? null : knee.broke.rate, broke, 'broke');
    if (why) assert.match(knee.broke!.why, why);
    assert.is(knee.rows.length, rates.length);
  });
}

test('a step that holds after the first break is reported but is not capacity', () => {
  const stats: Record<string, StepStats> = { 'step-10': good(10), 'step-20': { ...good(20), errorRate: 0.2 }, 'step-40': good(40) };
  const knee = judgeSteps(stepPlan([10, 20, 40], 10), (n) => stats[n] ?? null, criteria);
  assert.is(knee.held!.rate, 10);
  assert.is(knee.broke!.rate, 20);
  assert.equal(
    knee.rows.map((r) => [r.ok, r.afterKnee]),
    [
      [true, false],
      [false, false],
      [true, true],
    ],
  );
});

const passes: Array<[string, number | null, number | null, ReturnType<typeof nextPass>]> = [
  ['a doubling pass: narrow the gap', 1600, 3200, { kind: 'refine', between: [1600, 3200] }],
  ['a gap of 10% of the rate that held: found', 2000, 2200, { kind: 'found' }],
  ['a gap just above 10%: once more', 2000, 2201, { kind: 'refine', between: [2000, 2201] }],
  ['nothing broke: go higher', 12800, null, { kind: 'raise-max' }],
  ['the first step broke: start lower', null, 50, { kind: 'lower-start' }],
];
for (const [name, held, broke, expected] of passes) {
  test(`nextPass: ${name}`, () => {
    const row = (rate: number) => ({
      name: `step-${rate}`,
      rate,
      offered: rate,
      achieved: rate,
      errorRate: 0,
      p95: 1,
      p99: 1,
      dropped: 0,
      ok: true,
      why: '',
      afterKnee: false,
      requestMs: 1,
      slowdown: null,
      skipped: false,
      bound: null,
      cause: null,
      k6: '',
    });
    const bound = broke === null ? null : ('server' as const);
    assert.equal(nextPass({ rows: [], held: held === null ? null : row(held), broke: broke === null ? null : row(broke), bound }, 0.1), expected);
  });
}

test('a whole search on recorded passes: doubling finds 1600-3200, two refinements narrow it to 2400-2600', () => {
  const knee = (rate: number) => (rate <= 2500 ? good(rate) : { ...good(rate), p95: 300 });
  const run = (rates: number[]) => judgeSteps(stepPlan(rates, 10), (n) => knee(Number(n.slice(5))), criteria);
  const first = nextPass(run(doublingRates(50, 12800, 2)), 0.1);
  assert.equal(first, { kind: 'refine', between: [1600, 3200] });
  const second = nextPass(run(refineRates(1600, 3200, 4)), 0.1);
  assert.equal(second, { kind: 'refine', between: [2400, 2800] });
  const third = run(refineRates(2400, 2800, 4));
  assert.equal([third.held!.rate, third.broke!.rate], [2500, 2600]);
  assert.equal(nextPass(third, 0.1), { kind: 'found' });
});

const bounds: Array<[string, StepStats, 'server' | 'key' | 'generator', RegExp]> = [
  ['a 429 is the key, not the server', { ...good(200), limited: 1, errorRate: 0.3 }, 'key', /the key binds/],
  ['errors are the server', { ...good(200), errorRate: 0.2 }, 'server', /errors 20\.00%/],
  ['latency over the objective is the server', { ...good(200), p95: 300, overP95: 400 }, 'server', /p95 300\.0 ms \(400 over 100 ms\)/],
  [
    'a slow server that also made k6 drop iterations is still the server',
    { ...good(200), p95: 300, dropped: 500, count: 1500 },
    'server',
    /p95 300\.0 ms, 500 iterations dropped/,
  ],
  [
    'dropped iterations with every VU busy and fast answers: the generator (MAX_VUS)',
    { ...good(200), dropped: 500, count: 1500, vusMax: 50 },
    'generator',
    /all 50 VUs busy/,
  ],
  [
    'dropped iterations, k6 spending longer around each request than on it: the generator (its CPU)',
    { ...good(200), dropped: 500, count: 1500, vusMax: 3, iterationAvg: 9, requestAvg: 2 },
    'generator',
    /k6 spent 7\.0 ms around each 2\.0 ms request, so k6 itself could not keep up/,
  ],
  [
    'dropped iterations, VUs waiting on slower requests within the objective: the server',
    { ...good(200), dropped: 500, count: 1500, vusMax: 30, iterationAvg: 25.4, requestAvg: 24.3 },
    'server',
    /the target slowed down: its 24\.3 ms requests kept the VUs waiting/,
  ],
];
for (const [name, step, bound, why] of bounds) {
  test(`judgeSteps bound: ${name}`, () => {
    const knee = judgeSteps(stepPlan([100, 200], 10), (n) => (n === 'step-100' ? good(100) : step), { ...criteria, maxVUs: 50 });
    assert.is(knee.bound, bound);
    assert.match(knee.broke!.why, why);
    assert.is(nextPass(knee, 0.1).kind, bound === 'server' ? 'refine' : bound);
    if (bound === 'generator') assert.is(nextPass(knee, 0.1).cause, knee.broke!.cause);
    assert.match(
      boundLine(knee, 200),
      bound === 'key' ? /the key's limit at 200\/s/ : bound === 'generator' ? /the generator's ceiling at 200\/s/ : /the server's knee, between 100 and 200/,
    );
  });
}

test('each step carries its request time and its growth since the fastest lower step, and its line says so', () => {
  const stats: Record<string, StepStats> = {
    'step-50': { ...good(50), requestAvg: 1.4, iterationAvg: 1.8 },
    'step-100': { ...good(100), requestAvg: 2.8, iterationAvg: 3.1 },
  };
  const knee = judgeSteps(stepPlan([50, 100], 10), (n) => stats[n] ?? null, criteria);
  assert.equal(
    knee.rows.map((r) => [r.requestMs, r.slowdown]),
    [
      [1.4, null],
      [2.8, 2],
    ],
  );
  assert.match(stepLine(knee.rows[0]!), /iteration 1\.8 ms for a 1\.4 ms request$/);
  assert.match(stepLine(knee.rows[1]!), /iteration 3\.1 ms for a 2\.8 ms request \(x2\.0 since 50\/s\)$/);
});

test('p95 is judged on the count of slow requests when it is given, so that generators can be summed exactly', () => {
  const plan = stepPlan([100], 10);
  // 5% exactly over the objective holds; one more request over breaks.
  assert.ok(judgeSteps(plan, () => ({ ...good(100), p95: 999, overP95: 50 }), criteria).rows[0]!.ok);
  assert.not.ok(judgeSteps(plan, () => ({ ...good(100), p95: 1, overP95: 51 }), criteria).rows[0]!.ok);
});

test("a generator's share: a segment of half the run is judged against half of each rate", () => {
  const plan = stepPlan([100, 200], 10);
  const half = (rate: number) => ({ ...good(rate), count: rate * 5 });
  const knee = judgeSteps(plan, (n) => half(Number(n.slice(5))), { ...criteria, share: 0.5 });
  assert.equal(
    knee.rows.map((r) => [r.ok, r.offered]),
    [
      [true, 50],
      [true, 100],
    ],
  );
  assert.match(stepLine(knee.rows[0]!), /held 100\/s \(this generator: 50\.0\/s\)/);
  assert.not.ok(judgeSteps(plan, (n) => half(Number(n.slice(5))), criteria).rows[0]!.ok, 'alone, half the requests is a miss');
});

test('steps after the search stopped are "not run", not failures', () => {
  const knee = judgeSteps(
    stepPlan([100, 200, 400], 10),
    (n) => (n === 'step-100' ? good(100) : n === 'step-200' ? { ...good(200), limited: 1 } : null),
    criteria,
  );
  assert.equal(
    knee.rows.map((r) => [r.ok, r.skipped]),
    [
      [true, false],
      [false, false],
      [false, true],
    ],
  );
  assert.is(stepLine(knee.rows[2]!), 'not run 400/s (the search had stopped)');
  assert.is(knee.bound, 'key');
});

const vusCases: Array<[string, number, number | undefined, string]> = [
  ['within the step', 12, 200, 'VUs busy at most 12 of 200'],
  ['all of them', 200, 200, 'VUs busy at most 200 of 200'],
  // k6 counts the run's active VUs: the step before, in its gracefulStop, adds to them.
  ['more than a step may have', 275, 200, 'VUs busy at most 275 with the step before still ending (200 a step)'],
  ['no maximum known', 7, undefined, 'VUs busy at most 7'],
];
for (const [name, busy, max, expected] of vusCases) {
  test(`vusText: ${name}`, () => assert.is(vusText(busy, max), expected));
}

const OVERWHELMED_CASES: Array<[string, { requests: number; slow: number; failed: number }, boolean]> = [
  ['too few requests to say', { requests: 49, slow: 49, failed: 49 }, false],
  ['half failed', { requests: 50, slow: 0, failed: 25 }, true],
  ['half slower than P95_MS', { requests: 200, slow: 100, failed: 0 }, true],
  ['a broken step, not overwhelmed (10 % slow, 5 % failed)', { requests: 1000, slow: 100, failed: 50 }, false],
  ['a held step at its worst (5 % slow, 1 % failed)', { requests: 1000, slow: 50, failed: 10 }, false],
];
for (const [what, seen, expected] of OVERWHELMED_CASES) test(`overwhelmed: ${what}`, () => assert.is(overwhelmed(seen), expected));

const MISSED: Array<[string, { perSecond: number; completed: number; spanS: number; holdS: number }, boolean]> = [
  ['watched too briefly to say (under half the step)', { perSecond: 100, completed: 0, spanS: 4, holdS: 10 }, false],
  ['watched too briefly to say (under 2 s)', { perSecond: 100, completed: 0, spanS: 1.9, holdS: 2 }, false],
  ['a step that kept its rate', { perSecond: 100, completed: 500, spanS: 5, holdS: 10 }, false],
  ['a step at 92 %: broken (under 95 %) but not plainly', { perSecond: 100, completed: 460, spanS: 5, holdS: 10 }, false],
  ['a step at 72 of 80 a second (the knee target)', { perSecond: 80, completed: 179, spanS: 2.5, holdS: 5 }, true],
  ["a generator's half of a step, under 90 %", { perSecond: 50, completed: 200, spanS: 5, holdS: 10 }, true],
];
for (const [what, w, expected] of MISSED) test(`missedRate: ${what}`, () => assert.is(missedRate(w), expected));

// The real k6 run that stepped on with 2 VUs: 400, 800 and 1600/s for 4 s each, 384.8, 723.8 and
// 850.3/s achieved; at 3200/s's start it is plainly behind, at 1600/s's (800/s at 90 %) not yet.
const BEHIND: Array<[string, { expected: number; completed: number; lastStep: number; lastRate: number; inFlight: number }, boolean]> = [
  ['no step before', { expected: 0, completed: 0, lastStep: 0, lastRate: 0, inFlight: 2 }, false],
  ['1600/s at 53 %: plainly behind', { expected: 11200, completed: 7836, lastStep: 6400, lastRate: 1600, inFlight: 2 }, true],
  ['800/s at 90 %: not plainly', { expected: 4800, completed: 4434, lastStep: 3200, lastRate: 800, inFlight: 2 }, false],
  ['every step at 95 %', { expected: 4800, completed: 4560, lastStep: 3200, lastRate: 800, inFlight: 2 }, false],
  ['a low step: 200 VUs may be in flight', { expected: 500, completed: 300, lastStep: 500, lastRate: 50, inFlight: 200 }, false],
  ['a short step a second late', { expected: 90, completed: 70, lastStep: 60, lastRate: 20, inFlight: 2 }, false],
];
for (const [what, w, expected] of BEHIND) test(`behindPlan: ${what}`, () => assert.is(behindPlan(w), expected));

// What capacity.js's VU new to a step reads of the plan before it.
const PLAN_STEPS = [
  { name: 'rate_10', rate: 10, startS: 0, endS: 5 },
  { name: 'rate_20', rate: 20, startS: 5, endS: 10 },
  { name: 'rate_40', rate: 40, startS: 10, endS: 15 },
];
const BEFORE: Array<[string, string, number, ReturnType<typeof plannedBefore>]> = [
  ['the first step has nothing before it', 'rate_10', 1, null],
  ['one step before', 'rate_20', 1, { expected: 50, lastStep: 50, lastRate: 10, previous: 'rate_10' }],
  ['two steps before', 'rate_40', 1, { expected: 150, lastStep: 100, lastRate: 20, previous: 'rate_20' }],
  ['a generator with half of each rate', 'rate_40', 0.5, { expected: 75, lastStep: 50, lastRate: 10, previous: 'rate_20' }],
];
for (const [what, step, share, expected] of BEFORE) test(`plannedBefore: ${what}`, () => assert.equal(plannedBefore(PLAN_STEPS, step, share), expected));

test.run();
