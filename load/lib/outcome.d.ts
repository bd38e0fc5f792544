/**
 * @typedef {{ refused: string }} Refusal what setup returns when the run must not go on
 * @typedef {{ result: 'PASS' | 'FAIL' | 'ABORTED', exitCode: number, reason: string | null }} RunOutcome
 */
/**
 * @param {string} reason
 * @param {Record<string, unknown>} [facts] what handleSummary still needs to know of the run (its execution segment)
 * @returns {Refusal & Record<string, unknown>}
 */
export function refusal(reason: string, facts?: Record<string, unknown>): Refusal & Record<string, unknown>;
/**
 * Why setup stopped the run, from the summary data's `setup_data`; null when it did not.
 * @param {{ setup_data?: unknown }} data
 * @param {{ hasSetup: boolean }} [options]
 * @returns {{ reason: string, exitCode: number } | null}
 */
export function setupStop(data: {
    setup_data?: unknown;
}, options?: {
    hasSetup: boolean;
}): {
    reason: string;
    exitCode: number;
} | null;
/**
 * @param {{ failedThresholds: number, stop: { reason: string, exitCode: number } | null }} facts
 * @returns {RunOutcome}
 */
export function runOutcome(facts: {
    failedThresholds: number;
    stop: {
        reason: string;
        exitCode: number;
    } | null;
}): RunOutcome;
/**
 * @param {RunOutcome} o
 */
export function outcomeLine(o: RunOutcome): string;
export namespace EXIT_CODES {
    let pass: number;
    let thresholdsFailed: number;
    let setupFailed: number;
    let scriptAborted: number;
}
/**
 * what setup returns when the run must not go on
 */
export type Refusal = {
    refused: string;
};
export type RunOutcome = {
    result: "PASS" | "FAIL" | "ABORTED";
    exitCode: number;
    reason: string | null;
};
