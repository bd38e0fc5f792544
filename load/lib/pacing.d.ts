/**
 * @param {{ perSecond: number, honourRetryAfter: boolean, startMs: number, maxBackoffSeconds?: number }} options
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
     * Requests to send now, at most `max`.
     * @param {number} nowMs
     * @param {number} max
     */
    allowance: (nowMs: number, max: number) => number;
    /** @param {number} count */
    sent: (count: number) => void;
    /**
     * Learns from the responses to what was just sent.
     * @param {Array<{ status: number, waitMs: number | null }>} responses waitMs: how long the
     *   response's Retry-After asks to wait (spec/rules retryWaitMs), null when it names no wait
     * @param {number} nowMs
     * @returns {number} seconds the pacer now holds off for (0 when it does not)
     */
    after: (responses: Array<{
        status: number;
        waitMs: number | null;
    }>, nowMs: number) => number;
    stop: () => void;
    holding: (nowMs: number) => boolean;
};
/**
 * When rate-limit.js probes a ban it has provoked, client clock in ms: once the window the ban
 * began in has ended (so that a refusal is the ban's, not that window's 429), again at two thirds
 * of the ban, and once after it should have lifted. Three spaced requests are far below any ban
 * threshold, so the probes cannot extend what they observe. A ban that ends before its window does
 * is probed at a third and two thirds instead, and `pastReset` says the boundary cannot be crossed.
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
