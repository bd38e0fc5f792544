// @ts-check
// Judges one key's per-minute limiter: drives GET /pets above the limit across window boundaries and
// turns every rule of judge/rules/window-rules.js into a threshold; BAN=1 also probes the ban. One k6
// process, one key nobody else uses: a window is judged exactly only with all its answers in one place.

import { sleep } from 'k6';
import http from 'k6/http';
import exec from 'k6/execution';
import { Counter, Trend } from 'k6/metrics';
import {
  keyLabel,
  DEFAULT_TOLERANCES,
  REFUSAL_STATUSES,
  readSnapshot,
  timelineSvg,
  baseUrl,
  boolEnv,
  clientsEnv,
  durationEnv,
  expectedLimit,
  numberEnv,
  stringEnv,
  summaryPath,
  limitShortfalls,
  runPlanLines,
  shortfallLine,
  unreachableReason,
  refusal,
  setupStop,
  answersOf,
  createPacer,
  isWhole,
  segmentOf,
  metricValue,
  summaryOutputs,
  rateLimitThresholds,
  WARNING_ONLY,
  bucketSeconds,
  isTimelineMetric,
  timelinePoints,
  timelineSamples,
  createJudge,
  reportLines,
  zeroSamples,
  k6Override,
  rateLimitOverrideRefusal,
  runLength,
  MAX_CLIENTS,
  listPets,
  listPetsBatchRequest,
  noteRedirect,
  probe,
  metricRecorder,
  banProbePlan,
} from './lib/bundle.cjs';

const target = { baseUrl: baseUrl(__ENV), apiKey: stringEnv(__ENV, 'API_KEY', 'test-free-key'), http: http };
const expected = expectedLimit(__ENV);
const OVERDRIVE = numberEnv(__ENV, 'OVERDRIVE', 1.5, { min: 1.05, max: 100 });
// Requests per minute to offer when the limit is only learned at run time (no PLAN or LIMIT).
const RATE = numberEnv(__ENV, 'RATE', 1800, { integer: true, min: 1 });
// Requests sent at once (http.batch), as that many concurrent clients sharing the key would.
const CLIENTS = clientsEnv(__ENV);
const DURATION_S = durationEnv(__ENV, 'DURATION', '150s');
const CROSS_WINDOWS = boolEnv(__ENV, 'CROSS_WINDOWS', true);
const SKEW_S = numberEnv(__ENV, 'CLOCK_SKEW', DEFAULT_TOLERANCES.clockSkewSeconds, { min: 0, max: 60 });
// Should-level rules (Retry-After as integer seconds, Cache-Control: no-store on 429) fail the run too.
const STRICT = boolEnv(__ENV, 'STRICT', false);
const BAN = boolEnv(__ENV, 'BAN', false);
// Long enough to provoke the ban, outlast it and see it lift: the reference server bans for 600 s.
const BAN_DURATION_S = durationEnv(__ENV, 'BAN_DURATION', '12m');
const JSON_PATH = summaryPath(__ENV, 'rate-limit');

/** Why the script runs on one process only: its refusal of an execution segment. */
export const ONE_PROCESS =
  'rate-limit.js judges each window by counting every request of the key, so it runs on ONE k6 process; with an execution segment it would see only part of each window and could neither prove nor disprove the limit. Run it without --execution-segment (split capacity.js or smoke.js instead)';

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

/** The whole run, for the timeline's buckets: the main scenario, then the ban scenario if any. */
const TOTAL_S = DURATION_S + 10 + (BAN ? 15 + BAN_DURATION_S : 0);
const BUCKET_S = bucketSeconds(TOTAL_S);

const add = metricRecorder({ Counter: Counter, Trend: Trend });

// A refusal (429, or 403 from a server that bans with it) is an answer this script provokes on purpose, not a failed request.
http.setResponseCallback(http.expectedStatuses(200, ...REFUSAL_STATUSES));

