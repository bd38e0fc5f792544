/**
 * @typedef {Record<string, string | string[] | undefined>} HeaderMap
 */
/**
 * The value of one header, case-insensitively; the first one when it was sent more than once.
 * @param {HeaderMap | undefined | null} headers
 * @param {string} name
 * @returns {string | undefined}
 */
export function header(headers: HeaderMap | undefined | null, name: string): string | undefined;
/**
 * A header holding a decimal integer, such as X-RateLimit-Remaining. Signed so that a negative
 * Remaining is reported as what it is rather than as garbage.
 * @param {string | undefined} value
 * @returns {number | null} null when absent or not an integer
 */
export function parseInteger(value: string | undefined): number | null;
/**
 * An HTTP-date in any of the three forms RFC 9110 section 5.6.7 makes recipients accept: the
 * IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete RFC 850 form and asctime. Parsed
 * here rather than by Date.parse so the result does not depend on the JavaScript engine.
 * @param {string | undefined} value
 * @param {number} [referenceMs] "now", for the two-digit years of the RFC 850 form
 * @returns {number | null} epoch milliseconds
 */
export function parseHttpDate(value: string | undefined, referenceMs?: number): number | null;
/**
 * Retry-After as RFC 9110 section 10.2.3 allows it: delay-seconds or an HTTP-date. An HTTP-date
 * becomes a delay measured from the response's own Date header (the server's clock), or from the
 * client's clock when the response has none.
 * @param {string | undefined} value
 * @param {number} referenceMs the server's "now" in epoch milliseconds
 * @returns {{ seconds: number, form: 'delay-seconds' | 'http-date' } | null} null when absent or malformed
 */
export function parseRetryAfter(value: string | undefined, referenceMs: number): {
    seconds: number;
    form: "delay-seconds" | "http-date";
} | null;
/**
 * @typedef {object} Snapshot
 * What one response says about the caller's rate limit.
 * @property {number} status HTTP status; 0 when no response arrived
 * @property {boolean} admitted the request was served (any status but 429 and 0)
 * @property {number | null} limit X-RateLimit-Limit
 * @property {number | null} remaining X-RateLimit-Remaining
 * @property {number | null} reset X-RateLimit-Reset, Unix seconds
 * @property {{ seconds: number, form: string } | null} retryAfter
 * @property {string | undefined} retryAfterRaw
 * @property {number} serverNow the server's time in Unix seconds, from its Date header if any
 * @property {'date-header' | 'client-clock'} clock where serverNow came from
 * @property {number} receivedAtMs the client's clock when the response arrived
 * @property {string[]} malformed names of rate-limit headers that were missing or not integers
 */
/**
 * Reads the rate-limit headers of one response.
 * @param {number} status
 * @param {HeaderMap | undefined | null} headers
 * @param {number} receivedAtMs client clock, epoch milliseconds
 * @returns {Snapshot}
 */
export function snapshot(status: number, headers: HeaderMap | undefined | null, receivedAtMs: number): Snapshot;
export type HeaderMap = Record<string, string | string[] | undefined>;
/**
 * What one response says about the caller's rate limit.
 */
export type Snapshot = {
    /**
     * HTTP status; 0 when no response arrived
     */
    status: number;
    /**
     * the request was served (any status but 429 and 0)
     */
    admitted: boolean;
    /**
     * X-RateLimit-Limit
     */
    limit: number | null;
    /**
     * X-RateLimit-Remaining
     */
    remaining: number | null;
    /**
     * X-RateLimit-Reset, Unix seconds
     */
    reset: number | null;
    retryAfter: {
        seconds: number;
        form: string;
    } | null;
    retryAfterRaw: string | undefined;
    /**
     * the server's time in Unix seconds, from its Date header if any
     */
    serverNow: number;
    /**
     * where serverNow came from
     */
    clock: "date-header" | "client-clock";
    /**
     * the client's clock when the response arrived
     */
    receivedAtMs: number;
    /**
     * names of rate-limit headers that were missing or not integers
     */
    malformed: string[];
};
