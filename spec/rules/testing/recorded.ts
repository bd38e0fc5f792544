// Recorded rate-limit header sequences for the tests: what a correct fixed-window limiter sends, and
// what the flawed ones do. Times are seconds after T0; a response carries the Date header of the
// second it was sent in and arrives 250 ms into it. Headers are spelled as k6 hands them over.
import type { RecordedResponse } from '../snapshot.js';
import { HEADERS } from '../contract.js';

/** A minute boundary, in Unix seconds. */
export const T0 = 1_800_000_000;
export const W1 = T0 + 60;
export const W2 = T0 + 120;
export const W3 = T0 + 180;

export const httpDate = (seconds: number) => new Date(seconds * 1000).toUTCString();

/** A field name as k6 hands it over: Go's canonical form (X-Ratelimit-Limit). */
const k6Name = (name: string) => name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
const LIMIT = k6Name(HEADERS.rateLimitLimit);
const REMAINING = k6Name(HEADERS.rateLimitRemaining);
const RESET = k6Name(HEADERS.rateLimitReset);

export interface Extra {
  limit?: number | string;
  noDate?: boolean;
  /** Header overrides; undefined removes the header. */
  headers?: Record<string, string | undefined>;
  /** The request left this many seconds before the response arrived (default: at once). */
  sentBefore?: number;
}

function response(status: number, at: number, fields: Record<string, string | undefined>, extra: Extra = {}): RecordedResponse {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (!extra.noDate) headers.Date = httpDate(T0 + at);
  for (const [name, value] of Object.entries({ ...fields, ...extra.headers })) if (value !== undefined) headers[name] = value;
  const receivedAtMs = (T0 + at) * 1000 + 250;
  return { status, headers, receivedAtMs, ...(extra.sentBefore ? { sentAtMs: receivedAtMs - extra.sentBefore * 1000 } : {}) };
}

/** An admitted request, Limit 3 unless told otherwise. */
export function ok(at: number, remaining: number | string, reset: number, extra: Extra = {}): RecordedResponse {
  return response(200, at, { [LIMIT]: String(extra.limit ?? 3), [REMAINING]: String(remaining), [RESET]: String(reset) }, extra);
}

/** A 403 refusing a banned key, as some servers answer a ban, with Retry-After. */
export function forbidden(at: number, reset: number, retryAfter: string, extra: Extra = {}): RecordedResponse {
  return response(403, at, { [LIMIT]: String(extra.limit ?? 3), [REMAINING]: '0', [RESET]: String(reset), 'Retry-After': retryAfter }, extra);
}

/** A 429 with Cache-Control: no-store; retryAfter undefined leaves Retry-After out. */
export function no(at: number, reset: number, retryAfter: string | undefined, remaining: number | string = 0, extra: Extra = {}): RecordedResponse {
  return response(
    429,
    at,
    {
      [LIMIT]: String(extra.limit ?? 3),
      [REMAINING]: String(remaining),
      [RESET]: String(reset),
      'Retry-After': retryAfter,
      'Cache-Control': 'no-store',
    },
    extra,
  );
}

export const lost = (at: number): RecordedResponse => ({ status: 0, receivedAtMs: (T0 + at) * 1000 + 250 });

/** Joins a window part-way, saturates it, waits Retry-After, and does so twice more. */
export const CORRECT: RecordedResponse[] = [
  ok(1, 2, W1),
  ok(2, 1, W1),
  ok(3, 0, W1),
  no(4, W1, '56'),
  ok(60, 2, W2),
  ok(61, 1, W2),
  ok(62, 0, W2),
  no(63, W2, '57'),
  ok(120, 2, W3),
  ok(121, 1, W3),
  ok(122, 0, W3),
  no(123, W3, '57'),
];

const saturate = [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1)];
const BAN_END = T0 + 606;

export interface Sequence {
  name: string;
  responses: RecordedResponse[];
  /** Every rule the sequence breaks. */
  broken: string[];
}

