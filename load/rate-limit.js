// @ts-check
// Verifies one key's per-minute rate limit against any implementation of the Animal Adoption Store
// API: drives GET /pets above the limit with a constant-arrival-rate scenario, across at least one
// window boundary, and turns every rule of spec/rules/window-rules.js (the rules the conformance kit
// applies too) into a threshold: must-level rules fail the run, should-level ones with STRICT=1.
// Optional BAN=1 scenario: keeps sending after 429 and expects the temporary ban. Run it with a key
// nobody else uses during the run: the count must be complete.
//
//   k6 run --no-usage-report load/rate-limit.js                               (our server, test-free-key, ~2.5 min)
//   k6 run --no-usage-report -e API_KEY=... -e PLAN=pro -e BASE_URL=https://host/v1 load/rate-limit.js

import http from 'k6/http';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { DEFAULT_TOLERANCES, readSnapshot, retryWaitMs } from '../spec/rules/snapshot.js';
import { EVENTS } from '../spec/rules/rules.js';
import { baseUrl, boolEnv, durationEnv, expectedLimit, numberEnv, stringEnv, summaryPath } from './lib/config.js';
import { createPacer } from './lib/pacing.js';
import { listPets, listPetsBatchRequest, probe } from './lib/requests.js';
import { metricValue, summaryOutputs } from './lib/summary.js';
import { KINDS, VIOLATIONS_METRIC, WARNING_ONLY, createJudge, eventMetric, violationKey, violationLine, violationThresholds, zeroSamples } from './lib/verdict.js';

const target = { baseUrl: baseUrl(__ENV), apiKey: stringEnv(__ENV, 'API_KEY', 'test-free-key') };
const expected = expectedLimit(__ENV);
const OVERDRIVE = numberEnv(__ENV, 'OVERDRIVE', 1.5, { min: 1.05, max: 100 });
// Requests per minute to offer when the limit is only learned at run time (no PLAN or LIMIT).
const RATE = numberEnv(__ENV, 'RATE', 1800, { integer: true, min: 1 });
const BATCH = numberEnv(__ENV, 'BATCH', 1, { integer: true, min: 1, max: 50 });
const DURATION_S = durationEnv(__ENV, 'DURATION', '150s');
const CROSS_WINDOWS = boolEnv(__ENV, 'CROSS_WINDOWS', true);
const SKEW_S = numberEnv(__ENV, 'CLOCK_SKEW', DEFAULT_TOLERANCES.clockSkewSeconds, { min: 0, max: 60 });
// Should-level rules (Retry-After as integer seconds, Cache-Control: no-store on 429) fail the run too.
const STRICT = boolEnv(__ENV, 'STRICT', false);
const BAN = boolEnv(__ENV, 'BAN', false);
const BAN_DURATION_S = durationEnv(__ENV, 'BAN_DURATION', '90s');
const BAN_CONFIRM_S = durationEnv(__ENV, 'BAN_CONFIRM', '10s');
const JSON_PATH = summaryPath(__ENV, 'rate-limit');

/** Requests per minute the main scenario aims at: OVERDRIVE times the limit, or RATE until it is learned. */
const targetPerMinute = expected.limit === null ? RATE : Math.ceil(expected.limit * OVERDRIVE);
// Requests per minute in the ban scenario: BAN_RATE, else twice the main rate (at least 120/min),
// from the learned limit once it is known; the scenario's own rate is the ceiling.
const BAN_RATE_SET = numberEnv(__ENV, 'BAN_RATE', 0, { integer: true, min: 1 });
/** @param {number} perMinute the main scenario's rate @returns {number} */
function banPerMinute(perMinute) {
  return BAN_RATE_SET > 0 ? BAN_RATE_SET : Math.max(120, 2 * perMinute);
}
const BAN_RATE = banPerMinute(targetPerMinute);

/** @type {Record<string, Counter>} */
const metrics = {};
metrics[VIOLATIONS_METRIC] = new Counter(VIOLATIONS_METRIC);
for (let i = 0; i < EVENTS.length; i++) metrics[eventMetric(EVENTS[i])] = new Counter(eventMetric(EVENTS[i]));

/** @param {Array<{ metric: string, value: number, tags: Record<string, string> }>} samples */
function add(samples) {
  for (let i = 0; i < samples.length; i++) metrics[samples[i].metric].add(samples[i].value, samples[i].tags);
}

