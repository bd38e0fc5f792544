// @ts-check
// Header parsing shared by every script. Pure JavaScript: no k6 import, so Node tests it as is.
// k6 hands response headers over with Go's canonical casing ("X-Ratelimit-Limit"), other clients
// with whatever the server sent, so every lookup here ignores case.

/**
 * @typedef {Record<string, string | string[] | undefined>} HeaderMap
 */

/**
 * The value of one header, case-insensitively; the first one when it was sent more than once.
 * @param {HeaderMap | undefined | null} headers
 * @param {string} name
 * @returns {string | undefined}
 */
export function header(headers, name) {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  const keys = Object.keys(headers);
  for (let i = 0; i < keys.length; i++) {
    if (keys[i].toLowerCase() === wanted) {
      const value = headers[keys[i]];
      if (Array.isArray(value)) return value.length > 0 ? String(value[0]) : undefined;
      return value === undefined || value === null ? undefined : String(value);
    }
  }
  return undefined;
}

/**
 * A header holding a decimal integer, such as X-RateLimit-Remaining. Signed so that a negative
 * Remaining is reported as what it is rather than as garbage.
 * @param {string | undefined} value
 * @returns {number | null} null when absent or not an integer
 */
export function parseInteger(value) {
  if (value === undefined) return null;
  const text = value.trim();
  if (!/^-?\d{1,16}$/.test(text)) return null;
  return Number(text);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * @param {number} year
 * @param {string} monthName
 * @param {string} day
 * @param {string} h
 * @param {string} m
 * @param {string} s
 * @returns {number | null}
 */
function utc(year, monthName, day, h, m, s) {
  const month = MONTHS.indexOf(monthName);
  if (month < 0) return null;
  const ms = Date.UTC(year, month, Number(day), Number(h), Number(m), Number(s));
  return isNaN(ms) ? null : ms;
}

/**
 * An HTTP-date in any of the three forms RFC 9110 section 5.6.7 makes recipients accept: the
 * IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete RFC 850 form and asctime. Parsed
 * here rather than by Date.parse so the result does not depend on the JavaScript engine.
 * @param {string | undefined} value
 * @param {number} [referenceMs] "now", for the two-digit years of the RFC 850 form
 * @returns {number | null} epoch milliseconds
 */
export function parseHttpDate(value, referenceMs) {
  if (value === undefined) return null;
  const text = value.trim();
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(Number(m[4]), m[3], m[2], m[5], m[6], m[7]);
  m = ASCTIME_DATE.exec(text);
  if (m) return utc(Number(m[7]), m[2], m[3].trim(), m[4], m[5], m[6]);
  m = RFC850_DATE.exec(text);
  if (m) {
    // A two-digit year more than 50 years ahead is the most recent past year with those digits.
    const nowYear = new Date(referenceMs === undefined ? Date.now() : referenceMs).getUTCFullYear();
    let year = nowYear - (nowYear % 100) + Number(m[4]);
    if (year > nowYear + 50) year -= 100;
    return utc(year, m[3], m[2], m[5], m[6], m[7]);
  }
  return null;
}

/**
 * Retry-After as RFC 9110 section 10.2.3 allows it: delay-seconds or an HTTP-date. An HTTP-date
 * becomes a delay measured from the response's own Date header (the server's clock), or from the
 * client's clock when the response has none.
 * @param {string | undefined} value
 * @param {number} referenceMs the server's "now" in epoch milliseconds
 * @returns {{ seconds: number, form: 'delay-seconds' | 'http-date' } | null} null when absent or malformed
 */
export function parseRetryAfter(value, referenceMs) {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return { seconds: Number(text), form: 'delay-seconds' };
  const at = parseHttpDate(text, referenceMs);
  if (at === null) return null;
  return { seconds: Math.round((at - referenceMs) / 1000), form: 'http-date' };
}

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
export function snapshot(status, headers, receivedAtMs) {
  const dateMs = parseHttpDate(header(headers, 'Date'));
  const serverMs = dateMs === null ? receivedAtMs : dateMs;
  const limit = parseInteger(header(headers, 'X-RateLimit-Limit'));
  const remaining = parseInteger(header(headers, 'X-RateLimit-Remaining'));
  const reset = parseInteger(header(headers, 'X-RateLimit-Reset'));
  const retryAfterRaw = header(headers, 'Retry-After');
  /** @type {string[]} */
  const malformed = [];
  if (status !== 0) {
    if (limit === null || limit < 0) malformed.push('X-RateLimit-Limit');
    if (remaining === null) malformed.push('X-RateLimit-Remaining');
    if (reset === null || reset < 0) malformed.push('X-RateLimit-Reset');
  }
  return {
    status,
    admitted: status !== 0 && status !== 429,
    limit,
    remaining,
    reset,
    retryAfter: parseRetryAfter(retryAfterRaw, serverMs),
    retryAfterRaw,
    serverNow: Math.floor(serverMs / 1000),
    clock: dateMs === null ? 'client-clock' : 'date-header',
    receivedAtMs,
    malformed,
  };
}
