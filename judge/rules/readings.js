// @ts-check
// Every reading an honest implementer may take where the specification is silent or ambiguous,
// named once with the sentence it rests on and what it lets a server do. The window rules judge a
// history under every combination of readings still consistent with it, and raise a finding only
// when none explains it; reports name the readings that did ("What the target chose"). A reading
// the specification forbids is never added to make a server pass. Plain ES2015 without imports:
// k6 loads it by relative path. Append new rows at the end of READINGS.

/**
 * @typedef {'window' | 'reset' | 'remaining' | 'scope' | 'retry_after' | 'ban'} Point
 * @typedef {{ id: string, point: Point, name: string, source: string, allows: string }} Reading
 */

/** @type {Reading[]} */
export const READINGS = [
  {
    id: 'window.fixed-clock',
    point: 'window',
    name: 'fixed windows aligned to the clock minute',
    source: 'Limits › Request rate limits by plan: "Requests per minute"; X-RateLimit-Remaining: "Requests remaining in the current window"',
    allows: 'every slot frees at once at the end of the clock minute; Reset names that end',
  },
  {
    id: 'window.fixed-start',
    point: 'window',
    name: 'fixed windows opened by a key’s first request',
    source: 'Limits › Request rate limits by plan: "Requests per minute" (a minute need not be a clock minute)',
    allows: 'every slot frees at once 60 s after the request that opened the window; Reset names that moment',
  },
  {
    id: 'window.sliding-log',
    point: 'window',
    name: 'sliding log',
    source: 'Limits › Request rate limits by plan: "Requests per minute"; X-RateLimit-Reset: "Unix timestamp at which the limit resets"',
    allows: 'each admitted request holds a slot for 60 s and frees it alone; no 60 s span holds more than Limit admissions',
  },
  {
    id: 'window.moving',
    point: 'window',
    name: 'moving window',
    source: 'Limits › Request rate limits by plan: "Requests per minute" (any 60 s, as Flask-Limiter’s and limits’ moving window read it)',
    allows: 'as the sliding log, with Reset and Remaining read as the next rows allow; no 60 s span holds more than Limit admissions',
  },
  {
    id: 'reset.next-slot',
    point: 'reset',
    name: 'Reset: the next slot frees',
    source: 'Limits › Rate limit response headers: X-RateLimit-Reset, "Unix timestamp at which the limit resets" (the limit admits again)',
    allows: 'Reset names when the oldest held slot frees; it stays put until then',
  },
  {
    id: 'reset.window-empty',
    point: 'reset',
    name: 'Reset: the window is fully empty',
    source: 'Limits › Rate limit response headers: X-RateLimit-Reset, "Unix timestamp at which the limit resets" (Remaining back to Limit)',
    allows:
      'Reset names when the newest held slot frees; in a moving window it moves forward with each admission in a later second, never back while the same requests count, never past now + the window',
  },
  {
    id: 'remaining.at-decision',
    point: 'remaining',
    name: 'Remaining: as of the decision',
    source: 'Limits › Rate limit response headers: X-RateLimit-Remaining, "Requests remaining in the current window"',
    allows: 'Remaining is Limit minus the admissions counted up to and including this one: distinct and consecutive across concurrent answers',
  },
  {
    id: 'remaining.at-answer',
    point: 'remaining',
    name: 'Remaining: as of the answer',
    source:
      'Limits › Rate limit response headers: X-RateLimit-Remaining, "Requests remaining in the current window" (the window when the answer is built, not "as of the decision")',
    allows: 'answers that overlap in time may share or skip values, never below what was admitted; two requests one after the other still show exact values',
  },
  {
    id: 'scope.minute',
    point: 'scope',
    name: 'the headers describe the minute window',
    source: 'Limits › Request rate limits by plan: "Requests per minute" and "Requests per day" (which one the headers describe: not shown)',
    allows: 'Limit is the plan’s per-minute limit and Reset at most a minute ahead',
  },
  {
    id: 'scope.day',
    point: 'scope',
    name: 'the headers describe the day window',
    source: 'Limits › Request rate limits by plan: "Requests per day"; X-RateLimit-Limit: "The limit that applies to the caller"',
    allows: 'Limit is the plan’s per-day limit and Reset at most a day ahead',
  },
  {
    id: 'retry_after.rounded-up',
    point: 'retry_after',
    name: 'Retry-After: whole seconds rounded up',
    source:
      'RFC 9110 §10.2.3: Retry-After = HTTP-date / delay-seconds, "delay-seconds ... the number of seconds to delay after the response is received"; Limits › Other limits: "Format of the `Retry-After` value ... not shown"',
    allows: 'the wait to the moment the limit resets, rounded up to a whole second: a retry once it has passed is admitted',
  },
  {
    id: 'retry_after.nearest',
    point: 'retry_after',
    name: 'Retry-After: whole seconds rounded to the nearest',
    source: 'RFC 9110 §10.2.3: delay-seconds is a whole number of seconds; Limits › Other limits: "Format of the `Retry-After` value ... not shown"',
    allows: 'up to half a second short of the moment the limit resets: a retry within 1 s after it may still be refused with a wait of at most 1 s',
  },
  {
    id: 'retry_after.truncated',
    point: 'retry_after',
    name: 'Retry-After: whole seconds truncated, int(Reset − now)',
    source: 'RFC 9110 §10.2.3: delay-seconds is a whole number of seconds; Limits › Other limits: "Format of the `Retry-After` value ... not shown"',
    allows:
      'up to 1 s short of the moment the limit or the ban ends: a retry within 1 s after it may still be refused with a wait of at most 1 s; one sent later must be admitted',
  },
  {
    id: 'ban.status-429',
    point: 'ban',
    name: 'a ban answered 429',
    source:
      'Errors: "429 | Rate limit exceeded (see Limits) | any"; Limits › Behaviour when the limit is exceeded: "may lead to a temporary ban of the API key"',
    allows: 'every request during the ban is answered 429 with a Retry-After that names the ban’s end, past the window’s',
  },
  {
    id: 'ban.status-403',
    point: 'ban',
    name: 'a ban answered 403',
    source:
      'Limits › Behaviour when the limit is exceeded: "Repeatedly sending requests after a 429 may lead to a temporary ban of the API key" (the status of a ban: not shown); RFC 9110 §15.5.4 403 Forbidden',
    allows:
      'a 403 after a 429 is the ban’s answer, whatever its length; each still carries Retry-After (the client "is expected to wait for the time indicated by the `Retry-After` header"), and the ban lifts when it said',
  },
  {
    id: 'ban.threshold',
    point: 'ban',
    name: 'a ban after any number of repeated refusals',
    source: 'Limits › Behaviour when the limit is exceeded: "Repeatedly sending requests after a 429 may lead to a temporary ban" (how many: not shown)',
    allows: 'the ban begins at any refusal repeated after the first 429, or never; nothing is admitted before the first Retry-After has passed',
  },
  {
    id: 'ban.length',
    point: 'ban',
    name: 'a ban of any length',
    source: 'Limits › Behaviour when the limit is exceeded: "a temporary ban of the API key" (its length: not shown)',
    allows: 'shorter or longer than the window; its Retry-After names its end, nothing is admitted before it, and a request sent after it is admitted',
  },
  {
    id: 'ban.reset-ban-end',
    point: 'ban',
    name: 'during a ban, X-RateLimit-Reset names the ban’s end',
    source:
      'Limits › Rate limit response headers: X-RateLimit-Reset, "Unix timestamp at which the limit resets" (during a ban, the key is admitted again at its end)',
    allows: 'a ban’s answers name its end in Reset, earlier or later than the window’s end',
  },
  {
    id: 'ban.reset-window-end',
    point: 'ban',
    name: 'during a ban, X-RateLimit-Reset names the window’s end',
    source: 'Limits › Rate limit response headers: X-RateLimit-Reset, "Unix timestamp at which the limit resets" (the window beneath the ban)',
    allows: 'a ban’s answers name the window’s end in Reset and the ban’s end only in Retry-After',
  },
];

/** The reading named `id`, or undefined. @param {string} id */
export function readingById(id) {
  for (const r of READINGS) if (r.id === id) return r;
  return undefined;
}
