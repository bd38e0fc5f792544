/**
 * The sum of one step over every generator; null when none recorded it.
 * @param {Array<StepStats | null>} parts
 * @returns {StepStats | null}
 */
export function sumStepStats(parts: Array<StepStats | null>): StepStats | null;
/**
 * @param {Part[]} parts
 * @returns {Merged}
 */
export function mergeSummaries(parts: Part[]): Merged;
export type StepStats = import("./knee.js").StepStats;
export type Segment = import("./segments.js").Segment;
export type ScriptSummary = {
    script: string;
    result?: "PASS" | "FAIL" | "ABORTED";
    passed: boolean;
    reason?: string | null;
    failedThresholds: Array<{
        metric: string;
        expression: string;
        observed: string;
    }>;
    extra: Record<string, any>;
    k6: any;
};
export type Part = {
    name: string;
    summary: ScriptSummary;
};
/**
 * svg: a capacity run's picture of the summed steps (null for other scripts, or summaries that are not one run)
 */
export type Merged = {
    script: string;
    result: "PASS" | "FAIL" | "ABORTED";
    exitCode: number;
    lines: string[];
    merged: Record<string, unknown>;
    svg: string | null;
};
