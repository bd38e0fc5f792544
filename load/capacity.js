// @ts-check
// Finds the knee of a target over listPets and createPet with a key whose limits do not bind, one
// step per rate, and says what bound it: the server, the key or the generator. Splits over k6
// processes with --execution-segment; the search and its decisions: load/README.md.

import { check } from 'k6';
import exec from 'k6/execution';
import { Counter, Gauge, Trend } from 'k6/metrics';
import http from 'k6/http';
import {
  baseUrl,
  durationEnv,
  numberEnv,
  stringEnv,
  summaryPath,
  keyLimit,
  keyLimitFromGauges,
  keyLimitLine,
  keyLimitSamples,
  KEY_LIMIT_METRICS,
  refusal,
  setupStop,
  boundLine,
  judgeSteps,
  nextPass,
  stepLine,
  stepStats,
  nextLine,
  doublingRates,
  isStepMetric,
  parseBetween,
  parseRates,
  refineRates,
  stepPlan,
  stepScenarios,
  withBaseline,
  capacitySvg,
  segmentOf,
  metricValue,
  summaryOutputs,
  capacityThresholds,
  k6Override,
  overrideFlags,
  overrideReport,
  scriptPathFrom,
  overwhelmed,
  missedRate,
  behindPlan,
  plannedBefore,
  createPet,
  listPets,
  probe,
} from './lib/bundle.cjs';

/** The reference server's fixture key whose limits do not bind (fixtures/api-keys.json). */
export const LOAD_KEY = 'test-load-key';
/** This script's path as k6 was given it (or absolute), for the `next:` command: the installed package's is not load/capacity.js. */
const SCRIPT = scriptPathFrom(new Error().stack, __ENV.PWD, 'load/capacity.js');
const target = { baseUrl: baseUrl(__ENV), apiKey: stringEnv(__ENV, 'API_KEY', LOAD_KEY), http: http };
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

/** @type {'rates' | 'refine' | 'search'} */
const MODE = FIXED ? 'rates' : BETWEEN ? 'refine' : 'search';
const BRACKET = BETWEEN ? parseBetween(BETWEEN) : null;
const RATES = FIXED
  ? parseRates(FIXED)
  : BRACKET
    ? withBaseline(refineRates(BRACKET[0], BRACKET[1], STEPS), START_RATE)
    : doublingRates(START_RATE, MAX_RATE, FACTOR);
const plan = stepPlan(RATES, HOLD_S);

const overP95 = new Counter('capacity_over_p95');
const overP99 = new Counter('capacity_over_p99');
const limited = new Counter('capacity_key_limited');
const vusBusy = new Trend('capacity_vus_busy');
/** VUs that stopped sending because a step's answers showed the target overwhelmed. */
const stoppedVus = new Counter('capacity_overwhelmed');

/** What this VU saw of each step, and the step after which it stopped sending (null: still sending). */
/** @type {Record<string, { requests: number, slow: number, failed: number }>} */
const seen = {};
/** @type {string | null} */
let stoppedAfter = null;
/** Where this VU began watching its step's achieved rate: the process's completed iterations, and when. */
/** @type {{ step: string, completed: number, atMs: number } | null} */
let watch = null;

/**
 * Stops sending after this step when the whole process plainly missed its rate (missedRate).
 * @param {string} step
 * @param {number} share this generator's share of each rate
 */
