import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { doublingRates, isStepMetric, parseBetween, parseRates, refineRates, stepMetric, stepPlan, stepScenarios } from './phases.js';
test('parseRates wants positive integers that rise; BETWEEN wants exactly two', () => {
  assert.equal(parseRates('25, 50,100'), [25, 50, 100]);
  assert.throws(() => parseRates('50,25'), /rise/);
  assert.throws(() => parseRates('10,x'), /"x"/);
  assert.throws(() => parseRates('0'), /positive/);
  assert.equal(parseBetween('800, 1600'), [800, 1600]);
  assert.throws(() => parseBetween('800'), /two rates/);
  assert.throws(() => parseBetween('1600,800'), /rise/);
});

test('stepMetric names a metric of one step, and isStepMetric knows those names and no other', () => {
  assert.is(stepMetric('http_reqs', 'step-800'), 'http_reqs{scenario:step-800}');
  assert.ok(isStepMetric(stepMetric('http_req_duration', stepPlan([800], 10).steps[0]!.name)));
  assert.not.ok(isStepMetric('http_req_duration'));
  assert.not.ok(isStepMetric('http_reqs{scenario:smoke}'));
});

const doubling: Array<[number, number, number, number[]]> = [
  [50, 12800, 2, [50, 100, 200, 400, 800, 1600, 3200, 6400, 12800]],
  [50, 1000, 2, [50, 100, 200, 400, 800]],
  [100, 100, 2, [100]],
  [10, 40, 1.5, [10, 15, 23, 35]],
  // Rounding would keep 4 x 1.1 at 4 for ever: the rate rises by one until the factor moves it.
  [4, 10, 1.1, [4, 5, 6, 7, 8, 9, 10]],
  [1, 4, 1.2, [1, 2, 3, 4]],
];
for (const [start, max, factor, expected] of doubling) {
  test(`doublingRates from ${start} to ${max} by ${factor}`, () => assert.equal(doublingRates(start, max, factor), expected));
}
test('doublingRates refuses a start above the maximum and a factor that does not grow', () => {
  assert.throws(() => doublingRates(100, 50, 2), /MAX_RATE/);
  assert.throws(() => doublingRates(10, 50, 1), /FACTOR/);
});

const refine: Array<[number, number, number, number[]]> = [
  // Both ends measured again: the rate that held must hold again in this run's conditions.
  [1600, 3200, 4, [1600, 2000, 2400, 2800, 3200]],
  [1600, 3200, 2, [1600, 2400, 3200]],
  [10, 12, 4, [10, 11, 12]],
];
for (const [held, broke, steps, expected] of refine) {
  test(`refineRates from ${held} to ${broke} in ${steps} steps`, () => assert.equal(refineRates(held, broke, steps), expected));
}

test('the plan holds each rate in turn, one k6 scenario per step', () => {
  const plan = stepPlan([50, 100, 200], 10);
  assert.equal(plan.steps, [
    { name: 'step-50', rate: 50, startS: 0, endS: 10 },
    { name: 'step-100', rate: 100, startS: 10, endS: 20 },
    { name: 'step-200', rate: 200, startS: 20, endS: 30 },
  ]);
  assert.is(plan.totalS, 30);
  const scenarios = stepScenarios(plan, { exec: 'capacity', maxVUs: 15 });
  assert.equal(Object.keys(scenarios), ['step-50', 'step-100', 'step-200']);
  assert.equal(scenarios['step-100'], {
    executor: 'constant-arrival-rate',
    exec: 'capacity',
    rate: 100,
    timeUnit: '1s',
    duration: '10s',
    startTime: '10s',
    preAllocatedVUs: 10,
    maxVUs: 15,
    gracefulStop: '5s',
  });
  assert.is(scenarios['step-200']!.preAllocatedVUs, 15, 'never more than maxVUs');
  assert.is(
    stepScenarios(plan, { exec: 'capacity', maxVUs: 200, headroomMs: 250 })['step-100']!.preAllocatedVUs,
    25,
    'VUs for requests as slow as the p95 objective',
  );
  assert.throws(() => stepPlan([], 10), /at least one rate/);
  assert.throws(() => stepPlan([1], 0), /HOLD/);
});

test.run();
