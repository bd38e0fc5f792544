// @ts-check
// The HTTP fields the server writes and the kit and k6 scripts read (integers, HTTP-dates,
// Retry-After, Deprecation, Sunset). Each parser accepts exactly what its RFC allows, so that no
// reader demands one implementation's spelling; what an RFC leaves open is in README.md's Decisions.

/** @typedef {Record<string, string | string[] | undefined | null>} HeaderMap */

/**
 * A field's value whatever the casing of its name (k6 hands headers over in Go's canonical casing,
 * fetch in lower case); the first value when the field was sent more than once.
 * @param {HeaderMap | undefined | null} headers
 * @param {string} name
 * @returns {string | undefined}
 */
export function headerValue(headers, name) {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    const value = headers[key];
    if (Array.isArray(value)) return value.length > 0 ? String(value[0]) : undefined;
    return value === undefined || value === null ? undefined : String(value);
  }
  return undefined;
}

/** @param {string} value */
function trimOws(value) {
  // RFC 9110 §5.5: a field value carries no leading or trailing whitespace (OWS is spaces and tabs).
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * X-RateLimit-*: signed, so that a negative Remaining is reported as negative rather than as
 * garbage, and a safe integer, so that it is exact.
 * @param {string | undefined | null} value
 * @returns {number | null} null when absent or not such an integer
 */
export function parseInteger(value) {
  if (value === undefined || value === null) return null;
  const text = trimOws(String(value));
  if (!/^-?[0-9]+$/.test(text)) return null;
  const n = Number(text);
  if (!Number.isSafeInteger(n)) return null;
  return n === 0 ? 0 : n;
}

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(' + DAY_NAMES.join('|') + ')';
const MONTH = '(' + MONTHS.join('|') + ')';
const TIME = '([0-9]{2}):([0-9]{2}):([0-9]{2})';
// RFC 9110 §5.6.7; names are case-sensitive and every separator is exactly one space.
const IMF_FIXDATE = new RegExp('^' + DAY + ', ([0-9]{2}) ' + MONTH + ' ([0-9]{4}) ' + TIME + ' GMT$');
const RFC850_DATE = new RegExp('^(' + LONG_DAY_NAMES.join('|') + '), ([0-9]{2})-' + MONTH + '-([0-9]{2}) ' + TIME + ' GMT$');
const ASCTIME_DATE = new RegExp('^' + DAY + ' ' + MONTH + ' ( [0-9]|[0-9]{2}) ' + TIME + ' ([0-9]{4})$');

/**
 * Epoch ms of a calendar timestamp, or null when it names no real instant: 31 February, 25:00:00,
 * or a day name that is not that date's. Second 60 is the leap second RFC 9110 allows; JavaScript
 * time has none, so 23:59:60 reads as 23:59:59.
 * @param {number} year @param {number} month 0-11 @param {number} day
 * @param {number} h @param {number} m @param {number} s @param {number} weekday 0 = Sunday
 * @returns {number | null}
 */
function instant(year, month, day, h, m, s, weekday) {
  const leap = s === 60 && h === 23 && m === 59;
  if (h > 23 || m > 59 || (s > 59 && !leap) || day < 1) return null;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(h, m, leap ? 59 : s, 0);
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month || date.getUTCDay() !== weekday) return null;
  return date.getTime();
}

/**
 * The groups of a match by number, an unmatched one as ''; null when the pattern does not match.
 * @param {RegExp} pattern
 * @param {string} text
 * @returns {((group: number) => string) | null}
 */
function fields(pattern, text) {
  const m = pattern.exec(text);
  if (!m) return null;
  return (group) => {
    const g = m[group];
    return g === undefined ? '' : g;
  };
}

/**
 * The last IMF-fixdate read, which names its instant whatever the reference: a server's Date changes
 * once a second, and a judge of live traffic reads it on every answer.
 * @type {{ text: string, ms: number | null }}
 */
let lastFixdate = { text: '', ms: null };

/**
 * An HTTP-date in any of the three forms RFC 9110 §5.6.7 makes recipients accept: IMF-fixdate
 * ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete RFC 850 form and asctime. Parsed by hand, not by
 * Date.parse, so the answer does not depend on the JavaScript engine.
 * @param {string | undefined | null} value
 * @param {number} referenceMs "now" (epoch ms): the RFC 850 form's two-digit year is the latest year
 *   with those digits that is not more than 50 years after it (RFC 9110 §5.6.7)
 * @returns {number | null} epoch milliseconds; null when absent or not an HTTP-date
 */
