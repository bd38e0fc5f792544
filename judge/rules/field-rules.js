// @ts-check
// The rules every single response obeys on its own: a 429's Retry-After and Cache-Control, the
// X-RateLimit-* headers as integers, Remaining within Limit, the expected and an unchanging Limit,
// Reset neither past nor beyond a day. Part of the window rules (window-rules.js).
import { slackSeconds } from '../../spec/rules/snapshot.js';

/**
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('../../spec/rules/snapshot.js').Tolerances} Tolerances
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

  /** The form of a Retry-After a refusal carries, 429 or 403 (reading ban.status-403). @param {Snapshot} s */
  function retryAfterFields(s) {
    const ra = s.retryAfter;
    if (ra.form === 'missing') return;
    rule('retry_after_invalid', s, ra.form === 'invalid', () => 'Retry-After ' + (ra.form === 'invalid' ? ra.reason : ''));
    if (ra.form === 'invalid') return;
    rule(
      'retry_after_form',
      s,
      ra.form !== 'delay-seconds' || ra.seconds < 1,
      () => 'Retry-After ' + JSON.stringify(s.retryAfterRaw) + ' is not integer seconds >= 1'
    );
  }

  /** @param {Snapshot} s */
  function refusalFields(s) {
    rule('retry_after_missing', s, s.retryAfter.form === 'missing', () => '429 without Retry-After');
    retryAfterFields(s);
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
      else if (s.refused) retryAfterFields(s);
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

/**
 * The readings of Retry-After's rounding (readings.js, point retry_after) that one refusal's
 * delay-seconds agrees with, read against its X-RateLimit-Reset and Date (floored to the second):
 * the time left to Reset lies in (Reset − Date − 1, Reset − Date], which rounds up to Reset − Date
 * and truncates or rounds to nearest to either end. Empty when Retry-After names another moment (a
 * ban, or a mismatch the window rules judge); null when it cannot be told (no Date header, an
 * HTTP-date, no Reset).
 * @param {Snapshot} s
 * @returns {string[] | null}
 */
export function retryAfterRounding(s) {
  const ra = s.retryAfter;
  if (s.clock !== 'date-header' || ra.form !== 'delay-seconds' || s.reset === null) return null;
  const left = s.reset - s.serverNow;
  if (ra.seconds === left) return ['retry_after.rounded-up', 'retry_after.nearest', 'retry_after.truncated'];
  if (ra.seconds === left - 1) return ['retry_after.nearest', 'retry_after.truncated'];
  return [];
}
