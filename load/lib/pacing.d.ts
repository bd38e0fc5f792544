/**
 * @typedef {object} Answer what the pacer learns from one response
 * @property {number} status
 * @property {number | null} waitMs how long its Retry-After asks to wait (spec/rules retryWaitMs), null when it names no wait
 * @property {number | null} [remaining] its X-RateLimit-Remaining
 * @property {number | null} [resetInMs] how long after it its X-RateLimit-Reset comes (server clock)
 */
/**
 * @param {{ perSecond: number, honourRetryAfter: boolean, startMs: number, maxBackoffSeconds?: number }} options
 *   honourRetryAfter: the client that judges the window (waits Retry-After, sends bursts within
 *   Remaining); false: the ban scenario's, which keeps sending
 */
export function createPacer(options: {
    perSecond: number;
    honourRetryAfter: boolean;
    startMs: number;
    maxBackoffSeconds?: number;
}): {
    /** @param {number} value requests per second */
    setRate: (value: number) => void;
    /**
     * Requests to send now, at once: `max`, or fewer when the last answers said fewer remain (then
     * that many plus one), or just one when nothing is known (a window may have reset since);
     * none until that many are due. The ban scenario sends whatever is due, up to `max`.
     * @param {number} nowMs
     * @param {number} max
     */
    allowance: (nowMs: number, max: number) => number;
    /** @param {number} count */
    sent: (count: number) => void;
    /**
     * @param {Answer[]} responses
     * @param {number} nowMs
     * @returns {number} seconds the pacer now holds off for (0 when it does not)
     */
    after: (responses: Answer[], nowMs: number) => number;
    stop: () => void;
    holding: (nowMs: number) => boolean;
};
/**
 * What the pacer learns from one response, as the window rules read it.
 * @param {import('../../spec/rules/snapshot.js').Snapshot} s
 * @param {import('../../spec/rules/snapshot.js').Tolerances} tolerances
 * @returns {Answer}
 */
export function answerOf(s: import("../../spec/rules/snapshot.js").Snapshot, tolerances: import("../../spec/rules/snapshot.js").Tolerances): Answer;
/**
 * What the pacer learns from a batch's answers.
 * @param {import('../../spec/rules/snapshot.js').Snapshot[]} snapshots
 * @param {import('../../spec/rules/snapshot.js').Tolerances} tolerances
 * @returns {Answer[]}
 */
export function answersOf(snapshots: import("../../spec/rules/snapshot.js").Snapshot[], tolerances: import("../../spec/rules/snapshot.js").Tolerances): Answer[];
/**
 * When rate-limit.js probes a ban it has provoked, client clock in ms (load/README.md). The first
 * waits for the window the ban began in to end, so that a refusal is the ban's, not that window's.
 * @param {{ detectedMs: number, banDueMs: number, windowEndMs: number | null, slackMs: number }} ban
 * @returns {{ times: number[], pastReset: boolean }}
 */
export function banProbeTimes(ban: {
    detectedMs: number;
    banDueMs: number;
    windowEndMs: number | null;
    slackMs: number;
}): {
    times: number[];
    pastReset: boolean;
};
/**
 * What rate-limit.js's ban scenario does with a batch's answers: follows the end of the window it is
 * in until a ban is announced, then plans the ban's probes (banProbeTimes) and says when they go.
 * @param {{ answered: Answer[], detected: boolean, nowMs: number, windowEndMs: number | null, slackMs: number, scenarioEndMs: number, banDurationS: number }} batch
 *   `answered`: the batch's answers, all received at `nowMs`; `detected`: the batch announced the ban;
 *   `scenarioEndMs`: when the ban scenario ends
 * @returns {{ windowEndMs: number | null, probes: number[] | null, said: string | null, warning: string | null }}
 */
export function banProbePlan(batch: {
    answered: Answer[];
    detected: boolean;
    nowMs: number;
    windowEndMs: number | null;
    slackMs: number;
    scenarioEndMs: number;
    banDurationS: number;
}): {
    windowEndMs: number | null;
    probes: number[] | null;
    said: string | null;
    warning: string | null;
};
/**
 * what the pacer learns from one response
 */
export type Answer = {
    status: number;
    /**
     * how long its Retry-After asks to wait (spec/rules retryWaitMs), null when it names no wait
     */
    waitMs: number | null;
    /**
     * its X-RateLimit-Remaining
     */
    remaining?: number | null | undefined;
    /**
     * how long after it its X-RateLimit-Reset comes (server clock)
     */
    resetInMs?: number | null | undefined;
};
