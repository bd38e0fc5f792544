// @ts-check
// The windows themselves: which window a response belongs to (by its Reset: a legitimate crossing
// once the window has ended, a moved Reset otherwise), how many requests each admitted, whether it
// admitted exactly Limit before its first 429 and Remaining fell by one each time, and a window
// seen whole from its first request to its readmission (verified). Part of the window rules
// (window-rules.js). Plain ES2015 without imports outside spec/rules.
import { slackSeconds } from './snapshot.js';

/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 * @typedef {object} Window
 * @property {number} reset
 * @property {number} limit
 * @property {number} admitted admitted requests counted in it (seeded from Remaining when joined late)
 * @property {number | null} lastRemaining
 * @property {boolean} tracked it was seen to begin, so its counts are exact
 * @property {boolean} uncertain a request got no response: the server may have counted it
 * @property {boolean} saturated a 429 was seen in it
 * @property {number} faults must-level rules broken while in it
 */

/** @param {Snapshot} s @param {boolean} tracked @returns {Window} */
function open(s, tracked) {
  const limit = /** @type {number} */ (s.limit);
  const remaining = /** @type {number} */ (s.remaining);
  return {
    reset: /** @type {number} */ (s.reset),
    limit: limit,
    // Joined late: trust Remaining for what was spent before us; a first 429 means all of it.
    admitted: tracked ? 0 : s.admitted ? Math.max(0, limit - remaining - 1) : limit,
    lastRemaining: tracked || !s.admitted ? null : remaining + 1,
    tracked: tracked,
    uncertain: false,
    saturated: false,
    faults: 0,
  };
}

/**
 * @param {import('./judgement.js').Recorder} rec
 * @param {Tolerances} tol
 */
export function createWindowCount(rec, tol) {
  const rule = rec.rule;
  const event = rec.event;
  /** @type {Window | null} */
  let win = null;
  /** @type {Window | null} the window before a legitimate crossing, until its successor's first response */
  let previous = null;
  rec.onMustViolation(() => {
    if (win) win.faults += 1;
  });

  /**
   * Which window the snapshot belongs to; null when Reset went back and the snapshot cannot count.
   * @param {Snapshot} s
   * @returns {{ w: Window, first: boolean } | null}
   */
  function place(s) {
    const reset = /** @type {number} */ (s.reset);
    if (win === null) {
      win = open(s, false);
      rec.note('joined the window that resets at ' + reset + ' with ' + win.admitted + ' request(s) spent before this run');
      return { w: win, first: false };
    }
    const current = win;
    const moved = Math.abs(reset - current.reset) > tol.roundingSeconds;
    const crossing = moved && reset > current.reset && s.serverNow >= current.reset - slackSeconds(s, tol);
    rule('reset_moved', s, moved && !crossing, () =>
      reset < current.reset
        ? 'Reset went back from ' + current.reset + ' to ' + reset
        : 'Reset changed from ' + current.reset + ' to ' + reset + ' at ' + s.serverNow + ', ' + (current.reset - s.serverNow) + ' s before that window ended'
    );
    if (!moved) return { w: current, first: false };
    if (reset < current.reset) return null;
    if (!crossing) {
      win = open(s, false);
      previous = null;
      return { w: win, first: false };
    }
    event('window_crossed');
    rec.note(
      'window boundary crossed: Reset ' +
        current.reset +
        ' -> ' +
        reset +
        ' (' +
        current.admitted +
        ' admitted in the window that ended' +
        (current.saturated ? ', 429 at the limit' : '') +
        ')'
    );
    previous = current;
    win = open(s, true);
    return { w: win, first: true };
  }

  /** @param {Snapshot} s @param {Window} w @param {boolean} first @param {boolean} early */
  function countAdmitted(s, w, first, early) {
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);
    const last = w.lastRemaining;
    rule(
      'over_admitted',
      s,
      w.admitted + 1 > w.limit || (w.saturated && !early),
      () =>
        'request ' +
        (w.admitted + 1) +
        ' admitted in the window resetting at ' +
        w.reset +
        ' with Limit ' +
        w.limit +
        (w.saturated ? ', after a 429 in the same window' : '')
    );
    if (last === null && w.tracked && !w.uncertain) {
      rule(
        'remaining_not_reset',
        s,
        remaining !== limit - 1,
        () => 'first request of the window resetting at ' + w.reset + ' saw Remaining ' + remaining + ', expected ' + (limit - 1)
      );
    } else if (last !== null) {
      rule('remaining_not_decremented', s, remaining >= last, () => 'Remaining ' + remaining + ' after ' + last + ' for an admitted request');
      if (remaining < last && !w.uncertain)
        rule('remaining_skipped', s, remaining < last - 1, () => 'Remaining fell from ' + last + ' to ' + remaining + ' for one admitted request');
    }
    w.admitted += 1;
    w.lastRemaining = remaining;
    const before = previous;
    if (first && before !== null && before.saturated) {
      event('readmitted');
      if (before.tracked && !before.uncertain && before.faults === 0 && before.admitted === before.limit) {
        event('window_verified');
        rec.note('window resetting at ' + before.reset + ' verified: exactly ' + before.limit + ' admitted, then 429, then admitted again after the reset');
      }
    }
  }

  /** @param {Snapshot} s @param {Window} w */
  function countRefused(s, w) {
    if (w.saturated) return;
    w.saturated = true;
    rule(
      'under_admitted',
      s,
      w.admitted < w.limit && !w.uncertain,
      () => '429 after only ' + w.admitted + ' of ' + w.limit + ' requests in the window resetting at ' + w.reset
    );
    if (w.admitted === w.limit && w.lastRemaining !== null) event('window_saturated');
  }

  return {
    /**
     * Counts a usable response in its window.
     * @param {Snapshot} s
     * @param {boolean} early sent before an earlier 429's Retry-After had passed
     */
    count: function (s, early) {
      const placed = place(s);
      if (placed === null) return;
      if (s.admitted) countAdmitted(s, placed.w, placed.first, early);
      else countRefused(s, placed.w);
      if (placed.first) previous = null;
    },
    /** A request got no response, or one the limiter did not decide: the window's counts are no longer exact. */
    uncertain: function () {
      if (win) win.uncertain = true;
    },
    /** The current window, for reports. */
    current: function () {
      const w = win;
      return w === null ? null : { reset: w.reset, admitted: w.admitted, saturated: w.saturated };
    },
  };
}
