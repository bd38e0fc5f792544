// @ts-check
// Capacity: a ramping-arrival-rate run over listPets and createPet with a key whose limits do not
// bind (the enterprise fixture key), stepping through RATES and holding each. Thresholds bound the
// error rate and the p95/p99 latency of the whole run; the summary reports the highest rate the
// target sustained within those bounds (every request is tagged with the step it started in).
//
//   k6 run load/capacity.js
//   k6 run -e RATES=50,100,200,400,800 -e HOLD=30s load/capacity.js

import { check } from 'k6';
import exec from 'k6/execution';
import { baseUrl, durationEnv, numberEnv, stringEnv, summaryPath } from './lib/config.js';
import { capacityPlan, judgeCapacity, parseRates, phaseAt } from './lib/phases.js';
import { createPet, listPets, probe } from './lib/requests.js';
import { metricValue, summaryOutputs } from './lib/summary.js';

const target = { baseUrl: baseUrl(__ENV), apiKey: stringEnv(__ENV, 'API_KEY', 'test-enterprise-key') };
const RATES = parseRates(stringEnv(__ENV, 'RATES', '25,50,100,200'));
const HOLD_S = durationEnv(__ENV, 'HOLD', '20s');
const RAMP_S = durationEnv(__ENV, 'RAMP', '5s');
const MAX_VUS = numberEnv(__ENV, 'MAX_VUS', 100, { integer: true, min: 1 });
const P95_MS = numberEnv(__ENV, 'P95_MS', 250, { min: 1 });
const P99_MS = numberEnv(__ENV, 'P99_MS', 500, { min: 1 });
const MAX_ERROR_RATE = numberEnv(__ENV, 'MAX_ERROR_RATE', 0.01, { min: 0, max: 1 });
const CREATE_RATIO = numberEnv(__ENV, 'CREATE_RATIO', 0.2, { min: 0, max: 1 });
const JSON_PATH = summaryPath(__ENV, 'capacity');

const plan = capacityPlan(RATES, RAMP_S, HOLD_S);

/** @type {Record<string, string[]>} */
const thresholds = {
  http_req_failed: ['rate<' + MAX_ERROR_RATE],
  http_req_duration: ['p(95)<' + P95_MS, 'p(99)<' + P99_MS],
};
// Always-true thresholds on each hold step: they only make k6 keep per-step aggregates (across
// all VUs) for handleSummary to judge. The text summary hides them.
for (let i = 0; i < plan.phases.length; i++) {
  const name = plan.phases[i].name;
  if (name.indexOf('hold-') !== 0) continue;
  thresholds['http_reqs{phase:' + name + '}'] = ['count>=0'];
  thresholds['http_req_failed{phase:' + name + '}'] = ['rate>=0'];
  thresholds['http_req_duration{phase:' + name + '}'] = ['p(95)>=0', 'p(99)>=0'];
}

export const options = {
  scenarios: {
    capacity: {
      executor: 'ramping-arrival-rate',
      exec: 'capacity',
      startRate: plan.startRate,
      timeUnit: '1s',
      preAllocatedVUs: Math.min(MAX_VUS, Math.max(2, Math.ceil(RATES[0] / 10))),
      maxVUs: MAX_VUS,
      stages: plan.stages,
      gracefulStop: '10s',
    },
  },
  thresholds: thresholds,
  setupTimeout: '30s',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
};

export function setup() {
  const res = probe(target);
  if (res.status === 429) throw new Error('API_KEY is already rate limited; capacity needs a key whose limits do not bind');
  console.log('capacity.js: ' + target.baseUrl + ', steps ' + RATES.join(', ') + ' requests/s, ' + HOLD_S + ' s each (' + plan.totalS + ' s in all)');
}

export function capacity() {
  const elapsedS = (Date.now() - exec.scenario.startTime) / 1000;
  const tags = { phase: phaseAt(plan, elapsedS) };
  if (Math.random() < CREATE_RATIO) {
    const res = createPet(target, { name: 'k6-capacity-' + exec.vu.idInTest, categoryId: 1, status: 'available' }, tags);
    check(res, { 'createPet 201': (r) => r.status === 201 });
  } else {
    const res = listPets(target, { limit: 20 }, tags);
    check(res, { 'listPets 200': (r) => r.status === 200 });
  }
}

/** @param {any} data */
export function handleSummary(data) {
  const verdict = judgeCapacity(
    plan,
    function (name) {
      const count = metricValue(data, 'http_reqs{phase:' + name + '}', 'count');
      if (count === undefined) return null;
      const failed = metricValue(data, 'http_req_failed{phase:' + name + '}', 'rate');
      const p95 = metricValue(data, 'http_req_duration{phase:' + name + '}', 'p(95)');
      const p99 = metricValue(data, 'http_req_duration{phase:' + name + '}', 'p(99)');
      return { count: count, errorRate: failed === undefined ? 0 : failed, p95: p95 === undefined ? 0 : p95, p99: p99 === undefined ? 0 : p99 };
    },
    { maxErrorRate: MAX_ERROR_RATE, p95Ms: P95_MS, p99Ms: P99_MS, minAchieved: 0.95 }
  );
  const report = [];
  for (let i = 0; i < verdict.rows.length; i++) {
    const r = verdict.rows[i];
    report.push(
      (r.ok ? 'held ' : 'MISSED ') + r.rate + '/s: achieved ' + r.achieved.toFixed(1) + '/s, errors ' + (r.errorRate * 100).toFixed(2) + '%, p95 ' + r.p95.toFixed(1) + ' ms, p99 ' + r.p99.toFixed(1) + ' ms' + (r.ok ? '' : ' (' + r.why + ')')
    );
  }
  const dropped = metricValue(data, 'dropped_iterations', 'count');
  if (dropped) report.push(dropped + ' iterations dropped: k6 ran out of VUs (raise MAX_VUS) or the target was too slow');
  report.push(
    verdict.best === null
      ? 'highest sustained rate: none (the first step already missed its bounds)'
      : 'highest sustained rate: ' + verdict.best.rate + ' requests/s (achieved ' + verdict.best.achieved.toFixed(1) + '/s, p95 ' + verdict.best.p95.toFixed(1) + ' ms, p99 ' + verdict.best.p99.toFixed(1) + ' ms)'
  );
  return summaryOutputs(data, {
    title: 'capacity.js against ' + target.baseUrl,
    script: 'capacity',
    jsonPath: JSON_PATH,
    report: report,
    extra: { baseUrl: target.baseUrl, rates: RATES, holdS: HOLD_S, rampS: RAMP_S, steps: verdict.rows, highestSustained: verdict.best },
    hide: function (metric) {
      return metric.indexOf('{phase:') >= 0;
    },
  });
}
