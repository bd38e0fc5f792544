import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { capacityPlan, judgeCapacity, parseRates, phaseAt } from './phases.js';

test('parseRates wants positive integers that rise', () => {
  assert.equal(parseRates('25, 50,100'), [25, 50, 100]);
  assert.throws(() => parseRates('50,25'), /rise/);
  assert.throws(() => parseRates('10,x'), /"x"/);
  assert.throws(() => parseRates('0'), /positive/);
});

test('the plan holds each rate after ramping to it, and tags requests by the phase they start in', () => {
  const plan = capacityPlan([10, 20, 40], 5, 20);
  assert.is(plan.startRate, 10);
  assert.equal(plan.stages, [
    { target: 10, duration: '20s' },
    { target: 20, duration: '5s' },
    { target: 20, duration: '20s' },
    { target: 40, duration: '5s' },
    { target: 40, duration: '20s' },
  ]);
  assert.is(plan.totalS, 70);
  for (const [t, phase] of [
    [0, 'hold-10'],
    [19.9, 'hold-10'],
    [20, 'ramp-20'],
    [25, 'hold-20'],
    [49, 'ramp-40'],
    [69.9, 'hold-40'],
    [70, 'after'],
  ] as const) {
    assert.is(phaseAt(plan, t), phase, `at ${t} s`);
  }
});

const plan = capacityPlan([10, 20, 40], 5, 20);
const criteria = { maxErrorRate: 0.01, p95Ms: 100, p99Ms: 200, minAchieved: 0.95 };

test('the highest sustained rate is the last hold within every bound, with all lower holds held too', () => {
  const stats: Record<string, { count: number; errorRate: number; p95: number; p99: number }> = {
    'hold-10': { count: 200, errorRate: 0, p95: 5, p99: 9 },
    'hold-20': { count: 400, errorRate: 0.005, p95: 20, p99: 60 },
    'hold-40': { count: 800, errorRate: 0, p95: 150, p99: 300 },
  };
  const v = judgeCapacity(plan, (n) => stats[n] ?? null, criteria);
  assert.is(v.best?.rate, 20);
  assert.equal(v.rows.map((r) => r.ok), [true, true, false]);
  assert.match(v.rows[2]!.why, /p95 150.0 ms, p99 300.0 ms/);
});

test('a hold the load generator could not deliver, or one with errors, is not sustained', () => {
  const v = judgeCapacity(
    plan,
    (n) => ({ 'hold-10': { count: 150, errorRate: 0, p95: 1, p99: 1 }, 'hold-20': { count: 400, errorRate: 0.5, p95: 1, p99: 1 } })[n] ?? null,
    criteria,
  );
  assert.is(v.best, null);
  assert.match(v.rows[0]!.why, /achieved 7.5\/s of 10\/s/);
  assert.match(v.rows[1]!.why, /errors 50.00%/);
  assert.match(v.rows[2]!.why, /no requests/);
});

test('a recovery after a collapse does not count as capacity', () => {
  const good = { errorRate: 0, p95: 1, p99: 1 };
  const v = judgeCapacity(
    plan,
    (n) => ({ 'hold-10': { count: 200, ...good }, 'hold-20': { count: 400, ...good, errorRate: 0.2 }, 'hold-40': { count: 800, ...good } })[n] ?? null,
    criteria,
  );
  assert.is(v.best?.rate, 10);
});

test.run();
