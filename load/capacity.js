// @ts-check
// Capacity: finds the knee of a target over listPets and createPet with a key whose limits do not
// bind (the enterprise fixture key). One step per rate, each held HOLD seconds: by default the rate
// doubles from START_RATE to MAX_RATE, so that the run passes the knee of anything from a mock to a
// cluster; BETWEEN=<held>,<broke> narrows a knee found by an earlier run; RATES fixes the steps. A
// step breaks on its p95 or p99 latency, its error rate or its dropped iterations; the summary
// reports the highest rate that held (every lower step held too), the first that broke, and the
// command that narrows the gap further.
//
//   k6 run --no-usage-report load/capacity.js
//   k6 run --no-usage-report -e BETWEEN=1600,3200 load/capacity.js
//   k6 run --no-usage-report -e RATES=50,100,200 -e HOLD=30s load/capacity.js

import { check } from 'k6';
import exec from 'k6/execution';
import { baseUrl, durationEnv, numberEnv, stringEnv, summaryPath } from './lib/config.js';
import { doublingRates, isStepMetric, judgeSteps, nextPass, parseBetween, parseRates, refineRates, stepMetric, stepPlan, stepScenarios } from './lib/phases.js';
import { createPet, listPets, probe } from './lib/requests.js';
import { metricValue, summaryOutputs } from './lib/summary.js';

const target = { baseUrl: baseUrl(__ENV), apiKey: stringEnv(__ENV, 'API_KEY', 'test-enterprise-key') };
const FIXED = stringEnv(__ENV, 'RATES', '');
const BETWEEN = stringEnv(__ENV, 'BETWEEN', '');
const START_RATE = numberEnv(__ENV, 'START_RATE', 50, { integer: true, min: 1 });
const MAX_RATE = numberEnv(__ENV, 'MAX_RATE', 12800, { integer: true, min: 1 });
const FACTOR = numberEnv(__ENV, 'FACTOR', 2, { min: 1.1 });
const STEPS = numberEnv(__ENV, 'STEPS', 4, { integer: true, min: 1 });
const RESOLUTION = numberEnv(__ENV, 'RESOLUTION', 0.1, { min: 0.001 });
const HOLD_S = durationEnv(__ENV, 'HOLD', '10s');
const MAX_VUS = numberEnv(__ENV, 'MAX_VUS', 200, { integer: true, min: 1 });
const P95_MS = numberEnv(__ENV, 'P95_MS', 250, { min: 1 });
const P99_MS = numberEnv(__ENV, 'P99_MS', 500, { min: 1 });
const MAX_ERROR_RATE = numberEnv(__ENV, 'MAX_ERROR_RATE', 0.01, { min: 0, max: 1 });
const MAX_DROPPED = numberEnv(__ENV, 'MAX_DROPPED', 0.01, { min: 0, max: 1 });
const CREATE_RATIO = numberEnv(__ENV, 'CREATE_RATIO', 0.2, { min: 0, max: 1 });
const JSON_PATH = summaryPath(__ENV, 'capacity');

/** @type {'rates' | 'refine' | 'search'} */
const MODE = FIXED ? 'rates' : BETWEEN ? 'refine' : 'search';
const BRACKET = BETWEEN ? parseBetween(BETWEEN) : null;
const RATES = FIXED ? parseRates(FIXED) : BRACKET ? refineRates(BRACKET[0], BRACKET[1], STEPS) : doublingRates(START_RATE, MAX_RATE, FACTOR);
const plan = stepPlan(RATES, HOLD_S);
const first = plan.steps[0].name;

/** @type {Record<string, string[]>} */
const thresholds = {};
if (MODE === 'rates') {
  // Fixed steps are a service level: every one of them must hold.
  thresholds.http_req_failed = ['rate<' + MAX_ERROR_RATE];
  thresholds.http_req_duration = ['p(95)<' + P95_MS, 'p(99)<' + P99_MS];
}
// Always-true thresholds on each step: they only make k6 keep per-step aggregates (across all VUs)
// for handleSummary to judge. The text summary hides them.
for (let i = 0; i < plan.steps.length; i++) {
  const name = plan.steps[i].name;
  thresholds[stepMetric('http_reqs', name)] = ['count>=0'];
  thresholds[stepMetric('http_req_failed', name)] = ['rate>=0'];
  thresholds[stepMetric('http_req_duration', name)] = ['p(95)>=0', 'p(99)>=0'];
  thresholds[stepMetric('dropped_iterations', name)] = ['count>=0'];
}
if (MODE !== 'rates') {
  // A search runs past the knee on purpose: only a target that cannot carry the first step fails the run.
  thresholds[stepMetric('http_req_failed', first)].push('rate<' + MAX_ERROR_RATE);
  thresholds[stepMetric('http_req_duration', first)].push('p(95)<' + P95_MS, 'p(99)<' + P99_MS);
}

