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
 * @param {SummaryData} data
 * @param {{ title: string, report?: string[], jsonPath?: string, hide?: (metric: string, expression: string) => boolean }} options
 * @returns {string}
 */
export function textSummary(data: SummaryData, options: {
    title: string;
    report?: string[];
    jsonPath?: string;
    hide?: (metric: string, expression: string) => boolean;
}): string;
/**
 * What handleSummary returns: the text on stdout and the JSON, with the script's own report, at
 * jsonPath.
 * @param {SummaryData} data
 * @param {{ title: string, script: string, jsonPath: string, report?: string[], extra?: Record<string, unknown>, hide?: (metric: string, expression: string) => boolean }} options
 * @returns {Record<string, string>}
 */
export function summaryOutputs(data: SummaryData, options: {
    title: string;
    script: string;
    jsonPath: string;
    report?: string[];
    extra?: Record<string, unknown>;
    hide?: (metric: string, expression: string) => boolean;
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