function watchRate(step, share) {
  const now = exec.instance;
  if (watch === null || watch.step !== step) {
    watch = { step: step, completed: now.iterationsCompleted, atMs: now.currentTestRunDuration };
    // A VU new to this step judges the steps before it from the process's counters.
    const before = plannedBefore(plan.steps, step, share);
    if (before === null || stoppedAfter !== null) return;
    const expected = before.expected + stepRates[step] * share * Math.max(0, (Date.now() - exec.scenario.startTime) / 1000);
    const w = { expected: expected, completed: now.iterationsCompleted, lastStep: before.lastStep, lastRate: before.lastRate, inFlight: MAX_VUS };
    if (behindPlan(w)) {
      stoppedAfter = before.previous;
      stoppedVus.add(1);
    }
    return;
  }
  const seen = {
    perSecond: stepRates[step] * share,
    completed: now.iterationsCompleted - watch.completed,
    spanS: (now.currentTestRunDuration - watch.atMs) / 1000,
    holdS: HOLD_S,
  };
  if (stoppedAfter === null && missedRate(seen)) {
    stoppedAfter = step;
    stoppedVus.add(1);
  }
}
/** @type {Record<string, Gauge>} */
const keyGauges = {};
for (const field of Object.keys(KEY_LIMIT_METRICS)) {
  const name = KEY_LIMIT_METRICS[/** @type {keyof typeof KEY_LIMIT_METRICS} */ (field)];
  keyGauges[name] = new Gauge(name);
}

// A 3xx is not an answer of the contract: not followed (maxRedirects), and counted as an error.
http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }));

export const options = {
  scenarios: stepScenarios(plan, { exec: 'capacity', maxVUs: MAX_VUS, headroomMs: P95_MS }),
  thresholds: capacityThresholds(plan, { mode: MODE, maxErrorRate: MAX_ERROR_RATE, p95Ms: P95_MS, p99Ms: P99_MS }),
  setupTimeout: '30s',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
  // The key goes only to BASE_URL's origin: a redirect is an answer, never followed.
  maxRedirects: 0,
  // Only statuses and headers are judged: no body is kept.
  discardResponseBodies: true,
};

/**
 * @typedef {{ refused?: string, segment: ReturnType<typeof segmentOf>, startedMs: number, limitedAtStart: import('./lib/key-limit.js').KeyLimit | null, override?: import('./lib/overrides.js').Override | null }} SetupData
 */

/** @returns {SetupData | import('./lib/outcome.js').Refusal} */
export function setup() {
  const segment = segmentOf(exec.test.options);
  let res;
  try {
    res = probe(target);
  } catch (e) {
    return refusal(e instanceof Error ? e.message : String(e), { segment: segment });
  }
  // The probe already refused, or the window runs out within two seconds at the first rate: the key binds at the first step.
  const atStart = keyLimit({ status: res.status, headers: res.headers, receivedAtMs: Date.now() }, RATES[0]);
  console.log(
    'capacity.js: ' +
      target.baseUrl +
      ', ' +
      MODE +
      ': ' +
      RATES.join(', ') +
      ' requests/s, ' +
      HOLD_S +
      ' s each (' +
      plan.totalS +
      ' s in all)' +
      (segment.share === 1 ? '' : '; this generator runs execution segment ' + segment.segment + ' (' + (segment.share * 100).toFixed(1) + '% of each rate)')
  );
  const override = k6Override(exec.test.options);
  if (override !== null) {
    console.log(
      'capacity.js: k6 was given ' +
        overrideFlags(override) +
        ', which replace the search: its VUs send requests back to back, and the run is judged as a whole'
    );
  }
  return { segment: segment, startedMs: Date.now(), limitedAtStart: atStart, override: override };
}

/** @type {Record<string, number>} */
const stepRates = {};
for (const step of plan.steps) stepRates[step.name] = step.rate;

/**
 * Stops the search: the key binds at this step's rate.
 * @param {import('./lib/key-limit.js').KeyLimit} k
 */
function stopForKey(k) {
  limited.add(1);
  for (const sample of keyLimitSamples(k)) keyGauges[sample.metric].add(sample.value);
  exec.test.abort(keyLimitLine(k));
}

/** Requests a second the whole run achieved so far: the rate of k6's own scenario, which has none set. */
function achievedRate() {
  const s = exec.instance.currentTestRunDuration / 1000;
  const r = s > 0 ? exec.instance.iterationsCompleted / s : 0;
  return isFinite(r) ? Math.round(r) : 0;
}

