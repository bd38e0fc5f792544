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
