// @ts-check
// rate-limit.js's timeline picture. handleSummary sees only aggregated metrics, so the VU files what
// each response showed under a time bucket (tag `tl`, kept by an always-true threshold) and
// handleSummary rebuilds the points from the buckets, at their resolution.
import { EVENTS } from '../../judge/rules/rules.js';
import { KINDS, VIOLATIONS_METRIC, eventMetric } from './verdict.js';

/** Buckets a run is cut into at most: a few hundred thresholds, a picture sharp enough for minute windows. */
export const MAX_BUCKETS = 60;

/** [metric, statistic handleSummary reads] of each bucket. */
export const TIMELINE_METRICS = {
  admitted: ['ratelimit_tl_admitted', 'count'],
  refused: ['ratelimit_tl_refused', 'count'],
  other: ['ratelimit_tl_other', 'count'],
  remaining: ['ratelimit_tl_remaining', 'min'],
  limit: ['ratelimit_tl_limit', 'max'],
  resetAt: ['ratelimit_tl_reset', 'max'],
  wait: ['ratelimit_tl_wait', 'max'],
  ban: ['ratelimit_tl_ban', 'max'],
  must: ['ratelimit_tl_must', 'count'],
  should: ['ratelimit_tl_should', 'count'],
  kind: ['ratelimit_tl_kind', 'max'],
};

/** @typedef {keyof typeof TIMELINE_METRICS} Field */

/**
 * @param {number} totalS
 */
export function bucketSeconds(totalS) {
  return Math.max(1, Math.ceil(totalS / MAX_BUCKETS));
}

/**
 * How many buckets a run of `totalS` seconds fills: one more than fit, for the requests still
 * answered in its gracefulStop.
 * @param {number} totalS
 */
export function bucketCount(totalS) {
  return Math.ceil(totalS / bucketSeconds(totalS)) + 1;
}

/**
 * A metric restricted to one bucket (`ratelimit_tl_admitted{tl:3}`): what thresholds.js keeps and
 * timelinePoints reads back.
 * @param {string} metric
 * @param {number} bucket
 */
export function bucketKey(metric, bucket) {
  return metric + '{tl:' + bucket + '}';
}

/** Whether a metric name is one of the buckets (hidden from the text summary). @param {string} name */
export function isTimelineMetric(name) {
  return name.indexOf('ratelimit_tl_') === 0;
}

/**
 * What one judged response adds: samples [metric, value, tags] for its bucket.
 * @param {import('../../spec/rules/snapshot.js').Snapshot} s
 * @param {{ violations: Array<{ kind: string, level: string }>, events: string[] }} outcome the window rules' outcome of its batch
 * @param {{ startMs: number, bucketS: number, waitMs: number | null }} at waitMs: what its Retry-After asks
 * @returns {Array<{ metric: string, value: number, tags: Record<string, string> }>}
 */
export function timelineSamples(s, outcome, at) {
  const bucket = Math.max(0, Math.floor((s.sentAtMs - at.startMs) / 1000 / at.bucketS));
  const tags = { tl: String(bucket) };
  /** @type {Array<{ metric: string, value: number, tags: Record<string, string> }>} */
  const out = [];
  /** @param {Field} field @param {number} value */
  const add = (field, value) => out.push({ metric: TIMELINE_METRICS[field][0], value: value, tags: tags });
  add(s.admitted ? 'admitted' : s.refused ? 'refused' : 'other', 1);
  if (s.remaining !== null) add('remaining', s.remaining);
  if (s.limit !== null) add('limit', s.limit);
  // Absolute and never negative: a trend's only always-true threshold is `max>=0`, and a Reset
  // before the run (a mock's example value) must not fail it.
  if (s.reset !== null) add('resetAt', Math.max(0, s.reset * 1000 + (s.receivedAtMs - s.serverNowMs)));
  if (s.refused && at.waitMs !== null) add(outcome.events.indexOf('ban_detected') >= 0 ? 'ban' : 'wait', at.waitMs);
  for (const v of outcome.violations) {
    add(v.level === 'must' ? 'must' : 'should', 1);
    const kind = KINDS.indexOf(/** @type {any} */ (v.kind));
    if (kind >= 0) add('kind', kind);
  }
  return out;
}