export const options = {
  scenarios: stepScenarios(plan, { exec: 'capacity', maxVUs: MAX_VUS }),
  thresholds: thresholds,
  setupTimeout: '30s',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
};

export function setup() {
  const res = probe(target);
  if (res.status === 429) throw new Error('API_KEY is already rate limited; capacity needs a key whose limits do not bind');
  console.log('capacity.js: ' + target.baseUrl + ', ' + MODE + ': ' + RATES.join(', ') + ' requests/s, ' + HOLD_S + ' s each (' + plan.totalS + ' s in all)');
}

export function capacity() {
  if (Math.random() < CREATE_RATIO) {
    const res = createPet(target, { name: 'k6-capacity-' + exec.vu.idInTest, categoryId: 1, status: 'available' });
    check(res, { 'createPet 201': (r) => r.status === 201 });
  } else {
    const res = listPets(target, { limit: 20 });
    check(res, { 'listPets 200': (r) => r.status === 200 });
  }
}

/**
 * @param {any} data
 * @param {string} metric
 * @param {string} stat
 */
function stepValue(data, metric, stat) {
  const v = metricValue(data, metric, stat);
  return v === undefined ? 0 : v;
}

/** @param {any} data */
export function handleSummary(data) {
  const knee = judgeSteps(
    plan,
    function (name) {
      const count = metricValue(data, stepMetric('http_reqs', name), 'count');
      if (count === undefined) return null;
      return {
        count: count,
        errorRate: stepValue(data, stepMetric('http_req_failed', name), 'rate'),
        p95: stepValue(data, stepMetric('http_req_duration', name), 'p(95)'),
        p99: stepValue(data, stepMetric('http_req_duration', name), 'p(99)'),
        dropped: stepValue(data, stepMetric('dropped_iterations', name), 'count'),
      };
    },
    { maxErrorRate: MAX_ERROR_RATE, p95Ms: P95_MS, p99Ms: P99_MS, minAchieved: 0.95, maxDropped: MAX_DROPPED }
  );
  const report = [];
  for (let i = 0; i < knee.rows.length; i++) {
    const r = knee.rows[i];
    report.push(
      (r.ok ? 'held ' : 'MISSED ') + r.rate + '/s: achieved ' + r.achieved.toFixed(1) + '/s, errors ' + (r.errorRate * 100).toFixed(2) + '%, p95 ' + r.p95.toFixed(1) + ' ms, p99 ' + r.p99.toFixed(1) + ' ms, ' + r.dropped + ' dropped' +
        (r.ok ? '' : ' (' + r.why + ')') +
        (r.ok && r.afterKnee ? ' (after the first break: not counted)' : '')
    );
  }
  const held = knee.held;
  const broke = knee.broke;
  report.push(
    held === null
      ? 'highest sustained rate: none (the first step already broke)'
      : 'highest sustained rate: ' + held.rate + ' requests/s (achieved ' + held.achieved.toFixed(1) + '/s, p95 ' + held.p95.toFixed(1) + ' ms, p99 ' + held.p99.toFixed(1) + ' ms)'
  );
  report.push(broke === null ? 'first broken rate: none up to ' + RATES[RATES.length - 1] + ' requests/s' : 'first broken rate: ' + broke.rate + ' requests/s (' + broke.why + ')');
  const next = nextPass(knee, RESOLUTION);
  if (next.kind === 'refine' && next.between) report.push('next: k6 run --no-usage-report -e BETWEEN=' + next.between.join(',') + ' load/capacity.js   (narrows the knee in ' + STEPS + ' steps)');
  else if (next.kind === 'found') report.push('knee: between ' + (held ? held.rate : 0) + ' and ' + (broke ? broke.rate : 0) + ' requests/s, within ' + RESOLUTION * 100 + '%');
  else if (next.kind === 'raise-max') report.push('next: nothing broke; raise ' + (MODE === 'search' ? 'MAX_RATE' : 'the highest rate') + ' to find the knee');
  else report.push('next: the first step broke; lower ' + (MODE === 'search' ? 'START_RATE' : 'the lowest rate'));
  return summaryOutputs(data, {
    title: 'capacity.js against ' + target.baseUrl,
    script: 'capacity',
    jsonPath: JSON_PATH,
    report: report,
    extra: { baseUrl: target.baseUrl, mode: MODE, rates: RATES, holdS: HOLD_S, steps: knee.rows, highestSustained: held, firstBroken: broke, next: next },
    hide: function (metric) {
      return isStepMetric(metric);
    },
  });
}
