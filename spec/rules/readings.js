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
];

/** The reading named `id`, or undefined. @param {string} id */
export function readingById(id) {
  for (const r of READINGS) if (r.id === id) return r;
  return undefined;
}
