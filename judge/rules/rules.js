// @ts-check
// Every rate-limit rule, named once: the kind the window rules report, what it demands, where that
// comes from (a section of the specification, an RFC, or a decision of ours, which is never must),
// and the conformance check that reports it, whose level it shares (what must and should mean:
// judge/check-def.ts; a should fails a run only with --strict or STRICT=1). Plain
// ES2015 without imports: k6 loads it by relative path.

/** @typedef {'must' | 'should'} Level */

export const RULES = {
  malformed_headers: {
    level: 'must',
    rule: 'every response carries X-RateLimit-Limit, -Remaining and -Reset as integers',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.limit-constant',
  },
  remaining_negative: {
    level: 'must',
    rule: 'X-RateLimit-Remaining is never negative',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.remaining-decrements',
  },
  remaining_above_limit: {
    level: 'must',
    rule: 'Remaining never exceeds Limit, and an admitted request leaves it below Limit',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.remaining-decrements',
  },
  limit_mismatch: {
    level: 'must',
    rule: "X-RateLimit-Limit is the plan's per-minute limit (PLAN or LIMIT)",
    source: 'Limits › Request rate limits by plan',
    check: 'ratelimit.limit-constant',
  },
  limit_changed: {
    level: 'must',
    rule: 'X-RateLimit-Limit stays the same through the run (no other window becomes binding)',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.limit-constant',
  },
  over_admitted: {
    level: 'must',
    rule: 'no more than Limit requests are admitted in one window, and none after a 429 in the same window',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.exhaustion-exact',
  },
  under_admitted: {
    level: 'must',
    rule: 'no 429 comes before Limit requests have been admitted in a window',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.exhaustion-exact',
  },
  remaining_not_decremented: {
    level: 'must',
    rule: 'every admitted request lowers Remaining (it neither sticks nor rises)',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.remaining-decrements',
  },
  remaining_skipped: {
    level: 'must',
    rule: 'Remaining falls by exactly one per admitted request',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.remaining-decrements',
  },
  remaining_not_reset: {
    level: 'must',
    rule: 'once a window resets, Remaining = Limit - 1 - the admitted requests that still count in the new window (none, for a fixed window)',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.remaining-decrements',
  },
  remaining_nonzero_on_429: {
    level: 'must',
    rule: 'a 429 reports X-RateLimit-Remaining 0',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.429',
  },
  reset_moved: {
    level: 'must',
    rule: 'X-RateLimit-Reset stays put (within rounding) until its window has ended, and never goes back',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.reset-stable',
  },
  reset_in_past: {
    level: 'must',
    rule: 'X-RateLimit-Reset is not earlier than the response',
    source: 'Limits › Rate limit response headers',
    check: 'ratelimit.reset-future',
  },
  reset_too_far: {
    level: 'must',
    rule: 'X-RateLimit-Reset is Unix seconds, no further ahead than the longest window (a day)',
    source: 'Limits › Request rate limits by plan',
    check: 'ratelimit.reset-future',
  },
  retry_after_missing: { level: 'must', rule: 'a 429 carries Retry-After', source: 'Limits › Behaviour when the limit is exceeded', check: 'ratelimit.429' },
  retry_after_invalid: {
    level: 'must',
    rule: 'Retry-After is delay-seconds or an HTTP-date (RFC 9110 §10.2.3)',
    source: 'RFC 9110 §10.2.3',
    check: 'ratelimit.retry-after-valid',
  },
  retry_after_form: {
    level: 'should',
    rule: 'Retry-After is integer delay-seconds of at least 1',
    source: 'decision: spec/rules README (integer delay-seconds)',
    check: 'ratelimit.retry-after-integer',
  },
  retry_after_early: {
    level: 'must',
    rule: 'waiting Retry-After does not end before X-RateLimit-Reset, where a retry would be refused again',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.retry-after-consistent',
  },
  retry_after_late: {
    level: 'must',
    rule: 'Retry-After does not point past X-RateLimit-Reset unless the client provoked a ban',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.retry-after-consistent',
  },
  refusal_cacheable: { level: 'should', rule: 'a 429 carries Cache-Control: no-store (RFC 6585 §4)', source: 'RFC 6585 §4', check: 'ratelimit.429-no-store' },
  not_readmitted: {
    level: 'must',
    rule: 'a request sent once the Retry-After of every earlier 429 has passed is admitted',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.readmitted',
  },
  refusal_without_retry_after: {
    level: 'must',
    rule: 'every refusal repeated after a 429 (a 403 of a ban too) carries Retry-After',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.refused-until-retry',
  },
  served_before_retry_after: {
    level: 'must',
    rule: 'a request sent after a 429, before its Retry-After has passed, is refused',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.refused-until-retry',
  },
  ban_not_enforced: {
    level: 'must',
    rule: 'nothing is admitted while an announced ban lasts',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.refused-until-retry',
  },
  ban_not_lifted: {
    level: 'must',
    rule: 'a ban lifts when its Retry-After said',
    source: 'Limits › Behaviour when the limit is exceeded',
    check: 'ratelimit.ban-lifts',
  },
};

/** Events worth counting; rate-limit.js requires some of them to happen. */
export const EVENTS = [
  'admitted',
  'rejected',
  'transport_error',
  'unexpected_status',
  'window_crossed',
  'window_saturated',
  'readmitted',
  'window_verified',
  'ban_detected',
  'ban_confirmed',
  'ban_held_past_reset',
  'ban_lifted',
];

/** @typedef {keyof typeof RULES} Kind */
