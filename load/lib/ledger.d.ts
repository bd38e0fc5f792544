/**
 * @typedef {import('./headers.js').Snapshot} Snapshot
 * @typedef {{ kind: string, detail: string }} Violation
 * @typedef {{ violations: Violation[], events: string[], notes: string[] }} Outcome
 * @typedef {object} Window
 * @property {number} reset
 * @property {number} limit
 * @property {number} admitted admitted requests counted in this window (seeded from Remaining when we joined it late)
 * @property {number | null} lastRemaining
 * @property {boolean} tracked we saw this window begin, so its counts are exact
 * @property {boolean} uncertain a request got no response: the server may have counted it
 * @property {boolean} saturated a 429 was seen in it
 * @property {number} faults violations recorded while in it
 */
/**
 * @param {{ mode?: 'window' | 'ban', expectedLimit?: number | null, skewSeconds?: number }} [options]
 */
export function createLedger(options?: {
    mode?: "window" | "ban";
    expectedLimit?: number | null;
    skewSeconds?: number;
}): {
    mode: "ban" | "window";
    /**
     * Feeds one batch of responses (a single request is a batch of one).
     * @param {Snapshot[]} batch
     * @returns {Outcome}
     */
    observe: (batch: Snapshot[]) => Outcome;
    /** Counts so far, for logs and tests. */
    report: () => {
        mode: "ban" | "window";
        limit: number | null;
        violations: Record<string, number>;
        firstDetail: Record<string, string>;
        events: Record<string, number>;
        window: {
            reset: number;
            admitted: number;
            saturated: boolean;
        } | null;
        banned: boolean;
    };
};
export namespace VIOLATIONS {
    let malformed_headers: string;
    let remaining_negative: string;
    let remaining_above_limit: string;
    let limit_mismatch: string;
    let limit_changed: string;
    let over_admitted: string;
    let under_admitted: string;
    let remaining_not_decremented: string;
    let remaining_skipped: string;
    let remaining_not_reset: string;
    let remaining_nonzero_on_429: string;
    let reset_moved: string;
    let reset_in_past: string;
    let retry_after_invalid: string;
    let retry_after_early: string;
    let retry_after_late: string;
    let not_readmitted: string;
    let ban_not_enforced: string;
}
/** Events worth counting; the script puts `count>=1` thresholds on the ones a run must reach. */
export const EVENTS: string[];
export type Snapshot = import("./headers.js").Snapshot;
export type Violation = {
    kind: string;
    detail: string;
};
export type Outcome = {
    violations: Violation[];
    events: string[];
    notes: string[];
};
export type Window = {
    reset: number;
    limit: number;
    /**
     * admitted requests counted in this window (seeded from Remaining when we joined it late)
     */
    admitted: number;
    lastRemaining: number | null;
    /**
     * we saw this window begin, so its counts are exact
     */
    tracked: boolean;
    /**
     * a request got no response: the server may have counted it
     */
    uncertain: boolean;
    /**
     * a 429 was seen in it
     */
    saturated: boolean;
    /**
     * violations recorded while in it
     */
    faults: number;
};
