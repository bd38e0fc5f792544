/**
 * smoke.js: every check passes, no unexpected status, and the expected answers are fast enough.
 * @param {{ p95Ms: number }} limits
 * @returns {Thresholds}
 */
export function smokeThresholds(limits: {
    p95Ms: number;
}): Thresholds;
/**
 * rate-limit.js: a threshold per rule kind, the timeline's buckets, the evidence that the run saw
 * what it came for (load/README.md, What the thresholds mean), and no failed request.
 * @param {{ strict: boolean, totalS: number, crossWindows: boolean, ban: boolean }} options totalS: the whole run, for the buckets
 * @returns {Thresholds}
 */
export function rateLimitThresholds(options: {
    strict: boolean;
    totalS: number;
    crossWindows: boolean;
    ban: boolean;
}): Thresholds;
/**
 * capacity.js: every step's aggregates, and the objectives. Fixed rates ('rates') are a service
 * level, so every request must meet them; a search ('search', 'refine') runs past the knee on
 * purpose, so only a target that cannot carry the first step fails the run.
 * @param {StepPlan} plan
 * @param {{ mode: 'rates' | 'refine' | 'search', maxErrorRate: number, p95Ms: number, p99Ms: number }} limits
 * @returns {Thresholds}
 */
export function capacityThresholds(plan: StepPlan, limits: {
    mode: "rates" | "refine" | "search";
    maxErrorRate: number;
    p95Ms: number;
    p99Ms: number;
}): Thresholds;
/**
 * A threshold per rule kind: count==0 for those that fail the run (the must-level ones, and with
 * strict the should-level ones too), WARNING_ONLY for the rest.
 * @param {{ strict: boolean }} options
 * @returns {Thresholds}
 */
export function violationThresholds(options: {
    strict: boolean;
}): Thresholds;
/**
 * The always-true thresholds that make k6 keep every timeline bucket of a run of `totalS` seconds.
 * @param {number} totalS
 * @returns {Thresholds}
 */
export function timelineThresholds(totalS: number): Thresholds;
/**
 * The always-true thresholds that make k6 keep every step's aggregates (STEP_AGGREGATES, which
 * knee.js's stepStats reads back).
 * @param {StepPlan} plan
 * @returns {Thresholds}
 */
export function stepThresholds(plan: StepPlan): Thresholds;
/**
 * @typedef {Record<string, string[]>} Thresholds
 * @typedef {import('./phases.js').StepPlan} StepPlan
 */
/** The always-true threshold of a kind that only warns: it makes k6 keep the kind's count for the summary. */
export const WARNING_ONLY: "count>=0";
export type Thresholds = Record<string, string[]>;
export type StepPlan = import("./phases.js").StepPlan;
