// @ts-check
// Every k6 threshold the scripts set, one builder a script: what fails a run is decided here and
// nowhere else. Always-true ones (`count>=0`) are bookkeeping: k6 keeps a sub-metric's figures for
// handleSummary only when a threshold names it.
import { RULES } from '../../judge/rules/rules.js';
import { STEP_AGGREGATES } from './knee.js';
import { stepMetric } from './phases.js';
import { bucketCount, bucketKey, TIMELINE_METRICS } from './timeline.js';
import { KINDS, violationKey } from './verdict.js';

/**
 * @typedef {Record<string, string[]>} Thresholds
 * @typedef {import('./phases.js').StepPlan} StepPlan
 */

/** The always-true threshold of a kind that only warns: it makes k6 keep the kind's count for the summary. */
export const WARNING_ONLY = 'count>=0';

/**
 * smoke.js: every check passes, no unexpected status, and the expected answers are fast enough.
 * @param {{ p95Ms: number }} limits
 * @returns {Thresholds}
 */
export function smokeThresholds(limits) {
  return {
    checks: ['rate==1'],
    http_req_failed: ['rate<0.01'],
    'http_req_duration{expected_response:true}': ['p(95)<' + limits.p95Ms],
  };
}

/**
 * rate-limit.js: a threshold per rule kind, the timeline's buckets, the evidence that the run saw
 * what it came for (load/README.md, What the thresholds mean), and no failed request.
 * @param {{ strict: boolean, totalS: number, crossWindows: boolean, ban: boolean }} options totalS: the whole run, for the buckets
 * @returns {Thresholds}
 */
export function rateLimitThresholds(options) {
  /** @type {Thresholds} */
  const thresholds = Object.assign(violationThresholds({ strict: options.strict }), timelineThresholds(options.totalS));
  thresholds['ratelimit_window_saturated{scenario:limit}'] = ['count>=1'];
  if (options.crossWindows) {
    thresholds['ratelimit_window_crossed{scenario:limit}'] = ['count>=1'];
    thresholds['ratelimit_readmitted{scenario:limit}'] = ['count>=1'];
    thresholds['ratelimit_window_verified{scenario:limit}'] = ['count>=1'];
  }
  thresholds['http_req_failed'] = ['rate<0.01'];
  if (options.ban) {
    thresholds['ratelimit_ban_detected{scenario:ban}'] = ['count>=1'];
    thresholds['ratelimit_ban_confirmed{scenario:ban}'] = ['count>=1'];
    thresholds['ratelimit_ban_held_past_reset{scenario:ban}'] = ['count>=1'];
    thresholds['ratelimit_ban_lifted{scenario:ban}'] = ['count>=1'];
  }
  return thresholds;
}

/**
 * capacity.js: every step's aggregates, and the objectives. Fixed rates ('rates') are a service
 * level, so every request must meet them; a search ('search', 'refine') runs past the knee on
 * purpose, so only a target that cannot carry the first step fails the run.
 * @param {StepPlan} plan
 * @param {{ mode: 'rates' | 'refine' | 'search', maxErrorRate: number, p95Ms: number, p99Ms: number }} limits
 * @returns {Thresholds}
 */
export function capacityThresholds(plan, limits) {
  const thresholds = stepThresholds(plan);
  if (limits.mode === 'rates') {
    thresholds.http_req_failed = ['rate<' + limits.maxErrorRate];
    thresholds.http_req_duration = ['p(95)<' + limits.p95Ms, 'p(99)<' + limits.p99Ms];
  } else {
    const first = plan.steps[0].name;
    thresholds[stepMetric('http_req_failed', first)].push('rate<' + limits.maxErrorRate);
    thresholds[stepMetric('http_req_duration', first)].push('p(95)<' + limits.p95Ms, 'p(99)<' + limits.p99Ms);
  }
  return thresholds;
}

/**
 * A threshold per rule kind: count==0 for those that fail the run (the must-level ones, and with
 * strict the should-level ones too), WARNING_ONLY for the rest.
 * @param {{ strict: boolean }} options
 * @returns {Thresholds}
 */
export function violationThresholds(options) {
  /** @type {Thresholds} */
  const thresholds = {};
  for (const kind of KINDS) thresholds[violationKey(kind)] = [RULES[kind].level === 'must' || options.strict ? 'count==0' : WARNING_ONLY];
  return thresholds;
}

/**
 * The always-true thresholds that make k6 keep every timeline bucket of a run of `totalS` seconds.
 * @param {number} totalS
 * @returns {Thresholds}
 */
export function timelineThresholds(totalS) {
  const count = bucketCount(totalS);
  /** @type {Thresholds} */
  const thresholds = {};
  for (let b = 0; b < count; b++) {
    for (const field of /** @type {Array<keyof typeof TIMELINE_METRICS>} */ (Object.keys(TIMELINE_METRICS))) {
      const [metric, stat] = TIMELINE_METRICS[field];
      thresholds[bucketKey(metric, b)] = [stat + '>=0'];
    }
  }
  return thresholds;
}

/**
 * The always-true thresholds that make k6 keep every step's aggregates (STEP_AGGREGATES, which
 * knee.js's stepStats reads back).
 * @param {StepPlan} plan
 * @returns {Thresholds}
 */
export function stepThresholds(plan) {
  /** @type {Thresholds} */
  const thresholds = {};
  for (let i = 0; i < plan.steps.length; i++) {
    for (let j = 0; j < STEP_AGGREGATES.length; j++) {
      const key = stepMetric(STEP_AGGREGATES[j][0], plan.steps[i].name);
      if (!thresholds[key]) thresholds[key] = [];
      const always = STEP_AGGREGATES[j][1] + '>=0';
      if (thresholds[key].indexOf(always) < 0) thresholds[key].push(always);
    }
  }
  return thresholds;
}