// 429 is an answer this script provokes on purpose, not a failed request.
http.setResponseCallback(http.expectedStatuses(200, 429));

/** @type {Record<string, string[]>} */
const thresholds = violationThresholds({ strict: STRICT });
thresholds['ratelimit_window_saturated{scenario:limit}'] = ['count>=1'];
if (CROSS_WINDOWS) {
  thresholds['ratelimit_window_crossed{scenario:limit}'] = ['count>=1'];
  thresholds['ratelimit_readmitted{scenario:limit}'] = ['count>=1'];
  thresholds['ratelimit_window_verified{scenario:limit}'] = ['count>=1'];
}
thresholds['http_req_failed'] = ['rate<0.01'];
if (BAN) {
  thresholds['ratelimit_ban_detected{scenario:ban}'] = ['count>=1'];
  thresholds['ratelimit_ban_confirmed{scenario:ban}'] = ['count>=1'];
}

/** @type {Record<string, any>} */
const scenarios = {
  limit: {
    executor: 'constant-arrival-rate',
    exec: 'limit',
    rate: Math.ceil(targetPerMinute / BATCH),
    timeUnit: '1m',
    duration: DURATION_S + 's',
    // One VU sees every request and response: the count per window is exact, not per-VU.
    preAllocatedVUs: 1,
    maxVUs: 1,
    gracefulStop: '10s',
  },
};
if (BAN) {
  scenarios.ban = {
    executor: 'constant-arrival-rate',
    exec: 'ban',
    rate: Math.ceil(BAN_RATE / BATCH),
    timeUnit: '1m',
    duration: BAN_DURATION_S + 's',
    startTime: DURATION_S + 15 + 's',
    preAllocatedVUs: 1,
    maxVUs: 1,
    gracefulStop: '10s',
  };
}

export const options = {
  scenarios: scenarios,
  thresholds: thresholds,
  batch: BATCH,
  batchPerHost: BATCH,
  setupTimeout: '30s',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
};

export function setup() {
  add(zeroSamples());
  const sentAtMs = Date.now();
  const res = probe(target);
  const first = { status: res.status, headers: res.headers, receivedAtMs: Date.now(), sentAtMs: sentAtMs };
  const learned = readSnapshot(first).limit;
  if (learned === null) throw new Error('the target sent no integer X-RateLimit-Limit; nothing to verify');
  const perMinute = expected.limit === null ? Math.ceil(learned * OVERDRIVE) : targetPerMinute;
  console.log(
    'rate-limit.js: ' + target.baseUrl + ', Limit ' + learned + (expected.limit === null ? ' (learned)' : ' (expected ' + expected.limit + ')') +
      ', offering ' + Math.min(perMinute, targetPerMinute) + ' requests/min for ' + DURATION_S + ' s' +
      (CROSS_WINDOWS ? ', must cross at least one window boundary' : ', window boundary not required (CROSS_WINDOWS=0)') +
      (BAN ? ', then the ban scenario for up to ' + BAN_DURATION_S + ' s' : '') +
      (STRICT ? '; should-level rules fail the run (STRICT=1)' : '')
  );
  if (perMinute > targetPerMinute) {
    console.warn('the learned limit needs ' + perMinute + ' requests/min but RATE offers ' + targetPerMinute + '; raise RATE or set PLAN/LIMIT');
  }
  return { first: first, perMinute: perMinute, startedMs: Date.now() };
}

/**
 * @typedef {import('../spec/rules/snapshot.js').RecordedResponse} RecordedResponse
 * @typedef {{ first: RecordedResponse, perMinute: number }} SetupData
 * @typedef {{ judge: ReturnType<typeof createJudge>, pacer: ReturnType<typeof createPacer>, logged: Record<string, number>, banSeenMs: number | null }} Run
 * @type {Record<string, Run>}
 */
const runs = {};

/**
 * @param {'window' | 'ban'} mode
 * @param {SetupData} data
 * @returns {Run}
 */
function begin(mode, data) {
  add(zeroSamples());
  const run = {
    judge: createJudge({ expectedLimit: mode === 'window' ? expected.limit : null, clockSkewSeconds: SKEW_S }),
    pacer: createPacer({
      perSecond: (mode === 'window' ? data.perMinute : banPerMinute(data.perMinute)) / 60,
      honourRetryAfter: mode === 'window',
      startMs: Date.now(),
    }),
    logged: {},
    banSeenMs: null,
  };
  if (mode === 'window') record(run, run.judge.observe([data.first]));
  return run;
}

