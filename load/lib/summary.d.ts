/**
 * @typedef {{ type?: string, contains?: string, values: Record<string, number>, thresholds?: Record<string, { ok: boolean }> }} SummaryMetric
 * @typedef {{ name: string, passes: number, fails: number }} SummaryCheck
 * @typedef {{ name?: string, checks?: SummaryCheck[], groups?: SummaryGroup[] }} SummaryGroup
 * @typedef {{ metrics: Record<string, SummaryMetric>, root_group?: SummaryGroup, state?: { testRunDurationMs?: number } }} SummaryData
 */
/**
 * The statistic a threshold expression reads, e.g. "p(95)" in "p(95)<500".
 * @param {string} expression
 */
export function thresholdStat(expression: string): string | null;
/**
 * Every threshold of the run with its verdict, worst first.
 * @param {SummaryData} data
 * @returns {Array<{ metric: string, expression: string, ok: boolean, observed: string }>}
 */
export function thresholdResults(data: SummaryData): Array<{
    metric: string;
    expression: string;
    ok: boolean;
    observed: string;
}>;
/**
 * @param {SummaryData} data
 * @param {string} name
 * @param {string} stat
 */
export function metricValue(data: SummaryData, name: string, stat: string): number | undefined;
/**
 * @typedef {{ reason: string, exitCode: number }} Stop why the run was stopped, and the exit code k6 gives it
 * @typedef {{ title: string, report?: string[], jsonPath?: string, stop?: Stop | null, hide?: (metric: string, expression: string) => boolean }} TextOptions
 */
/**
 * The outcome of a run: ABORTED when it was stopped, else FAIL when a threshold failed, else PASS.
 * @param {SummaryData} data
 * @param {{ stop?: Stop | null }} options
 */
export function outcomeOf(data: SummaryData, options: {
    stop?: Stop | null;
}): import("./outcome.js").RunOutcome;
/**
 * @param {SummaryData} data
 * @param {TextOptions} options
 * @returns {string}
 */
export function textSummary(data: SummaryData, options: TextOptions): string;
/**
 * What handleSummary returns: the text on stdout and the JSON, with the script's own report, at
 * jsonPath.
 * @param {SummaryData} data
 * @param {TextOptions & { script: string, jsonPath: string, extra?: Record<string, unknown>, files?: Record<string, string> }} options
 * @returns {Record<string, string>}
 */
export function summaryOutputs(data: SummaryData, options: TextOptions & {
    script: string;
    jsonPath: string;
    extra?: Record<string, unknown>;
    files?: Record<string, string>;
}): Record<string, string>;
export type SummaryMetric = {
    type?: string;
    contains?: string;
    values: Record<string, number>;
    thresholds?: Record<string, {
        ok: boolean;
    }>;
};
export type SummaryCheck = {
    name: string;
    passes: number;
    fails: number;
};
export type SummaryGroup = {
    name?: string;
    checks?: SummaryCheck[];
    groups?: SummaryGroup[];
};
export type SummaryData = {
    metrics: Record<string, SummaryMetric>;
    root_group?: SummaryGroup;
    state?: {
        testRunDurationMs?: number;
    };
};
/**
 * why the run was stopped, and the exit code k6 gives it
 */
export type Stop = {
    reason: string;
    exitCode: number;
};
export type TextOptions = {
    title: string;
    report?: string[];
    jsonPath?: string;
    stop?: Stop | null;
    hide?: (metric: string, expression: string) => boolean;
};