/** @param {SetupData & { refused?: string }} data */
export function capacity(data) {
  if (data.refused) exec.test.abort(data.refused);
  const rate = exec.scenario.name in stepRates ? stepRates[exec.scenario.name] : achievedRate();
  if (data.limitedAtStart) stopForKey(Object.assign({}, data.limitedAtStart, { rate: rate }));
  if (stoppedAfter === null && exec.scenario.name in stepRates) watchRate(exec.scenario.name, data.segment ? data.segment.share : 1);
  // An earlier step plainly broke: a higher rate can only miss more, and only hammers the target.
  if (stoppedAfter !== null && stoppedAfter !== exec.scenario.name) return;
  vusBusy.add(exec.instance.vusActive);
  let res;
  if (Math.random() < CREATE_RATIO) {
    res = createPet(target, { name: 'k6-capacity-' + exec.vu.idInTest, categoryId: 1, status: 'available' });
    check(res, { 'createPet 201': (r) => r.status === 201 });
  } else {
    res = listPets(target, { limit: 20 });
    check(res, { 'listPets 200': (r) => r.status === 200 });
  }
  overP95.add(res.timings.duration > P95_MS ? 1 : 0);
  const step = exec.scenario.name;
  const mine = seen[step] || (seen[step] = { requests: 0, slow: 0, failed: 0 });
  mine.requests += 1;
  if (res.timings.duration > P95_MS) mine.slow += 1;
  if (!(res.status >= 200 && res.status < 300)) mine.failed += 1;
  if (stoppedAfter === null && step in stepRates && overwhelmed(mine)) {
    stoppedAfter = step;
    stoppedVus.add(1);
  }
  overP99.add(res.timings.duration > P99_MS ? 1 : 0);
  const k = keyLimit({ status: res.status, headers: res.headers, receivedAtMs: Date.now() }, rate);
  if (k !== null) stopForKey(k);
}

/**
 * What k6 runs when its own --vus, --duration or --iterations replace the search's steps: the same
 * request as each step's (list or create, CREATE_RATIO), from every VU back to back. A limit of the
 * key still stops the run, at the rate achieved so far.
 * @param {SetupData & { refused?: string }} data
 */
export default function (data) {
  capacity(data);
}

