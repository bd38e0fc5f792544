/**
 * Columns a string takes on a terminal: code points once composed, as k6 counts them.
 * @param {string} text
 */
export function width(text: string): number;
/**
 * Bytes as k6 shows them: decimal units, one decimal below 10.
 * @param {number} bytes
 */
export function bytesText(bytes: number): string;
/**
 * A duration in milliseconds as k6 shows it: in the unit it reads best in (ns, µs, ms, s, m, h), or in
 * the script's summaryTimeUnit.
 * @param {number} ms
 * @param {string | null | undefined} unit
 */
export function durationText(ms: number, unit: string | null | undefined): string;
/**
 * One figure of a metric, in the metric's own terms.
 * @param {number | undefined} value
 * @param {TableMetric} metric
 * @param {string | null | undefined} unit the summaryTimeUnit
 */
export function figure(value: number | undefined, metric: TableMetric, unit: string | null | undefined): string;
/**
 * The metric rows of k6's table, for the metrics `names` (every metric of the data when omitted).
 * Columns are as wide as the widest of the rows shown.
 * @param {TableData} data
 * @param {string[]} [names]
 * @returns {string[]}
 */
export function metricRows(data: TableData, names?: string[]): string[];
/**
 * The checks of a group and of the groups in it: a ✓ per check that always held, a ✗ with its share
 * of passes for one that did not.
 * @param {TableGroup | undefined} group
 * @param {string} [indent]
 * @returns {string[]}
 */
export function checkRows(group: TableGroup | undefined, indent?: string): string[];
/**
 * k6's table: the checks, then the metric rows (of `names` only, when given), as one text.
 * @param {TableData} data
 * @param {string[]} [names]
 */
export function metricsTable(data: TableData, names?: string[]): string;
/**
 * @typedef {{ type?: string, contains?: string, values: Record<string, number>, thresholds?: Record<string, { ok: boolean }> }} TableMetric
 * @typedef {{ name: string, passes: number, fails: number }} TableCheck
 * @typedef {{ name?: string, checks?: TableCheck[], groups?: TableGroup[] }} TableGroup
 * @typedef {{ summaryTrendStats?: string[] | null, summaryTimeUnit?: string | null }} TableOptions
 * @typedef {{ metrics: Record<string, TableMetric>, root_group?: TableGroup, options?: TableOptions }} TableData
 */
/** What k6 shows of a trend when the script names no summaryTrendStats. */
export const DEFAULT_TREND_STATS: string[];
export type TableMetric = {
    type?: string;
    contains?: string;
    values: Record<string, number>;
    thresholds?: Record<string, {
        ok: boolean;
    }>;
};
export type TableCheck = {
    name: string;
    passes: number;
    fails: number;
};
export type TableGroup = {
    name?: string;
    checks?: TableCheck[];
    groups?: TableGroup[];
};
export type TableOptions = {
    summaryTrendStats?: string[] | null;
    summaryTimeUnit?: string | null;
};
export type TableData = {
    metrics: Record<string, TableMetric>;
    root_group?: TableGroup;
    options?: TableOptions;
};
