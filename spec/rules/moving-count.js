// @ts-check
// The moving window whose Reset names when the window is fully empty (readings.js: window.moving,
// reset.window-empty): no window can be told by its Reset, which moves forward with every admission
// in a later second. What holds instead: no 60 s span holds more than Limit admissions, Remaining is
// Limit minus the admissions still in the last 60 s (as of the decision, or lower by what overlapping
// requests took, as of the answer), Reset is never before this answer's own slot frees, never past
// now + 60 s, and never goes back while the requests that set it still count.
import { createHeldSlots, WINDOW_SECONDS } from './held-slots.js';
import { slackSeconds } from './snapshot.js';
import { createLowJudge } from './window-count.js';

/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 */

/**
 * @param {import('./judgement.js').Recorder} rec
 * @param {Tolerances} tol
 * @param {{ remaining?: import('./window-count.js').RemainingReading }} [readings]
 */
export function createMovingCount(rec, tol, readings) {
  const atAnswer = !!readings && readings.remaining === 'at-answer';
  const rule = rec.rule;
  const lows = createLowJudge(rec);
  const slots = createHeldSlots(tol);
  let sized = false;
  /** @type {number | null} the latest Reset heard */
  let lastReset = null;
  /** A 429 came after exactly Limit admissions in the last 60 s, every one of them seen. */
  let saturatedExact = false;
  let saturated = false;
  let faults = 0;
  let admittedInWindow = 0;
  rec.onMustViolation(() => {
    faults += 1;
  });

  /**
   * The admitted requests heard so far that count in the 60 s before `s` was decided: surely, and possibly.
   * @param {Snapshot} s
   */
  function held(s) {
    const t = s.serverNowMs / 1000;
    const slack = slackSeconds(s, tol);
    const surely = slots.since(t + slack + tol.roundingSeconds, s);
    const possibly = slots.since(t - slack, s);
    return { atLeast: surely.atLeast, atMost: possibly.atMost, complete: possibly.complete };
  }

  /** Reset against this answer's time and the Reset before it. @param {Snapshot} s */
  function judgeReset(s) {
    const reset = /** @type {number} */ (s.reset);
    const t = s.serverNowMs / 1000;
    const slack = slackSeconds(s, tol);
    const r = tol.roundingSeconds;
    const prior = lastReset;
    const back = prior !== null && reset < prior - r && s.serverNow < prior - slack;
    const early = s.admitted && reset < t - slack + WINDOW_SECONDS - r;
    const far = reset > t + slack + WINDOW_SECONDS + r;
    rule('reset_moved', s, back || early || far, () =>
      back
        ? 'Reset went back from ' + prior + ' to ' + reset + ' while the requests that set it still count'
        : early
          ? 'Reset ' + reset + ' comes before this admitted request’s own slot frees (' + Math.floor(t + WINDOW_SECONDS) + '): the window cannot be empty then'
          : 'Reset ' + reset + ' is more than the ' + WINDOW_SECONDS + ' s window after ' + Math.floor(t)
    );
    if (prior !== null && s.serverNow >= prior - slack && reset > prior + r) rec.event('window_crossed');
    if (prior === null || reset > prior || s.serverNow >= prior - slack) lastReset = reset;
  }

  /** @param {Snapshot} s @param {boolean} overlapped */
  function countAdmitted(s, overlapped) {
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);
    const h = held(s);
    rule(
      'over_admitted',
      s,
      h.atLeast + 1 > limit,
      () => 'request ' + (h.atLeast + 1) + ' admitted within ' + WINDOW_SECONDS + ' s (a moving window) with Limit ' + limit
    );
    const high = remaining > limit - 1 - h.atLeast;
    rule(
      'remaining_not_decremented',
      s,
      high,
      () => 'Remaining ' + remaining + ', but at least ' + h.atLeast + ' request(s) admitted in the ' + WINDOW_SECONDS + ' s before it still count'
    );
    if (!high) {
      const low = h.complete && remaining < limit - 1 - h.atMost;
      const detail = () => 'Remaining ' + remaining + ', but at most ' + h.atMost + ' request(s) were admitted in the ' + WINDOW_SECONDS + ' s before it';
      if (atAnswer) lows.judge('remaining_skipped', s, low, overlapped, detail);
      else rule('remaining_skipped', s, low, detail);
    }
    if (saturated) {
      rec.event('readmitted');
      if (saturatedExact && faults === 0) {
        rec.event('window_verified');
        rec.note('moving window verified: exactly ' + limit + ' admitted within ' + WINDOW_SECONDS + ' s, then 429, then admitted again once a slot freed');
      }
    }
    saturated = false;
    saturatedExact = false;
    admittedInWindow = h.atLeast + 1;
    slots.admitted(s);
  }

  /** @param {Snapshot} s */
  function countRefused(s) {
    const limit = /** @type {number} */ (s.limit);
    const h = held(s);
    slots.heard(s);
    if (saturated) return;
    saturated = true;
    rule(
      'under_admitted',
      s,
      h.complete && h.atMost < limit,
      () => '429 after only ' + h.atMost + ' of ' + limit + ' requests in the ' + WINDOW_SECONDS + ' s before it'
    );
    saturatedExact = h.complete && h.atLeast === limit && h.atMost === limit;
    if (h.atMost >= limit) rec.event('window_saturated');
    faults = 0;
  }

  return {
    /**
     * Counts a usable response.
     * @param {Snapshot} s
     * @param {boolean} _early sent before an earlier 429's Retry-After had passed (refusal-rules.js judges that)
     * @param {boolean} [overlapped] another request of its batch was in flight with it
     */
    count: function (s, _early, overlapped) {
      lows.heard(s);
      if (!sized) {
        slots.fit(/** @type {number} */ (s.limit));
        sized = true;
      }
      judgeReset(s);
      if (s.admitted) countAdmitted(s, !!overlapped);
      else countRefused(s);
    },
    /** A usable answer not counted (inside a ban): an admitted one still holds a slot. @param {Snapshot} s */
    aside: function (s) {
      lows.heard(s);
      if (s.admitted) slots.admitted(s);
      else slots.heard(s);
    },
    /** A request the server may have counted without saying so. @param {Snapshot} s */
    uncertain: function (s) {
      lows.heard(s);
      slots.unknown(s);
    },
    /** @returns {string[]} */
    windowReadings: function () {
      return ['window.moving'];
    },
    current: function () {
      return lastReset === null ? null : { reset: lastReset, admitted: admittedInWindow, saturated: saturated };
    },
  };
}