/** @param {any} data */
export function handleSummary(data) {
  /** @type {SetupData | undefined} */
  const setupData = data.setup_data;
  const segment = setupData && setupData.segment ? setupData.segment : segmentOf(null);
  /** @param {string} metric @param {string} stat */
  const valueOf = (metric, stat) => metricValue(data, metric, stat);
  /** @type {Record<string, import('./lib/knee.js').StepStats | null>} */
  const stats = {};
  for (const step of plan.steps) stats[step.name] = stepStats(valueOf, step.name);
  const criteria = {
    maxErrorRate: MAX_ERROR_RATE,
    p95Ms: P95_MS,
    p99Ms: P99_MS,
    minAchieved: 0.95,
    maxDropped: MAX_DROPPED,
    maxVUs: MAX_VUS,
    share: segment.share,
  };
  const knee = judgeSteps(plan, (name) => stats[name], criteria);
  const keyLimited = keyLimitFromGauges((name) => metricValue(data, name, 'value'));
  const setupStopped = setupStop(data);
  const stop = setupStopped !== null ? setupStopped : keyLimited !== null ? { reason: keyLimitLine(keyLimited), exitCode: 108 } : null;
  const report = [];
  const override = setupData && setupData.override ? setupData.override : null;
  if (setupStopped === null && override !== null) {
    const lines = overrideReport(
      override,
      {
        ratePerS: valueOf('http_reqs', 'rate') || 0,
        errorRate: valueOf('http_req_failed', 'rate') || 0,
        p95Ms: valueOf('http_req_duration', 'p(95)') || 0,
        p99Ms: valueOf('http_req_duration', 'p(99)') || 0,
      },
      { p95Ms: P95_MS, p99Ms: P99_MS, maxErrorRate: MAX_ERROR_RATE }
    );
    for (const line of lines) report.push(line);
  } else if (setupStopped === null) {
    for (const row of knee.rows) report.push(stepLine(row));
    const stoppedCount = valueOf('capacity_overwhelmed', 'count') || 0;
    if (stoppedCount > 0) {
      report.push(
        'stopped sending: ' +
          stoppedCount +
          ' VU(s) saw a step plainly broken (the process under 90% of its rate, or half their answers failed or over ' +
          P95_MS +
          ' ms), and sent nothing in the steps after it'
      );
    }
    const held = knee.held;
    report.push(
      held === null
        ? 'highest sustained rate: none (the first step already broke)'
        : 'highest sustained rate: ' +
            held.rate +
            ' requests/s (achieved ' +
            held.achieved.toFixed(1) +
            '/s, p95 ' +
            held.p95.toFixed(1) +
            ' ms, p99 ' +
            held.p99.toFixed(1) +
            ' ms)'
    );
    report.push(
      knee.broke === null
        ? 'first broken rate: none up to ' + RATES[RATES.length - 1] + ' requests/s'
        : 'first broken rate: ' + knee.broke.rate + ' requests/s (' + knee.broke.why + ')'
    );
    report.push(boundLine(knee, RATES[RATES.length - 1]));
    // k6 warns once every VU is busy and an iteration finds none free: then it drops one.
    const busy = knee.rows.filter((r) => {
      const s = stats[r.name];
      return s !== null && s.vusMax !== undefined && s.vusMax >= MAX_VUS && s.dropped > 0;
    });
    if (busy.length > 0)
      report.push(
        'k6\'s warning "Insufficient VUs, reached ' +
          MAX_VUS +
          ' active VUs\" is expected here: this generator ran out of VUs from ' +
          busy[0].rate +
          '/s' +
          (knee.bound === 'server' ? ", waiting on the server's slower answers (VUs busy = rate x request time)" : ' (MAX_VUS)')
      );
    if (segment.share !== 1)
      report.push(
        'execution segment ' +
          segment.segment +
          ': this generator offered ' +
          (segment.share * 100).toFixed(1) +
          "% of each rate; merge every generator's summary with npm run load:merge"
      );
    const search = { mode: MODE, rates: RATES, startRate: START_RATE, steps: STEPS, resolution: RESOLUTION, maxVUs: MAX_VUS, loadKey: LOAD_KEY };
    report.push(nextLine(nextPass(knee, RESOLUTION), knee, search, { script: SCRIPT, env: __ENV, segment: segment }));
  }
  const jsonPath = summaryPath(__ENV, 'capacity', segment.segment);
  /** @type {Record<string, string>} */
  const files = {};
  if (setupStopped === null && override === null) {
    const svgPath = jsonPath.replace(/\.json$/, '') + '.svg';
    files[svgPath] = capacitySvg({
      rows: knee.rows.filter((r) => !r.skipped),
      held: knee.held,
      broke: knee.broke,
      bound: knee.bound,
      title: 'capacity.js against ' + target.baseUrl + (segment.share === 1 ? '' : ', execution segment ' + segment.segment + ' (its share of each rate)'),
    });
    report.push('picture: ' + svgPath);
  }
  return summaryOutputs(data, {
    title: 'capacity.js against ' + target.baseUrl,
    script: 'capacity',
    jsonPath: jsonPath,
    report: report,
    stop: stop,
    files: files,
    extra: {
      baseUrl: target.baseUrl,
      mode: MODE,
      rates: RATES,
      holdS: HOLD_S,
      criteria: criteria,
      segment: segment,
      startedMs: setupData ? setupData.startedMs : null,
      stepStats: stats,
      keyLimited: keyLimited,
      bound: knee.bound,
      steps: knee.rows,
      highestSustained: knee.held,
      firstBroken: knee.broke,
      next: setupStopped === null ? nextPass(knee, RESOLUTION) : null,
    },
    hide: function (metric) {
      return isStepMetric(metric);
    },
  });
}