/**
 * The points of the picture, rebuilt from the buckets a summary kept.
 * @param {(metric: string, stat: string) => number | undefined} valueOf
 * @param {{ startMs: number, totalS: number }} run
 * @returns {import('../../spec/rules/timeline-svg.js').TimelinePoint[]}
 */
export function timelinePoints(valueOf, run) {
  const bucketS = bucketSeconds(run.totalS);
  const count = bucketCount(run.totalS);
  /** @type {import('../../spec/rules/timeline-svg.js').TimelinePoint[]} */
  const points = [];
  for (let b = 0; b < count; b++) {
    /** @param {Field} field */
    const get = (field) => {
      const [metric, stat] = TIMELINE_METRICS[field];
      // k6 reports a metric with a threshold even when it got no sample, with zeros: a trend counts.
      if (stat !== 'count' && !(/** @type {number} */ (valueOf(bucketKey(metric, b), 'count')) > 0)) return null;
      const v = valueOf(bucketKey(metric, b), stat);
      return v === undefined || v === null ? null : v;
    };
    const admitted = get('admitted') || 0;
    const refused = get('refused') || 0;
    const other = get('other') || 0;
    const n = admitted + refused + other;
    if (n === 0) continue;
    const from = run.startMs + b * bucketS * 1000;
    const resetAt = get('resetAt');
    const ban = get('ban');
    const must = get('must') || 0;
    const should = get('should') || 0;
    const kind = get('kind');
    for (let i = 0; i < n; i++) {
      const status = i < admitted ? 200 : i < admitted + refused ? 429 : 500;
      /** @type {import('../../spec/rules/timeline-svg.js').TimelinePoint} */
      const point = {
        atMs: from + ((i + 0.5) * bucketS * 1000) / n,
        status: status,
        limit: get('limit'),
        remaining: i === n - 1 ? get('remaining') : null,
        resetAtMs: resetAt,
      };
      if (status === 429 && i === admitted) {
        point.retryAfterMs = ban !== null ? ban : get('wait');
        if (ban !== null) point.ban = true;
      }
      if (i === 0 && must + should > 0) {
        const name = kind !== null && kind >= 0 && kind < KINDS.length ? KINDS[kind] : 'rule';
        point.violations = [
          { kind: name, level: must > 0 ? 'must' : 'should', detail: must + should + ' broken rule(s) in this ' + bucketS + ' s bucket, the last: ' + name },
        ];
      }
      points.push(point);
    }
  }
  return points;
}

/**
 * @typedef {{ add(value: number, tags?: Record<string, string>): void }} K6Metric
 * @typedef {new (name: string) => K6Metric} K6MetricType
 */

/**
 * Every metric rate-limit.js records (broken rules, events, the timeline's buckets), made with k6's
 * own types, which the script hands in (this module imports nothing of k6); returns what files a
 * sample under its metric.
 * @param {{ Counter: K6MetricType, Trend: K6MetricType }} k6Metrics
 * @returns {(samples: Array<{ metric: string, value: number, tags: Record<string, string> }>) => void}
 */
export function metricRecorder(k6Metrics) {
  /** @type {Record<string, K6Metric>} */
  const metrics = {};
  metrics[VIOLATIONS_METRIC] = new k6Metrics.Counter(VIOLATIONS_METRIC);
  for (let i = 0; i < EVENTS.length; i++) metrics[eventMetric(EVENTS[i])] = new k6Metrics.Counter(eventMetric(EVENTS[i]));
  for (const field of Object.keys(TIMELINE_METRICS)) {
    const spec = TIMELINE_METRICS[/** @type {Field} */ (field)];
    metrics[spec[0]] = spec[1] === 'count' ? new k6Metrics.Counter(spec[0]) : new k6Metrics.Trend(spec[0]);
  }
  return function (samples) {
    for (let i = 0; i < samples.length; i++) metrics[samples[i].metric].add(samples[i].value, samples[i].tags);
  };
}
