/**
 * @typedef {{ rate: number, status: number, limit: number | null, remaining: number | null, resetInS: number | null, retryAfterS: number | null }} KeyLimit
 * @typedef {import('../../spec/rules/snapshot.js').RecordedResponse} RecordedResponse
 */
/**
 * Whether this response says the key binds at `rate` requests per second; null when it does not.
 * @param {RecordedResponse} response
 * @param {number} rate the step's whole rate (requests per second over every generator)
 * @param {number} [horizonS]
 * @returns {KeyLimit | null}
 */
export function keyLimit(response: RecordedResponse, rate: number, horizonS?: number): KeyLimit | null;
/**
 * The line that reports it.
 * @param {KeyLimit} k
 */
export function keyLimitLine(k: KeyLimit): string;
/**
 * The gauge samples that carry a KeyLimit to handleSummary (-1 stands for a missing header).
 * @param {KeyLimit} k
 * @returns {Array<{ metric: string, value: number }>}
 */
export function keyLimitSamples(k: KeyLimit): Array<{
    metric: string;
    value: number;
}>;
/**
 * The KeyLimit a run recorded, read back from the summary's gauges; null when none was.
 * @param {(metric: string) => number | undefined} gauge the last value of a gauge
 * @returns {KeyLimit | null}
 */
export function keyLimitFromGauges(gauge: (metric: string) => number | undefined): KeyLimit | null;
/** How close to running out a window may come before the search stops: two seconds of traffic. */
export const HORIZON_S: 2;
export namespace KEY_LIMIT_METRICS {
    let rate: string;
    let status: string;
    let limit: string;
    let remaining: string;
    let resetInS: string;
    let retryAfterS: string;
}
export type KeyLimit = {
    rate: number;
    status: number;
    limit: number | null;
    remaining: number | null;
    resetInS: number | null;
    retryAfterS: number | null;
};
export type RecordedResponse = import("../../spec/rules/snapshot.js").RecordedResponse;
