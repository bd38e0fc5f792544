// @ts-check
// What one response says about the caller's rate limit, read the same way by the conformance kit
// and by the k6 scripts, and the tolerances every time comparison allows. Plain ES2015 without
// imports outside spec/rules: k6 loads it by relative path.
import { HEADERS } from './contract.js';
import { headerValue, parseHttpDate, parseInteger, parseRetryAfter } from './fields.js';

/**
 * @typedef {import('./fields.js').HeaderMap} HeaderMap
 * @typedef {import('./fields.js').RetryAfter} RetryAfter
 */

/**
 * @typedef {object} Tolerances
 * @property {number} clockSkewSeconds how far the client's clock may be from the server's, when the
 *   response has no Date header (or the caller does not trust it)
 * @property {number} dateResolutionSeconds how coarse the Date header is (it is floored to the second)
 * @property {number} roundingSeconds how far Reset and Retry-After may round the true end of a wait
 * @property {number} maxWindowSeconds the longest window the specification describes (per day)
 */

/**
 * The statuses that mean "refused by the limiter": 429 (the specification), and 403, which some
 * servers answer during a ban. Any other non-2xx answer says nothing about the window.
 */
export const REFUSAL_STATUSES = [429, 403];

/**
 * Whether a status is the limiter's refusal.
 * @param {number} status
 * @returns {boolean}
 */
export function isRefusalStatus(status) {
  return REFUSAL_STATUSES.indexOf(status) >= 0;
}

/**
 * Whether a status means the request was served: a 2xx, and nothing else.
 * @param {number} status
 * @returns {boolean}
 */
export function isAdmittedStatus(status) {
  return status >= 200 && status < 300;
}

/** @type {Tolerances} */
export const DEFAULT_TOLERANCES = { clockSkewSeconds: 2, dateResolutionSeconds: 1, roundingSeconds: 1, maxWindowSeconds: 86400 };

/**
 * @typedef {object} RecordedResponse one answer, as the client recorded it
 * @property {number} status HTTP status; 0 when no response arrived
 * @property {HeaderMap | null} [headers]
 * @property {number} receivedAtMs the client's clock when the response arrived (epoch ms)
 * @property {number} [sentAtMs] the client's clock when the request left; receivedAtMs when unknown
 * @property {unknown} [ref] the caller's handle on the exchange, handed back with every rule it breaks
 */

/**
 * @typedef {object} Snapshot
 * @property {number} status HTTP status; 0 when no response arrived
 * @property {boolean} admitted the request was served: a 2xx, and nothing else
 * @property {boolean} refused the limiter refused it: 429, or 403 (how some servers answer a ban)
 * @property {number | null} limit X-RateLimit-Limit
 * @property {number | null} remaining X-RateLimit-Remaining
 * @property {number | null} reset X-RateLimit-Reset, Unix seconds
 * @property {RetryAfter} retryAfter
 * @property {string | undefined} retryAfterRaw
 * @property {string | undefined} cacheControl
 * @property {number} serverNowMs the server's time: its Date header, else the client's clock
 * @property {number} serverNow the same in whole Unix seconds
 * @property {'date-header' | 'client-clock'} clock where serverNowMs came from
 * @property {number} receivedAtMs
 * @property {number} sentAtMs
 * @property {string[]} malformed rate-limit headers that are missing or not integers
 * @property {unknown} ref
 */

/**
 * Reads the rate-limit fields of one response.
 * @param {RecordedResponse} response
 * @param {{ dateHeader?: boolean }} [options] dateHeader false: the Date header is not the server's
 *   clock (a test server on a manual clock), so the client's clock stands in for it
 * @returns {Snapshot}
 */
