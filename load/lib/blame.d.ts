/**
 * The fastest request time among the steps run so far: the server's time before the rate loaded it.
 * @param {Baseline | null} base
 * @param {number} rate
 * @param {StepStats | null} s
 * @returns {Baseline | null}
 */
export function fasterBase(base: Baseline | null, rate: number, s: StepStats | null): Baseline | null;
/**
 * How many times the fastest lower step's request time a step's took; null when either is unknown.
 * @param {StepStats} s
 * @param {Baseline | null} base
 */
export function slowdownOf(s: StepStats, base: Baseline | null): number | null;
/**
 * Who kept a step from its rate when the target answered within the objectives. The server's growth
 * is weighed first: its slower answers keep VUs busy, so busy VUs alone do not blame the generator.
 * @param {StepStats} s
 * @param {Criteria} criteria
 * @param {Baseline | null} base
 * @returns {{ bound: Bound, cause: Cause, why: string }}
 */
export function shortfallOf(s: StepStats, criteria: Criteria, base: Baseline | null): {
    bound: Bound;
    cause: Cause;
    why: string;
};
/**
 * @typedef {import('./step-types.js').StepStats} StepStats
 * @typedef {import('./step-types.js').Criteria} Criteria
 * @typedef {import('../../spec/rules/capacity-svg.js').Bound} Bound
 * @typedef {import('./step-types.js').Cause} Cause
 * @typedef {{ rate: number, ms: number }} Baseline the fastest mean request time of the steps run so far, and the step's rate
 */
/**
 * A step's request time at least this many times the fastest lower step's: the server slowed down
 * with the rate (why 3: load/README.md, Decisions).
 */
export const SLOWDOWN: 3;
export type StepStats = import("./step-types.js").StepStats;
export type Criteria = import("./step-types.js").Criteria;
export type Bound = import("../../spec/rules/capacity-svg.js").Bound;
export type Cause = import("./step-types.js").Cause;
/**
 * the fastest mean request time of the steps run so far, and the step's rate
 */
export type Baseline = {
    rate: number;
    ms: number;
};
