/** @typedef {keyof typeof TIMELINE_METRICS} Field */
/**
 * @param {number} totalS
 */
export function bucketSeconds(totalS: number): number;
/**
 * How many buckets a run of `totalS` seconds fills: one more than fit, for the requests still
 * answered in its gracefulStop.
 * @param {number} totalS
 */
export function bucketCount(totalS: number): number;
/**
 * A metric restricted to one bucket (`ratelimit_tl_admitted{tl:3}`): what thresholds.js keeps and
 * timelinePoints reads back.
 * @param {string} metric
 * @param {number} bucket
 */
export function bucketKey(metric: string, bucket: number): string;
/** Whether a metric name is one of the buckets (hidden from the text summary). @param {string} name */
export function isTimelineMetric(name: string): boolean;
/**
 * What one judged response adds: samples [metric, value, tags] for its bucket.
 * @param {import('../../spec/rules/snapshot.js').Snapshot} s
 * @param {{ violations: Array<{ kind: string, level: string }>, events: string[] }} outcome the window rules' outcome of its batch
 * @param {{ startMs: number, bucketS: number, waitMs: number | null }} at waitMs: what its Retry-After asks
 * @returns {Array<{ metric: string, value: number, tags: Record<string, string> }>}
 */
export function timelineSamples(s: import("../../spec/rules/snapshot.js").Snapshot, outcome: {
    violations: Array<{
        kind: string;
        level: string;
    }>;
    events: string[];
}, at: {
    startMs: number;
    bucketS: number;
    waitMs: number | null;
}): Array<{
    metric: string;
    value: number;
    tags: Record<string, string>;
}>;
/**
 * The points of the picture, rebuilt from the buckets a summary kept.
 * @param {(metric: string, stat: string) => number | undefined} valueOf
 * @param {{ startMs: number, totalS: number }} run
 * @returns {import('../../spec/rules/timeline-svg.js').TimelinePoint[]}
 */
export function timelinePoints(valueOf: (metric: string, stat: string) => number | undefined, run: {
    startMs: number;
    totalS: number;
}): import("../../spec/rules/timeline-svg.js").TimelinePoint[];
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
export function metricRecorder(k6Metrics: {
    Counter: K6MetricType;
    Trend: K6MetricType;
}): (samples: Array<{
    metric: string;
    value: number;
    tags: Record<string, string>;
}>) => void;
/** Buckets a run is cut into at most: a few hundred thresholds, a picture sharp enough for minute windows. */
export const MAX_BUCKETS: 60;
export namespace TIMELINE_METRICS {
    let admitted: string[];
    let refused: string[];
    let other: string[];
    let remaining: string[];
    let limit: string[];
    let resetAt: string[];
    let wait: string[];
    let ban: string[];
    let must: string[];
    let should: string[];
    let kind: string[];
}
export type Field = keyof typeof TIMELINE_METRICS;
export type K6Metric = {
    add(value: number, tags?: Record<string, string>): void;
};
export type K6MetricType = new (name: string) => K6Metric;