/** The sequences both the kit and rate-limit.js judge; each names every rule it breaks. */
export const SEQUENCES: Sequence[] = [
  { name: 'a correct limiter', responses: CORRECT, broken: [] },
  {
    name: 'over-admission: a fourth request admitted, Remaining stuck at 0',
    responses: [...saturate, ok(4, 0, W1), no(5, W1, '55')],
    broken: ['over_admitted', 'remaining_not_decremented'],
  },
  {
    name: 'under-admission: 429 after two of three in a window seen whole',
    responses: [...saturate, no(4, W1, '56'), ok(60, 2, W2), ok(61, 1, W2), no(62, W2, '58')],
    broken: ['under_admitted'],
  },
  {
    name: 'stuck Remaining',
    responses: [ok(1, 2, W1), ok(2, 2, W1), ok(3, 2, W1), no(4, W1, '56', 2)],
    broken: ['remaining_not_decremented', 'remaining_nonzero_on_429'],
  },
  {
    // Flask-Limiter's moving window read literally (readings.js: reset.window-empty): the window is empty a minute after the newest admission.
    name: 'a moving window whose Reset is when the window is empty: a minute after the newest admission',
    responses: [ok(1, 2, T0 + 61), ok(2, 1, T0 + 62), ok(3, 0, T0 + 63), no(4, T0 + 63, '59')],
    broken: [],
  },
  {
    name: 'moving Reset: always two minutes away',
    responses: [ok(1, 2, T0 + 121), ok(2, 1, T0 + 122), ok(3, 0, T0 + 123), no(4, T0 + 124, '120')],
    broken: ['reset_moved'],
  },
  {
    name: 'Reset in milliseconds',
    responses: [ok(1, 2, W1 * 1000), ok(2, 1, W1 * 1000), ok(3, 0, W1 * 1000), no(4, W1 * 1000, '56')],
    broken: ['reset_too_far', 'retry_after_early'],
  },
  { name: 'Remaining other than 0 on a 429', responses: [...saturate, no(4, W1, '56', 1)], broken: ['remaining_nonzero_on_429'] },
  { name: 'Retry-After missing', responses: [...saturate, no(4, W1, undefined)], broken: ['retry_after_missing'] },
  { name: 'Retry-After a fraction of seconds', responses: [...saturate, no(4, W1, '55.5')], broken: ['retry_after_invalid'] },
  { name: 'Retry-After ten minutes past Reset', responses: [...saturate, no(4, W1, '656')], broken: ['retry_after_late'] },
  {
    name: 'Retry-After 0 while the window is still closed',
    responses: [...saturate, no(4, W1, '0'), no(5, W1, '0')],
    broken: ['retry_after_early', 'retry_after_form', 'not_readmitted'],
  },
  {
    name: 'Retry-After as an HTTP-date (valid; only the integer form is a should)',
    responses: [...saturate, no(4, W1, httpDate(W1)), ok(60, 2, W2)],
    broken: ['retry_after_form'],
  },
  {
    name: 'a 429 that may be cached',
    responses: [...saturate, no(4, W1, '56', 0, { headers: { 'Cache-Control': undefined } })],
    broken: ['refusal_cacheable'],
  },
  {
    name: 'a ban that lifts when it said',
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), no(6, BAN_END, '600'), no(7, BAN_END, '599'), ok(606, 2, T0 + 666)],
    broken: [],
  },
  {
    name: 'a ban answered 403 that lifts when it said',
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), forbidden(6, BAN_END, '600'), forbidden(7, BAN_END, '599'), ok(606, 2, T0 + 666)],
    broken: [],
  },
  {
    name: 'a ban answered 403 that is not enforced',
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), forbidden(6, BAN_END, '600'), ok(70, 2, T0 + 130)],
    broken: ['ban_not_enforced'],
  },
  {
    name: 'a 401 or a 500 amid the window is neither admitted nor refused',
    responses: [ok(1, 2, W1), response(401, 2, {}, {}), response(500, 2, {}, {}), ok(3, 1, W1), ok(4, 0, W1), no(5, W1, '55')],
    broken: [],
  },
  {
    name: 'a ban that does not lift',
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), no(6, BAN_END, '600'), no(606, T0 + 1206, '600')],
    broken: ['not_readmitted', 'ban_not_lifted'],
  },
  {
    name: 'a ban that is not enforced',
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), no(6, BAN_END, '600'), ok(70, 2, T0 + 130)],
    broken: ['ban_not_enforced'],
  },
  {
    name: 'Reset stays in the past after its window ended',
    responses: [...saturate, no(4, W1, '56'), no(65, W1, '1')],
    broken: ['not_readmitted', 'reset_in_past', 'retry_after_late'],
  },
  { name: 'a rate-limit header that is not an integer', responses: [ok(1, 'many', W1), ok(2, 1, W1, { limit: '' })], broken: ['malformed_headers'] },
  { name: 'never refuses: Remaining goes negative', responses: [...saturate, ok(4, -1, W1), ok(5, -2, W1)], broken: ['remaining_negative'] },
  {
    name: 'over-admits a whole window it saw begin, Remaining starting at Limit',
    responses: [...saturate, no(4, W1, '56'), ok(60, 3, W2), ok(61, 2, W2), ok(62, 1, W2), ok(63, 0, W2), no(64, W2, '56')],
    broken: ['over_admitted', 'remaining_above_limit', 'remaining_not_reset'],
  },
  { name: 'Remaining falls by two for one request', responses: [ok(1, 2, W1), ok(2, 0, W1), no(3, W1, '57')], broken: ['remaining_skipped', 'under_admitted'] },
  // A Limit of 3 is no plan's: the change is the finding; the day's Reset is explained by the other window (readings scope.minute, scope.day).
  { name: 'the binding window changes mid-run', responses: [ok(1, 2, W1), ok(2, 1, T0 + 86400, { limit: 1000 })], broken: ['limit_changed'] },
  {
    name: "the headers describe the day window, then the minute window's refusal (readings scope.minute, scope.day)",
    responses: [
      ok(1, 998, T0 + 86400, { limit: 1000 }),
      ok(2, 997, T0 + 86400, { limit: 1000 }),
      no(3, W1, '57', 0, { limit: 60 }),
      ok(60, 996, T0 + 86400, { limit: 1000 }),
    ],
    broken: [],
  },
  {
    name: 'served before Retry-After has passed',
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), ok(6, 0, W1)],
    broken: ['over_admitted', 'remaining_not_decremented', 'served_before_retry_after'],
  },
  {
    name: 'a ban answered 403 without Retry-After',
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), forbidden(6, W1, '', { headers: { 'Retry-After': undefined } }), ok(70, 2, T0 + 130)],
    broken: ['refusal_without_retry_after'],
  },
];
