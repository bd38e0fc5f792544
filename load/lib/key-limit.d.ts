/**
 * @typedef {{ rate: number, status: number, limit: number | null, remaining: number | null, resetInS: number | null, retryAfterS: number | null }} KeyLimit
 * @typedef {import('../../spec/rules/snapshot.js').RecordedResponse} RecordedResponse
 */
/**
 * Whether this response says the key binds at `rate` requests per second; null when it does not.
 * @param {RecordedResponse} response
 * @param {number} rate the step's whole rate (requests per second over every generator: they all spend one key)
 * @param {number} [horizonS]
 * @returns {KeyLimit | null}
 */
export function keyLimit(response: RecordedResponse, rate: number, horizonS?: number): KeyLimit | null;
/**
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
/**
 * What keeps rate-limit.js, as set up, from seeing the key's limit. Answers too slow for one VU are
 * only likely (a first request also pays for the connection); a limit other than PLAN's is the
 * target's fault (limit_mismatch), never certain.
 * @param {ReachPlan} plan
 * @returns {Shortfall[]}
 */
export function limitShortfalls(plan: ReachPlan): Shortfall[];
/**
 * @typedef {object} RunPlan what rate-limit.js is set up to do, as setup tells it
 * @property {string} baseUrl BASE_URL
 * @property {number} limit the key's X-RateLimit-Limit
 * @property {number | null} expectedLimit PLAN's or LIMIT's, null when the limit is learned
 * @property {number} offeredPerMinute what the run offers
 * @property {number} durationS DURATION
 * @property {number} clients CLIENTS
 * @property {boolean} crossWindows CROSS_WINDOWS
 * @property {number | null} banS the ban scenario's length (BAN_DURATION), null without BAN
 * @property {boolean} strict STRICT
 */
/**
 * What setup says once it knows the key's limit: one line of what the run will do, and a warning
 * when CLIENTS is more than a burst may send (never past the Remaining last seen plus one).
 * @param {RunPlan} run
 * @returns {{ line: string, warnings: string[] }}
 */
export function runPlanLines(run: RunPlan): {
    line: string;
    warnings: string[];
};
/**
 * The warning setup prints for a shortfall, with what to change.
 * @param {Shortfall} f
 */
export function shortfallLine(f: Shortfall): string;
/**
 * Why the run stops at setup: the shortfalls that are certain; null when none is.
 * @param {Shortfall[]} shortfalls
 * @returns {string | null}
 */
export function unreachableReason(shortfalls: Shortfall[]): string | null;
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
/** The window the plans' limits count in: their limits are per minute. */
export const WINDOW_S: 60;
export type KeyLimit = {
    rate: number;
    status: number;
    limit: number | null;
    remaining: number | null;
    resetInS: number | null;
    retryAfterS: number | null;
};
export type RecordedResponse = import("../../spec/rules/snapshot.js").RecordedResponse;
/**
 * what rate-limit.js knows once setup's first request has answered
 */
export type ReachPlan = {
    /**
     * the key's X-RateLimit-Limit
     */
    limit: number;
    /**
     * that answer's X-RateLimit-Remaining
     */
    remaining: number | null;
    /**
     * PLAN's or LIMIT's, null when the limit is learned
     */
    expectedLimit: number | null;
    /**
     * what the run can offer: the pacer's rate, within the scenario's
     */
    offeredPerMinute: number;
    /**
     * OVERDRIVE
     */
    overdrive: number;
    /**
     * CLIENTS
     */
    clients: number;
    /**
     * DURATION
     */
    durationS: number;
    /**
     * CROSS_WINDOWS
     */
    crossWindows: boolean;
    /**
     * that answer's round trip
     */
    latencyMs: number;
    /**
     * how the run's length was given, when not by DURATION
     */
    length?: RunLength | undefined;
};
/**
 * k6's own
 *   options, which replace the script's scenario: its length then comes from them
 */
export type RunLength = {
    option: "--duration";
} | {
    option: "--iterations";
    iterations: number;
};
/**
 * why the run will (certain)
 *   or may not see the key's limit answer, and what to change
 */
export type Shortfall = {
    certain: boolean;
    problem: string;
    change: string;
};
/**
 * what rate-limit.js is set up to do, as setup tells it
 */
export type RunPlan = {
    /**
     * BASE_URL
     */
    baseUrl: string;
    /**
     * the key's X-RateLimit-Limit
     */
    limit: number;
    /**
     * PLAN's or LIMIT's, null when the limit is learned
     */
    expectedLimit: number | null;
    /**
     * what the run offers
     */
    offeredPerMinute: number;
    /**
     * DURATION
     */
    durationS: number;
    /**
     * CLIENTS
     */
    clients: number;
    /**
     * CROSS_WINDOWS
     */
    crossWindows: boolean;
    /**
     * the ban scenario's length (BAN_DURATION), null without BAN
     */
    banS: number | null;
    /**
     * STRICT
     */
    strict: boolean;
};
