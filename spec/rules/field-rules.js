// @ts-check
// The rules every single response obeys on its own: a 429's Retry-After and Cache-Control, the
// X-RateLimit-* headers as integers, Remaining within Limit, the expected and an unchanging Limit,
// Reset neither past nor beyond a day. Part of the window rules (window-rules.js).
import { slackSeconds } from './snapshot.js';

/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 */

/**
 * @param {import('./judgement.js').Recorder} rec
 * @param {{ expectedLimit: number | null, tolerances: Tolerances }} options
 */
export function createFieldRules(rec, options) {
  const expected = options.expectedLimit;
  const tol = options.tolerances;
  const rule = rec.rule;
  /** @type {number | null} */
  let knownLimit = null;

  /** @param {Snapshot} s */
  function refusalFields(s) {
    const ra = s.retryAfter;
    rule('retry_after_missing', s, ra.form === 'missing', () => '429 without Retry-After');
    if (ra.form !== 'missing') rule('retry_after_invalid', s, ra.form === 'invalid', () => 'Retry-After ' + (ra.form === 'invalid' ? ra.reason : ''));
    if (ra.form !== 'missing' && ra.form !== 'invalid') {
      rule(
        'retry_after_form',
        s,
        ra.form !== 'delay-seconds' || ra.seconds < 1,
        () => 'Retry-After ' + JSON.stringify(s.retryAfterRaw) + ' is not integer seconds >= 1'
      );
    }
    rule(
      'refusal_cacheable',
      s,
      !/(^|,)[ \t]*no-store[ \t]*(,|$)/i.test(s.cacheControl || ''),
      () => '429 with Cache-Control ' + JSON.stringify(s.cacheControl === undefined ? null : s.cacheControl)
    );
  }

  return {
    /**
     * Judges one response's fields; false when its numbers cannot be used for counting.
     * @param {Snapshot} s
     */
    check: function (s) {
      const refused = s.status === 429;
      if (refused) refusalFields(s);
      rule('malformed_headers', s, s.malformed.length > 0, () => 'status ' + s.status + ': ' + s.malformed.join(', ') + ' missing or not an integer');
      if (s.malformed.length > 0) return false;
      const limit = /** @type {number} */ (s.limit);
      const remaining = /** @type {number} */ (s.remaining);
      const reset = /** @type {number} */ (s.reset);
      const slack = slackSeconds(s, tol);
      rule('remaining_negative', s, remaining < 0, () => 'Remaining ' + remaining + ' (status ' + s.status + ')');
      rule(
        'remaining_above_limit',
        s,
        remaining > limit || (s.admitted && remaining >= limit),
        () => 'Remaining ' + remaining + ' with Limit ' + limit + ' (status ' + s.status + ')'
      );
      if (expected !== null) rule('limit_mismatch', s, limit !== expected, () => 'Limit ' + limit + ', expected ' + expected);
      if (knownLimit !== null) {
        const before = knownLimit;
        rule('limit_changed', s, limit !== before, () => 'Limit went from ' + before + ' to ' + limit);
      }
      knownLimit = limit;
      if (refused) rule('remaining_nonzero_on_429', s, remaining !== 0, () => '429 with Remaining ' + remaining);
      rule(
        'reset_in_past',
        s,
        reset < s.serverNow - slack,
        () => 'Reset ' + reset + ' is ' + (s.serverNow - reset) + ' s before the response time ' + s.serverNow
      );
      rule(
        'reset_too_far',
        s,
        reset > s.serverNow + tol.maxWindowSeconds + slack,
        () => 'Reset ' + reset + ' is ' + (reset - s.serverNow) + ' s after the response time ' + s.serverNow + ', more than a day (milliseconds?)'
      );
      return remaining >= 0;
    },
    /** The Limit seen so far; null before the first usable response. */
    knownLimit: function () {
      return knownLimit;
    },
  };
}
