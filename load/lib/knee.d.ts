/**
 * @typedef {import('./phases.js').StepPlan} StepPlan
 * @typedef {import('./step-types.js').StepStats} StepStats
 * @typedef {import('./step-types.js').Criteria} Criteria
 * @typedef {import('../../spec/rules/capacity-svg.js').Bound} Bound what stopped a step: the server's knee, the key's limit, or the generator's ceiling
 * @typedef {import('./step-types.js').Cause} Cause
 * @typedef {{ name: string, rate: number, offered: number, achieved: number, errorRate: number, p95: number, p99: number, requestMs: number | null, slowdown: number | null, dropped: number, ok: boolean, why: string, afterKnee: boolean, skipped: boolean, bound: Bound | null, cause: Cause | null, k6: string }} StepVerdict
 *   rate: the step's whole rate; offered: this run's share of it; requestMs: the mean request time;
 *   slowdown: requestMs over the fastest lower step's (null on the first step, or without times)
 * @typedef {{ rows: StepVerdict[], held: StepVerdict | null, broke: StepVerdict | null, bound: Bound | null }} Knee
 * @typedef {{ kind: 'found' | 'refine' | 'raise-max' | 'lower-start' | 'key' | 'generator', between?: number[], cause?: Cause | null }} NextPass
 *   cause: what the generator ran out of, when it bound the search
 */
/**
 * The most VUs busy in a step. k6 counts the active VUs of the whole run, and a step's last
 * iterations run on into the next one (gracefulStop): a count above the step's own maximum says so
 * rather than claim more VUs than a step may have.
 * @param {number} busy
 * @param {number | undefined} maxVUs
 */
export function vusText(busy: number, maxVUs: number | undefined): string;
/**
 * Whether a step's (or several steps' summed) statistics meet the error and latency objectives:
 * what capacity.js's thresholds ask of the first step of a search, or of every request at fixed rates.
 * @param {StepStats} s
 * @param {Criteria} criteria
 */
export function meetsObjectives(s: StepStats, criteria: Criteria): boolean;
/**
 * Judges every step and finds the knee. A step that holds after the first break is reported but
 * does not count: a recovery after a collapse is not capacity.
 * @param {StepPlan} plan
 * @param {(name: string) => StepStats | null} statsOf
 * @param {Criteria} criteria
 * @returns {Knee}
 */
export function judgeSteps(plan: StepPlan, statsOf: (name: string) => StepStats | null, criteria: Criteria): Knee;
/**
 * What the next run should do: nothing more when the key or the generator bound the search (a
 * narrower search would measure them again); else narrow the knee while the gap between the rate
 * that held and the one that broke is wider than `resolution` (a share of the rate that held).
 * @param {Knee} knee
 * @param {number} resolution
 * @returns {NextPass}
 */
export function nextPass(knee: Knee, resolution: number): NextPass;
/**
 * The report's line on what the search found, in the words of the picture's heading.
 * @param {Knee} knee
 * @param {number} maxRate the highest rate of the run
 */
export function boundLine(knee: Knee, maxRate: number): string;
/**
 * One step's statistics, read from the summary; null when k6 recorded no request in it.
 * @param {(metric: string, stat: string) => number | undefined} valueOf
 * @param {string} name the step's name
 * @returns {StepStats | null}
 */
export function stepStats(valueOf: (metric: string, stat: string) => number | undefined, name: string): StepStats | null;
/**
 * @param {StepVerdict} r
 */
export function stepLine(r: StepVerdict): string;
/**
 * Whether what one VU saw of a step shows the target overwhelmed (OVERWHELMED): capacity.js then
 * sends nothing more, and the steps after it are reported as not run. k6 v0.47 ends a run early only
 * by aborting it (exit 108) or on a failed threshold (99), and a search that found its knee is neither;
 * VUs share nothing, so each stops on what it saw.
 * @param {{ requests: number, slow: number, failed: number }} seen
 * @returns {boolean}
 */
