/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 * @typedef {{ events: string[], violations: Array<{ kind: string, level: 'must' | 'should', detail: string }> }} Outcome what the picture reads of the judge's outcome for one answer (judge/rules/window-rules.js)
 * @typedef {import('./timeline-types.js').TimelineViolation} TimelineViolation
 * @typedef {import('./timeline-types.js').TimelinePoint} TimelinePoint
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
/**
 * what the picture reads of the judge's outcome for one answer (judge/rules/window-rules.js)
 */
export type Outcome = {
    events: string[];
    violations: Array<{
        kind: string;
        level: "must" | "should";
        detail: string;
    }>;
};
export type TimelineViolation = import("./timeline-types.js").TimelineViolation;
export type TimelinePoint = import("./timeline-types.js").TimelinePoint;
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
