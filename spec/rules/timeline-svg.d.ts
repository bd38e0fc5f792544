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
 * @property {TimelineViolation[]} [violations] the rules broken by this response
 * @typedef {{ key: string, points: TimelinePoint[], title?: string }} Timeline
 * @typedef {{ rate: number, achieved: number, p95: number, p99: number, ok: boolean, name?: string, why?: string }} CapacityRow
 * @typedef {{ rows: CapacityRow[], held?: { rate: number } | number | null, broke?: { rate: number } | number | null, title?: string }} Capacity
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
/**
 * A capacity search as a self-contained SVG: achieved rate and p95/p99 per offered rate, the knee marked.
 * @param {Capacity} capacity
 * @param {SvgOptions} [options]
 * @returns {string}
 */
export function capacitySvg(capacity: Capacity, options?: SvgOptions): string;
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
     * the rules broken by this response
     */
    violations?: TimelineViolation[] | undefined;
};
export type Timeline = {
    key: string;
    points: TimelinePoint[];
    title?: string;
};
export type CapacityRow = {
    rate: number;
    achieved: number;
    p95: number;
    p99: number;
    ok: boolean;
    name?: string;
    why?: string;
};
export type Capacity = {
    rows: CapacityRow[];
    held?: {
        rate: number;
    } | number | null;
    broke?: {
        rate: number;
    } | number | null;
    title?: string;
};
export type SvgOptions = {
    width?: number;
    height?: number;
};
export type TimelineOptions = SvgOptions & {
    axis?: "auto" | "time" | "sequence";
};
