/**
 * One end of a segment: "1/3", "0.5", "50%" or "1".
 * @param {string} text
 * @returns {number}
 */
export function parseSegmentPoint(text: string): number;
/**
 * A segment as k6 prints it ("0:1/2", "1/2:1"); empty or missing means the whole run.
 * @param {string | null | undefined} segment
 * @param {string | null | undefined} [sequence]
 * @returns {Segment}
 */
export function parseSegment(segment: string | null | undefined, sequence?: string | null | undefined): Segment;
/**
 * The segment a running k6 process was given, from `exec.test.options` (readable in setup, not in
 * the init context).
 * @param {{ executionSegment?: unknown, executionSegmentSequence?: unknown } | null | undefined} options
 * @returns {Segment}
 */
export function segmentOf(options: {
    executionSegment?: unknown;
    executionSegmentSequence?: unknown;
} | null | undefined): Segment;
/**
 * @param {Segment} s
 */
export function isWhole(s: Segment): boolean;
/**
 * @typedef {{ segment: string, from: number, to: number, share: number, sequence: string | null }} Segment
 */
/** The whole run: what a single k6 process without `--execution-segment` runs. */
export const WHOLE: "0:1";
export type Segment = {
    segment: string;
    from: number;
    to: number;
    share: number;
    sequence: string | null;
};