/** @type {Record<string, any>} */
const scenarios = {
  limit: {
    executor: 'constant-arrival-rate',
    exec: 'limit',
    // At least once a second: a burst of CLIENTS leaves within a second of being due, and the first
    // request after a Retry-After within a second of it.
    rate: Math.max(Math.ceil(targetPerMinute / CLIENTS), 60),
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
    rate: Math.ceil(BAN_RATE / CLIENTS),
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
  thresholds: rateLimitThresholds({ strict: STRICT, totalS: TOTAL_S, crossWindows: CROSS_WINDOWS, ban: BAN }),
  batch: CLIENTS,
  batchPerHost: CLIENTS,
  setupTimeout: '30s',
  // count: the timeline tells an empty bucket from one whose lowest Remaining was 0.
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'],
  // The key goes only to BASE_URL's origin: a redirect is an unexpected status, never followed.
  maxRedirects: 0,
  // Only statuses and headers are judged: no body is kept.
  discardResponseBodies: true,
};

export function setup() {
  add(zeroSamples());
  if (!isWhole(segmentOf(exec.test.options))) return refusal(ONE_PROCESS);
  const override = k6Override(exec.test.options);
  const refused = override === null ? null : rateLimitOverrideRefusal(override, { ban: BAN, maxClients: MAX_CLIENTS });
  if (refused !== null) return refusal(refused);
  const sentAtMs = Date.now();
  let res;
  try {
    res = probe(target);
  } catch (e) {
    return refusal(e instanceof Error ? e.message : String(e));
  }
  const first = { status: res.status, headers: res.headers, receivedAtMs: Date.now(), sentAtMs: sentAtMs };
  const seen = readSnapshot(first);
  const learned = seen.limit;
  if (learned === null) return refusal('the target sent no integer X-RateLimit-Limit; nothing to verify');
  const perMinute = expected.limit === null ? Math.ceil(learned * OVERDRIVE) : targetPerMinute;
  // The pacer's rate, within what the scenario's wake-ups can carry.
  const offered = Math.min(perMinute, scenarios.limit.rate * CLIENTS);
  const length = runLength(override, { durationS: DURATION_S, clients: CLIENTS, offeredPerMinute: offered });
  const said = runPlanLines({
    baseUrl: target.baseUrl,
    limit: learned,
    expectedLimit: expected.limit,
    offeredPerMinute: offered,
    durationS: length.durationS,
    clients: CLIENTS,
    crossWindows: CROSS_WINDOWS,
    banS: BAN ? BAN_DURATION_S : null,
    strict: STRICT,
  });
  console.log(said.line);
  for (let i = 0; i < said.warnings.length; i++) console.warn(said.warnings[i]);
  const shortfalls = limitShortfalls({
    limit: learned,
    remaining: seen.remaining,
    expectedLimit: expected.limit,
    offeredPerMinute: offered,
    overdrive: OVERDRIVE,
    clients: CLIENTS,
    durationS: length.durationS,
    length: length.said,
    crossWindows: CROSS_WINDOWS,
    latencyMs: first.receivedAtMs - sentAtMs,
  });
  for (let i = 0; i < shortfalls.length; i++) console.warn(shortfallLine(shortfalls[i]));
  // A run that cannot reach the limit would FAIL (99) whatever the target does, after minutes of
  // requests: stopped now (ABORTED, 108), so that FAIL keeps meaning the target broke a rule.
  const unreachable = unreachableReason(shortfalls);
  if (unreachable !== null) return refusal(unreachable);
  return { first: first, perMinute: perMinute, startedMs: Date.now() };
}

/**
 * @typedef {import('../spec/rules/snapshot.js').RecordedResponse} RecordedResponse
 * @typedef {{ first: RecordedResponse, perMinute: number, startedMs: number, refused?: string }} SetupData
 * @typedef {{ judge: ReturnType<typeof createJudge>, pacer: ReturnType<typeof createPacer>, logged: Record<string, number>, windowEndMs: number | null, probes: number[] | null }} Run
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
    windowEndMs: null,
    probes: null,
  };
  if (mode === 'window') {
    const judged = run.judge.observe([data.first]);
    // The pacer starts from what setup's answer said remains: the first burst stays within it.
    run.pacer.after(answersOf(judged.snapshots, run.judge.tolerances), data.first.receivedAtMs);
    record(run, judged);
  }
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
 * @returns {number} the requests sent
 */
function drive(mode, data) {
  if (data.refused) exec.test.abort(data.refused);
  const name = exec.scenario.name;
  if (!runs[name]) runs[name] = begin(mode, data);
  const run = runs[name];
  let count;
  if (run.probes !== null) {
    // Probing a ban: one request at each planned time, nothing else.
    if (run.probes.length === 0 || Date.now() < run.probes[0]) return 0;
    run.probes.shift();
    count = 1;
  } else {
    count = run.pacer.allowance(Date.now(), CLIENTS);
    if (count === 0) return 0;
  }
  const sentAtMs = Date.now();
  /** @type {Array<{ status: number, headers: Record<string, string> }>} */
  let responses;
  if (count === 1) {
    responses = [listPets(target, { limit: 1 }, { tags: { phase: mode } })];
  } else {
    /** @type {import('k6/http').BatchRequest[]} */
    const requests = [];
    for (let i = 0; i < count; i++) requests.push(listPetsBatchRequest(target, { limit: 1 }, { tags: { phase: mode } }));
    responses = http.batch(requests);
    for (let i = 0; i < responses.length; i++) noteRedirect(target, responses[i]);
  }
  const now = Date.now();
  run.pacer.sent(count);
  const judged = run.judge.observe(
    responses.map(function (r) {
      return { status: r.status, headers: r.headers, receivedAtMs: now, sentAtMs: sentAtMs };
    })
  );
  const answered = answersOf(judged.snapshots, run.judge.tolerances);
  run.pacer.after(answered, now);
  record(run, judged);
  for (let i = 0; i < judged.snapshots.length; i++) {
    // A batch's broken rules and events are filed once, under its first response.
    const outcome = i === 0 ? judged.outcome : { violations: [], events: [] };
    add(timelineSamples(judged.snapshots[i], outcome, { startMs: data.startedMs, bucketS: BUCKET_S, waitMs: answered[i].waitMs }));
  }
  if (mode === 'ban' && run.probes === null) planBanProbes(run, answered, judged.outcome.events.indexOf('ban_detected') >= 0, now);
  return count;
}

/**
 * Follows the window the ban scenario is in and, once a ban is announced, plans its probes.
 * @param {Run} run
 * @param {import('./lib/pacing.js').Answer[]} answered a batch's answers, all received at `now`
 * @param {boolean} detected
 * @param {number} now
 */
function planBanProbes(run, answered, detected, now) {
  const scenarioEndMs = exec.scenario.startTime + BAN_DURATION_S * 1000;
  const plan = banProbePlan({
    answered,
    detected,
    nowMs: now,
    windowEndMs: run.windowEndMs,
    slackMs: (SKEW_S + 1) * 1000,
    scenarioEndMs,
    banDurationS: BAN_DURATION_S,
  });
  run.windowEndMs = plan.windowEndMs;
  run.probes = plan.probes;
  if (plan.said !== null) console.log(plan.said);
  if (plan.warning !== null) console.warn(plan.warning);
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
 * What k6 runs when its own --duration or --iterations replace the scenarios (setup refuses more
 * than one VU): the main scenario's client, waking as often as that scenario would until a request
 * or a burst is due, then sending it. One call, one send; a hold after a 429 is waited out inside it.
 * @param {SetupData} data
 */
export default function (data) {
  // Judged as the main scenario: the thresholds select its samples by the scenario tag.
  exec.vu.tags.scenario = 'limit';
  const wakeS = 60 / scenarios.limit.rate;
  while (drive('window', data) === 0) sleep(wakeS);
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
  const report = reportLines(count, { strict: STRICT, ban: BAN });
  const stop = setupStop(data);
  /** @type {Record<string, string>} */
  const files = {};
  if (stop === null && data.setup_data) {
    const points = timelinePoints((metric, stat) => metricValue(data, metric, stat), { startMs: data.setup_data.startedMs, totalS: TOTAL_S });
    const svgPath = JSON_PATH.replace(/\.json$/, '') + '.svg';
    files[svgPath] = timelineSvg(
      {
        key: keyLabel(target.apiKey),
        points: points,
        title: 'rate-limit.js against ' + target.baseUrl + ', key ' + keyLabel(target.apiKey) + ' (requests per ' + BUCKET_S + ' s bucket)',
      },
      { axis: 'time' }
    );
    report.push('timeline: ' + svgPath);
  }
  return summaryOutputs(data, {
    title: 'rate-limit.js against ' + target.baseUrl,
    script: 'rate-limit',
    jsonPath: JSON_PATH,
    stop: stop,
    files: files,
    report: stop === null ? report : [],
    extra: {
      baseUrl: target.baseUrl,
      expectedLimit: expected.limit,
      plan: expected.plan,
      overdrive: OVERDRIVE,
      clients: CLIENTS,
      durationS: DURATION_S,
      ban: BAN,
      strict: STRICT,
    },
    hide: function (metric, expression) {
      return expression === WARNING_ONLY || isTimelineMetric(metric);
    },
  });
}
