/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 * @typedef {import('./window-rules.js').Outcome} Outcome
 * @typedef {{ kind: string, level: 'must' | 'should', detail: string }} TimelineViolation
 * @typedef {object} TimelinePoint one request
 * @property {number} atMs when it was sent
 * @property {number} status 0 when no response came
 * @property {number | null} [limit] X-RateLimit-Limit
 * @property {number | null} [remaining] X-RateLimit-Remaining
 * @property {number | null} [resetAtMs] the moment X-RateLimit-Reset names, on the same clock as atMs
 * @property {number | null} [retryAfterMs] the wait a refusal's Retry-After names
 * @property {boolean} [ban] this refusal announced a ban lasting retryAfterMs
 * @property {boolean} [injected] a fault injected in the server's place (--faults), not the limiter's answer
 * @property {TimelineViolation[]} [violations] the rules broken by this response
 * @typedef {{ key: string, points: TimelinePoint[], title?: string }} Timeline
 * @typedef {{ width?: number, height?: number }} SvgOptions
 * @typedef {SvgOptions & { axis?: 'auto' | 'time' | 'sequence' }} TimelineOptions
 */
/**
 * One request of a key as the timeline draws it.
 * @param {Snapshot} s
 * @param {Outcome} [outcome]
 * @param {Tolerances} [tolerances]
 * @returns {TimelinePoint}
 */
export function timelinePoint(s: Snapshot, outcome?: Outcome, tolerances?: Tolerances): TimelinePoint;
/**
 * One key's rate-limit timeline as a self-contained SVG document fragment.
 * @param {Timeline} timeline
 * @param {TimelineOptions} [options]
 * @returns {string}
 */
export function timelineSvg(timeline: Timeline, options?: TimelineOptions): string;
export type Snapshot = import("./snapshot.js").Snapshot;
export type Tolerances = import("./snapshot.js").Tolerances;
export type Outcome = import("./window-rules.js").Outcome;
export type TimelineViolation = {
    kind: string;
    level: "must" | "should";
    detail: string;
};
/**
 * one request
 */
export type TimelinePoint = {
    /**
     * when it was sent
     */
    atMs: number;
    /**
     * 0 when no response came
     */
    status: number;
    /**
     * X-RateLimit-Limit
     */
    limit?: number | null | undefined;
    /**
     * X-RateLimit-Remaining
     */
    remaining?: number | null | undefined;
    /**
     * the moment X-RateLimit-Reset names, on the same clock as atMs
     */
    resetAtMs?: number | null | undefined;
    /**
     * the wait a refusal's Retry-After names
     */
    retryAfterMs?: number | null | undefined;
    /**
     * this refusal announced a ban lasting retryAfterMs
     */
    ban?: boolean | undefined;
    /**
     * a fault injected in the server's place (--faults), not the limiter's answer
     */
    injected?: boolean | undefined;
    /**
     * the rules broken by this response
     */
    violations?: TimelineViolation[] | undefined;
};
export type Timeline = {
    key: string;
    points: TimelinePoint[];
    title?: string;
};
export type SvgOptions = {
    width?: number;
    height?: number;
};
export type TimelineOptions = SvgOptions & {
    axis?: "auto" | "time" | "sequence";
};