export function readSnapshot(response, options) {
  const headers = response.headers;
  const dateMs = options && options.dateHeader === false ? null : parseHttpDate(headerValue(headers, 'Date'), response.receivedAtMs);
  const serverNowMs = dateMs === null ? response.receivedAtMs : dateMs;
  const status = response.status;
  const limit = parseInteger(headerValue(headers, HEADERS.rateLimitLimit));
  const remaining = parseInteger(headerValue(headers, HEADERS.rateLimitRemaining));
  const reset = parseInteger(headerValue(headers, HEADERS.rateLimitReset));
  const retryAfterRaw = headerValue(headers, HEADERS.retryAfter);
  /** @type {string[]} */
  const malformed = [];
  if (status !== 0) {
    if (limit === null || limit < 0) malformed.push(HEADERS.rateLimitLimit);
    if (remaining === null) malformed.push(HEADERS.rateLimitRemaining);
    if (reset === null || reset < 0) malformed.push(HEADERS.rateLimitReset);
  }
  return {
    status: status,
    admitted: isAdmittedStatus(status),
    refused: isRefusalStatus(status),
    limit: limit,
    remaining: remaining,
    reset: reset,
    retryAfter: parseRetryAfter(retryAfterRaw, serverNowMs),
    retryAfterRaw: retryAfterRaw,
    cacheControl: headerValue(headers, 'Cache-Control'),
    serverNowMs: serverNowMs,
    serverNow: Math.floor(serverNowMs / 1000),
    clock: dateMs === null ? 'client-clock' : 'date-header',
    receivedAtMs: response.receivedAtMs,
    sentAtMs: response.sentAtMs === undefined ? response.receivedAtMs : response.sentAtMs,
    malformed: malformed,
    ref: response.ref,
  };
}

/**
 * What is wrong with one response's X-RateLimit-* headers, judged on that response alone: a header
 * missing or not a non-negative integer, or Remaining above Limit. Empty when they hold. The one
 * judge of the headers for the conformance kit (headers.rate-limit) and smoke.js; timing and counts
 * across responses are the window rules' (window-rules.js).
 * @param {Snapshot} s
 * @returns {string[]}
 */
export function rateLimitHeaderProblems(s) {
  /** @type {string[]} */
  const problems = [];
  /** @param {string} name @param {number | null} value */
  const field = (name, value) => {
    if (value === null || value < 0) problems.push(name + ' missing or not a non-negative integer');
  };
  field(HEADERS.rateLimitLimit, s.limit);
  field(HEADERS.rateLimitRemaining, s.remaining);
  field(HEADERS.rateLimitReset, s.reset);
  if (problems.length === 0 && /** @type {number} */ (s.remaining) > /** @type {number} */ (s.limit))
    problems.push('Remaining ' + s.remaining + ' exceeds Limit ' + s.limit);
  return problems;
}

/**
 * Seconds of slack in every comparison of Reset or Retry-After with a time or with each other: the
 * uncertainty of the server's time (the Date header's resolution, else the clock skew) plus the
 * rounding of the announced instant.
 * @param {Snapshot} s
 * @param {Tolerances} tolerances
 */
export function slackSeconds(s, tolerances) {
  return (s.clock === 'date-header' ? tolerances.dateResolutionSeconds : tolerances.clockSkewSeconds) + tolerances.roundingSeconds;
}

/**
 * The instant Retry-After names on the server's clock, in Unix seconds; null when it names none.
 * @param {Snapshot} s
 * @returns {number | null}
 */
export function retryAtSeconds(s) {
  const ra = s.retryAfter;
  if (ra.form === 'delay-seconds') return s.serverNow + ra.seconds;
  if (ra.form === 'http-date') return Math.floor(ra.atMs / 1000);
  return null;
}

/**
 * How long a client waits after receiving this response before it retries, in ms; null when
 * Retry-After names no wait. delay-seconds counts from receipt, which is never earlier on the
 * server's clock; an HTTP-date is measured against the server's time, and without a Date header
 * the client waits the clock skew longer, since it cannot know the server's clock.
 * @param {Snapshot} s
 * @param {Tolerances} tolerances
 * @returns {number | null}
 */
export function retryWaitMs(s, tolerances) {
  const ra = s.retryAfter;
  if (ra.form === 'delay-seconds') return ra.seconds * 1000;
  if (ra.form !== 'http-date') return null;
  const skew = s.clock === 'client-clock' ? tolerances.clockSkewSeconds * 1000 : 0;
  return Math.max(0, ra.atMs - s.serverNowMs) + skew;
}