export function overwhelmed(seen: {
    requests: number;
    slow: number;
    failed: number;
}): boolean;
/**
 * Whether the whole k6 process plainly missed a step's rate, from exec.instance's counters, the same
 * for every VU: watched over half the step at least (2 s at least), it completed under 90 % of the
 * iterations the rate asks (a step breaks under 95 %). The generator had no VU free (every one
 * waiting on a slow target, or MAX_VUS too low) or no CPU; a higher step can only miss more, so the
 * search sends nothing after it.
 * @param {{ perSecond: number, completed: number, spanS: number, holdS: number }} w the step's rate
 *   (this generator's share), iterations completed while watched, for how long, the step's length
 * @returns {boolean}
 */
export function missedRate(w: {
    perSecond: number;
    completed: number;
    spanS: number;
    holdS: number;
}): boolean;
/**
 * What the plan asked of this generator before `step` began: the iterations of the steps before it,
 * the last of them (its iterations and rate a second) and its name; null when `step` is the first.
 * @param {import('./phases.js').Step[]} steps
 * @param {string} step
 * @param {number} share this generator's share of each rate
 * @returns {{ expected: number, lastStep: number, lastRate: number, previous: string } | null}
 */
export function plannedBefore(steps: import("./phases.js").Step[], step: string, share: number): {
    expected: number;
    lastStep: number;
    lastRate: number;
    previous: string;
} | null;
/**
 * Whether the steps before this one, together, plainly missed their rates: a VU at its first
 * iteration of a step reads it from exec.instance's completed iterations against the plan (k6 gives
 * overlapping steps VUs of their own, which saw nothing of the step before). Each step that held lost
 * 5 % at most, `inFlight` iterations may still be running, and a busy generator may start its
 * iterations up to a second late; beyond that, 5 % more of the last step's iterations missing means
 * it completed under 90 %.
 * @param {{ expected: number, completed: number, lastStep: number, lastRate: number, inFlight: number }} w
 *   iterations the plan asked of this generator by now, those it completed, the last step's, its rate
 *   a second, the most in flight
 * @returns {boolean}
 */
export function behindPlan(w: {
    expected: number;
    completed: number;
    lastStep: number;
    lastRate: number;
    inFlight: number;
}): boolean;
/**
 * The aggregates capacity.js keeps for every step, [metric, statistic]: k6 aggregates a metric per
 * step only when a threshold names the step's sub-metric, so each gets an always-true threshold
 * (thresholds.js's stepThresholds) and handleSummary reads them back (stepStats). One list for both.
 */
export const STEP_AGGREGATES: string[][];
export namespace OVERWHELMED {
    let minRequests: number;
    let share: number;
}
export type StepPlan = import("./phases.js").StepPlan;
export type StepStats = import("./step-types.js").StepStats;
export type Criteria = import("./step-types.js").Criteria;
/**
 * what stopped a step: the server's knee, the key's limit, or the generator's ceiling
 */
export type Bound = import("../../spec/rules/capacity-svg.js").Bound;
export type Cause = import("./step-types.js").Cause;
/**
 * rate: the step's whole rate; offered: this run's share of it; requestMs: the mean request time;
 * slowdown: requestMs over the fastest lower step's (null on the first step, or without times)
 */
export type StepVerdict = {
    name: string;
    rate: number;
    offered: number;
    achieved: number;
    errorRate: number;
    p95: number;
    p99: number;
    requestMs: number | null;
    slowdown: number | null;
    dropped: number;
    ok: boolean;
    why: string;
    afterKnee: boolean;
    skipped: boolean;
    bound: Bound | null;
    cause: Cause | null;
    k6: string;
};
export type Knee = {
    rows: StepVerdict[];
    held: StepVerdict | null;
    broke: StepVerdict | null;
    bound: Bound | null;
};
/**
 * cause: what the generator ran out of, when it bound the search
 */
export type NextPass = {
    kind: "found" | "refine" | "raise-max" | "lower-start" | "key" | "generator";
    between?: number[];
    cause?: Cause | null;
};