export function parseHttpDate(value, referenceMs) {
  if (value === undefined || value === null) return null;
  const text = trimOws(String(value));
  if (text === lastFixdate.text) return lastFixdate.ms;
  let m = fields(IMF_FIXDATE, text);
  if (m) {
    const ms = instant(Number(m(4)), MONTHS.indexOf(m(3)), Number(m(2)), Number(m(5)), Number(m(6)), Number(m(7)), DAY_NAMES.indexOf(m(1)));
    lastFixdate = { text: text, ms: ms };
    return ms;
  }
  m = fields(ASCTIME_DATE, text);
  if (m) return instant(Number(m(7)), MONTHS.indexOf(m(2)), Number(m(3).trim()), Number(m(4)), Number(m(5)), Number(m(6)), DAY_NAMES.indexOf(m(1)));
  m = fields(RFC850_DATE, text);
  if (!m) return null;
  const month = MONTHS.indexOf(m(3));
  const day = Number(m(2));
  const h = Number(m(5));
  const mi = Number(m(6));
  const s = Number(m(7));
  const limit = new Date(referenceMs);
  limit.setUTCFullYear(limit.getUTCFullYear() + 50);
  const referenceYear = new Date(referenceMs).getUTCFullYear();
  let year = referenceYear - (referenceYear % 100) + 100 + Number(m(4));
  while (calendarTime(year, month, day, h, mi, s) > limit.getTime()) year -= 100;
  return instant(year, month, day, h, mi, s, LONG_DAY_NAMES.indexOf(m(1)));
}

/**
 * The instant a calendar reading would name, unchecked (31 February runs on into March): only for
 * choosing the century of a two-digit year.
 * @param {number} year @param {number} month @param {number} day
 * @param {number} h @param {number} m @param {number} s
 */
function calendarTime(year, month, day, h, m, s) {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(h, m, s, 0);
  return date.getTime();
}

/** @param {number} n @param {number} width */
function digits(n, width) {
  let text = String(n);
  while (text.length < width) text = '0' + text;
  return text;
}

/**
 * The IMF-fixdate of an instant, the only form RFC 9110 lets senders generate; the same text as
 * JavaScript's toUTCString() gives, written by hand so that it is the same in every engine.
 * Fractions of a second are dropped.
 * @param {number} ms epoch milliseconds of a year from 0 to 9999
 * @returns {string}
 */
export function formatHttpDate(ms) {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  const year = d.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) throw new RangeError('an HTTP-date has a four-digit year, not ' + year);
  return (
    DAY_NAMES[d.getUTCDay()] +
    ', ' +
    digits(d.getUTCDate(), 2) +
    ' ' +
    MONTHS[d.getUTCMonth()] +
    ' ' +
    digits(year, 4) +
    ' ' +
    digits(d.getUTCHours(), 2) +
    ':' +
    digits(d.getUTCMinutes(), 2) +
    ':' +
    digits(d.getUTCSeconds(), 2) +
    ' GMT'
  );
}

/**
 * @typedef {{ form: 'delay-seconds', seconds: number }
 *   | { form: 'http-date', atMs: number }
 *   | { form: 'missing' }
 *   | { form: 'invalid', reason: string }} RetryAfter
 */

/**
 * RFC 9110 §10.2.3 sets no bound on delay-seconds; here it is 2^53 - 1, the largest a JavaScript
 * reader holds exactly. "0" is valid syntax: whether it is sensible is the rate-limit rules' to judge.
 * @param {string | undefined | null} value
 * @param {number} referenceMs "now" for the RFC 850 form's two-digit year
 * @returns {RetryAfter}
 */
export function parseRetryAfter(value, referenceMs) {
  if (value === undefined || value === null) return { form: 'missing' };
  const text = trimOws(String(value));
  if (/^[0-9]+$/.test(text)) {
    const seconds = Number(text);
    if (Number.isSafeInteger(seconds)) return { form: 'delay-seconds', seconds: seconds };
    return { form: 'invalid', reason: JSON.stringify(value) + ' is more than 2^53 - 1 seconds' };
  }
  const atMs = parseHttpDate(text, referenceMs);
  if (atMs !== null) return { form: 'http-date', atMs: atMs };
  return { form: 'invalid', reason: JSON.stringify(value) + ' is neither delay-seconds (1*DIGIT) nor an HTTP-date' };
}

/**
 * RFC 9745 §2.1: Deprecation is a Structured Field Date, "@" and the epoch seconds (at most 15
 * digits, as RFC 9651 allows), with nothing else: neither the pre-RFC "true" nor an HTTP-date.
 * @param {string | undefined | null} value
 * @returns {number | null} epoch milliseconds
 */
export function parseDeprecation(value) {
  if (value === undefined || value === null) return null;
  const m = fields(/^@(-?[0-9]{1,15})$/, trimOws(String(value)));
  return m ? Number(m(1)) * 1000 : null;
}

/**
 * @param {number} ms epoch milliseconds; fractions of a second are dropped
 * @returns {string} "@<epoch seconds>"
 */
export function formatDeprecation(ms) {
  return '@' + Math.floor(ms / 1000);
}

/**
 * RFC 8594: Sunset is an HTTP-date.
 * @param {string | undefined | null} value
 * @param {number} referenceMs "now" for the RFC 850 form's two-digit year
 * @returns {number | null} epoch milliseconds
 */
export function parseSunset(value, referenceMs) {
  return parseHttpDate(value, referenceMs);
}

/**
 * @param {number} ms epoch milliseconds
 * @returns {string} the IMF-fixdate
 */
export function formatSunset(ms) {
  return formatHttpDate(ms);
}
