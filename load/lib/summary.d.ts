/**
 * @typedef {import('./metrics-table.js').TableMetric} SummaryMetric
 * @typedef {import('./metrics-table.js').TableCheck} SummaryCheck
 * @typedef {import('./metrics-table.js').TableGroup} SummaryGroup
 * @typedef {{ metrics: Record<string, SummaryMetric>, root_group?: SummaryGroup, state?: { testRunDurationMs?: number }, options?: import('./metrics-table.js').TableOptions }} SummaryData
 */
/**
 * The statistic a threshold expression reads, e.g. "p(95)" in "p(95)<500".
 * @param {string} expression
 */
export function thresholdStat(expression: string): string | null;
/**
 * A threshold that cannot fail (`count>=0`, `p(95)>=0`): it only makes k6 keep a sub-metric's
 * figures for handleSummary, so the text neither counts nor lists it.
 * @param {string} expression
 */
export function isBookkeeping(expression: string): boolean;
/**
 * @typedef {{ metric: string, expression: string, ok: boolean, observed: string, bookkeeping: boolean }} ThresholdRow
 */
/**
 * Every threshold of the run with its verdict, worst first.
 * @param {SummaryData} data
 * @returns {ThresholdRow[]}
 */
export function thresholdResults(data: SummaryData): ThresholdRow[];
/**
 * @param {SummaryData} data
 * @param {string} name
 * @param {string} stat
 */
export function metricValue(data: SummaryData, name: string, stat: string): number | undefined;
/**
 * @typedef {{ reason: string, exitCode: number }} Stop why the run was stopped, and the exit code k6 gives it
 * @typedef {object} TextOptions
 * @property {string} title
 * @property {string[]} [report] the script's own findings
 * @property {string} [jsonPath]
 * @property {Stop | null} [stop]
 * @property {(metric: string, expression: string) => boolean} [hide] what the text leaves out while it
 *   holds: a threshold, or (expression '') a metric's row of k6's table
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
 * The rows of k6's table: every metric, and the sub-metrics that a threshold judging the run names
 * (k6 would list the bookkeeping ones too: hundreds of rows on a long rate-limit.js run).
 * @param {SummaryData} data
 * @param {TextOptions['hide']} hide
 * @returns {string[]}
 */
export function tableMetrics(data: SummaryData, hide: TextOptions["hide"]): string[];
/**
 * The end-of-test text: k6's own table, then the verdict.
 * @param {SummaryData} data
 * @param {TextOptions} options
 * @returns {string}
 */
export function textSummary(data: SummaryData, options: TextOptions): string;
/**
 * What handleSummary returns: the text on stdout and the JSON at jsonPath.
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
export type SummaryMetric = import("./metrics-table.js").TableMetric;
export type SummaryCheck = import("./metrics-table.js").TableCheck;
export type SummaryGroup = import("./metrics-table.js").TableGroup;
export type SummaryData = {
    metrics: Record<string, SummaryMetric>;
    root_group?: SummaryGroup;
    state?: {
        testRunDurationMs?: number;
    };
    options?: import("./metrics-table.js").TableOptions;
};
export type ThresholdRow = {
    metric: string;
    expression: string;
    ok: boolean;
    observed: string;
    bookkeeping: boolean;
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
    /**
     * the script's own findings
     */
    report?: string[] | undefined;
    jsonPath?: string | undefined;
    stop?: Stop | null | undefined;
    /**
     * what the text leaves out while it
     * holds: a threshold, or (expression '') a metric's row of k6's table
     */
    hide?: ((metric: string, expression: string) => boolean) | undefined;
};