/**
 * Forwards what the rules found to k6 metrics and logs the first few of each kind.
 * @param {Run} run
 * @param {ReturnType<Run['judge']['observe']>} judged
 */
function record(run, judged) {
  const outcome = judged.outcome;
  add(judged.samples);
  for (let i = 0; i < outcome.violations.length; i++) {
    const v = outcome.violations[i];
    run.logged[v.kind] = (run.logged[v.kind] || 0) + 1;
    if (run.logged[v.kind] <= 3) console.warn('VIOLATION ' + v.kind + ' (' + v.level + '): ' + v.detail);
  }
  for (let i = 0; i < outcome.notes.length; i++) console.log(outcome.notes[i]);
}

/**
 * @param {'window' | 'ban'} mode
 * @param {SetupData} data
 */
function drive(mode, data) {
  const name = exec.scenario.name;
  if (!runs[name]) runs[name] = begin(mode, data);
  const run = runs[name];
  const count = run.pacer.allowance(Date.now(), BATCH);
  if (count === 0) return;
  const sentAtMs = Date.now();
  /** @type {Array<{ status: number, headers: Record<string, string> }>} */
  let responses;
  if (count === 1) {
    responses = [listPets(target, { limit: 1 }, { phase: mode })];
  } else {
    /** @type {import('k6/http').BatchRequest[]} */
    const requests = [];
    for (let i = 0; i < count; i++) requests.push(listPetsBatchRequest(target, { limit: 1 }, { phase: mode }));
    responses = http.batch(requests);
  }
  const now = Date.now();
  run.pacer.sent(count);
  const judged = run.judge.observe(
    responses.map(function (r) {
      return { status: r.status, headers: r.headers, receivedAtMs: now, sentAtMs: sentAtMs };
    })
  );
  run.pacer.after(
    judged.snapshots.map(function (s) {
      return { status: s.status, waitMs: retryWaitMs(s, run.judge.tolerances) };
    }),
    now
  );
  record(run, judged);
  if (mode === 'ban') {
    if (run.banSeenMs === null && judged.outcome.events.indexOf('ban_detected') >= 0) run.banSeenMs = now;
    // Once the ban has been seen and confirmed for a while, stop: more requests prove nothing.
    if (run.banSeenMs !== null && now - run.banSeenMs >= BAN_CONFIRM_S * 1000) run.pacer.stop();
  }
}

/** @param {SetupData} data */
export function limit(data) {
  drive('window', data);
}

/** @param {SetupData} data */
export function ban(data) {
  drive('ban', data);
}

/**
 * @param {any} data
 */
export function handleSummary(data) {
  /** @param {string} name */
  const count = function (name) {
    const v = metricValue(data, name, 'count');
    return v === undefined ? 0 : v;
  };
  const report = [];
  const crossed = count('ratelimit_window_crossed');
  report.push('admitted ' + count('ratelimit_admitted') + ', refused with 429 ' + count('ratelimit_rejected') + ', no response ' + count('ratelimit_transport_error'));
  report.push(
    (crossed > 0 ? 'crossed ' + crossed + ' window boundar' + (crossed === 1 ? 'y' : 'ies') : 'did NOT cross a window boundary') +
      '; windows saturated at exactly Limit: ' + count('ratelimit_window_saturated') +
      '; readmitted after a reset: ' + count('ratelimit_readmitted') +
      '; whole windows verified: ' + count('ratelimit_window_verified')
  );
  let total = 0;
  for (let i = 0; i < KINDS.length; i++) {
    const n = count(violationKey(KINDS[i]));
    total += n;
    if (n > 0) report.push(violationLine(KINDS[i], n, STRICT));
  }
  if (total === 0) report.push('no rate-limit rule was broken');
  if (BAN) report.push('ban scenario: ban detected ' + count('ratelimit_ban_detected') + ', confirmed by ' + count('ratelimit_ban_confirmed') + ' further 429(s)');
  return summaryOutputs(data, {
    title: 'rate-limit.js against ' + target.baseUrl,
    script: 'rate-limit',
    jsonPath: JSON_PATH,
    report: report,
    extra: { baseUrl: target.baseUrl, expectedLimit: expected.limit, plan: expected.plan, overdrive: OVERDRIVE, batch: BATCH, durationS: DURATION_S, ban: BAN, strict: STRICT },
    hide: function (_metric, expression) {
      return expression === WARNING_ONLY;
    },
  });
}
