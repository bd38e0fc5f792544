// @ts-check
// The windows: which one a response belongs to (by its Reset), exactly Limit admitted before the first
// 429, Remaining falling by one, a window verified whole. Before a Reset nothing frees a slot; after
// it Remaining is judged against the requests that still count (held-slots.js; README.md, Which
// window algorithms the rules accept). Remaining is read as of the decision or, with `remaining:
// 'at-answer'` (readings.js), as of the answer: overlapping answers may then share or skip values.
import { createHeldSlots } from './held-slots.js';
import { slackSeconds } from '../../spec/rules/snapshot.js';

/**
 * Judges a Remaining lower than the decision left under "as of the answer": the answer counted
 * admissions decided after its own, and those must be among the answers of the same batch (the
 * requests in flight with it: the arrival buffer and the callers pass them together), heard after
 * it. Settled when the batch ends; a request alone must show the exact value.
 * @param {import('./judgement.js').Recorder} rec
 */
export function createLowJudge(rec) {
  let admittedHeard = 0;
  /** @type {Array<{ kind: import('./rules.js').Kind, s: Snapshot, at: number, needed: number, detail: () => string }>} */
  let claims = [];
  return {
    /** An admitted answer was counted. */
    admitted: function () {
      admittedHeard++;
    },
    /**
     * `needed`: how many admissions after this one would explain its Remaining (0 when none are needed).
     * @param {import('./rules.js').Kind} kind @param {Snapshot} s @param {number} needed @param {() => string} detail
     */
    judge: function (kind, s, needed, detail) {
      if (needed > 0) claims.push({ kind: kind, s: s, at: admittedHeard, needed: needed, detail: detail });
      else rec.rule(kind, s, false, detail);
    },
    /** The batch ended: every claim is explained by the admissions heard after it, or broken. */
    /** @returns {boolean} whether every claim was explained */
    settle: function () {
      let explained = true;
      for (const c of claims) {
        const after = admittedHeard - c.at - 1;
        if (after < c.needed) explained = false;
        rec.rule(c.kind, c.s, after < c.needed, () => c.detail() + ' (' + after + ' admitted with it in flight could explain ' + c.needed + ')');
      }
      claims = [];
      return explained;
    },
  };
}

/**
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('../../spec/rules/snapshot.js').Tolerances} Tolerances
 * @typedef {object} Window
 * @property {number} reset
 * @property {number} limit
 * @property {number} admitted admitted requests counted in it (seeded from Remaining when joined late)
 * @property {number | null} lastRemaining
 * @property {number} lastBatch the batch that answer was heard in
 * @property {boolean} counted its count is known: it was seen to begin, or Remaining said it (as of the answer: once a batch of it settled)
 * @property {boolean} tracked it was seen to begin, so its counts are exact
 * @property {boolean} uncertain a request got no response: the server may have counted it
 * @property {boolean} saturated a 429 was seen in it
 * @property {number} faults must-level rules broken while in it
 */

/**
 * @param {Snapshot} s @param {boolean} tracked
 * @param {boolean} [atAnswer] Remaining as of the answer: a first answer may have counted requests decided after it
 * @returns {Window}
 */
function open(s, tracked, atAnswer) {
  const limit = /** @type {number} */ (s.limit);
  const remaining = /** @type {number} */ (s.remaining);
  const trusted = !tracked && s.admitted && !atAnswer;
  return {
    reset: /** @type {number} */ (s.reset),
    limit: limit,
    // Joined late: trust Remaining for what was spent before us (as of the decision only); a first 429 means all of it.
    admitted: tracked || (s.admitted && atAnswer) ? 0 : s.admitted ? Math.max(0, limit - remaining - 1) : limit,
    lastRemaining: trusted ? remaining + 1 : null,
    lastBatch: -1,
    counted: tracked || !atAnswer,
    tracked: tracked,
    uncertain: false,
    saturated: false,
    faults: 0,
  };
}

/** @typedef {'at-decision' | 'at-answer'} RemainingReading */

/**
 * @param {import('./judgement.js').Recorder} rec
 * @param {Tolerances} tol
 * @param {{ remaining?: RemainingReading }} [readings]
 */
export function createWindowCount(rec, tol, readings) {
  const atAnswer = !!readings && readings.remaining === 'at-answer';
  const lows = createLowJudge(rec);
  /** Which fixed or sliding algorithm the Resets seen still allow (readings.js ids). */
  const shapes = { clock: true, fixed: true, sliding: true };
  const rule = rec.rule;
  const event = rec.event;
  /** @type {Window | null} */
  let win = null;
  /** @type {Window | null} the window before a legitimate crossing, until its successor's first response */
  let previous = null;
  /** Batches settled so far: an answer of a later batch was sent after the earlier answers arrived. */
  let batches = 0;
  /**
   * A request of this batch the server may have counted unheard: it was decided at some unknown place in
   * the batch (arrange() puts it first), so every window the batch reaches may hold it, also one not yet
   * opened when it was heard (the key's first, a crossing's next).
   */
  let uncertainInBatch = false;
  const slots = createHeldSlots(tol);
  rec.onMustViolation(() => {
    if (win) win.faults += 1;
  });

  /**
   * Which window the snapshot belongs to; null when Reset went back and the snapshot cannot count.
   * `freed`: its Reset may have passed before it was decided, so a slot may have freed.
   * @param {Snapshot} s
   * @returns {{ w: Window, first: boolean, freed: boolean } | null}
   */
  function place(s) {
    const reset = /** @type {number} */ (s.reset);
    if (win === null) {
      win = open(s, false, atAnswer);
      slots.fit(win.limit);
      rec.note('joined the window that resets at ' + reset + ' with ' + win.admitted + ' request(s) spent before this run');
      return { w: win, first: false, freed: false };
    }
    const current = win;
    const moved = Math.abs(reset - current.reset) > tol.roundingSeconds;
    const ended = s.serverNow >= current.reset - slackSeconds(s, tol);
    const crossing = moved && reset > current.reset && ended;
    rule('reset_moved', s, moved && !crossing, () =>
      reset < current.reset
        ? 'Reset went back from ' + current.reset + ' to ' + reset
        : 'Reset changed from ' + current.reset + ' to ' + reset + ' at ' + s.serverNow + ', ' + (current.reset - s.serverNow) + ' s before that window ended'
    );
    if (!moved) return { w: current, first: false, freed: ended };
    if (reset < current.reset) return null;
    if (!crossing) {
      win = open(s, false, atAnswer);
      previous = null;
      return { w: win, first: false, freed: false };
    }
    event('window_crossed');
    if (reset - current.reset < 60 - tol.roundingSeconds) shapes.fixed = shapes.clock = false;
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
    return { w: win, first: true, freed: true };
  }

  /**
   * Remaining of an admitted answer that may follow a freed slot, against the admitted requests
   * that still count in its window; returns whether the log could say exactly, and what it holds.
   * @param {Snapshot} s @param {Window} w
   */
  function judgeHeld(s, w) {
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);
    const held = slots.since(/** @type {number} */ (s.reset), s);
    const exact = held.complete && !w.uncertain;
    const high = remaining > limit - 1 - held.atLeast;
    const low = exact && remaining < limit - 1 - held.atMost;
    const detail = () =>
      high
        ? 'Remaining ' +
          remaining +
          ' in the window resetting at ' +
          s.reset +
          ', but at least ' +
          held.atLeast +
          ' request(s) admitted since it began still count in it'
        : 'Remaining ' +
          remaining +
          ' in the window resetting at ' +
          s.reset +
          ', expected at least ' +
          (limit - 1 - held.atMost) +
          ': at most ' +
          held.atMost +
          ' request(s) were admitted since it began';
    if (atAnswer && !high) lows.judge('remaining_not_reset', s, exact ? limit - 1 - held.atMost - remaining : 0, detail);
    else rule('remaining_not_reset', s, high || low, detail);
    return { exact: exact, atLeast: held.atLeast, atMost: held.atMost };
  }

  /**
   * @param {Snapshot} s @param {Window} w @param {boolean} first @param {boolean} freed @param {boolean} early
   */
  function countAdmitted(s, w, first, freed, early) {
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);
    if (freed) {
      // A slot may have freed since the last answer: Remaining may rise, and a 429 no longer
      // closes the window. What still holds is the count of the requests that still count in it.
      const held = judgeHeld(s, w);
      const exact = held.exact;
      const before = first ? previous : w.saturated ? w : null;
      if (before !== null && before.saturated) {
        event('readmitted');
        if (before.tracked && !before.uncertain && before.faults === 0 && before.admitted === before.limit) {
          event('window_verified');
          rec.note('window resetting at ' + before.reset + ' verified: exactly ' + before.limit + ' admitted, then 429, then admitted again after the reset');
        }
      }
      if (!first) {
        // The same Reset within rounding, past its moment: a sliding window freed its oldest slot.
        w.reset = Math.max(w.reset, /** @type {number} */ (s.reset));
        w.saturated = false;
      }
      w.tracked = exact;
      // As of the answer, Remaining may already count requests decided after this one: what the log
      // surely holds is the count, exact once the batch settles unless the log says exactly.
      w.admitted = atAnswer ? held.atLeast + 1 : Math.max(1, limit - remaining);
      if (atAnswer) w.counted = exact && held.atLeast === held.atMost;
      w.lastRemaining = remaining;
      w.lastBatch = batches;
      slots.admitted(s);
      lows.admitted();
      return;
    }
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
    if (atAnswer) {
      // As of the answer: never above what the decision left, and lower only by what overlapping requests
      // took; a value may repeat only within one batch (requests in flight together).
      const expected = w.limit - 1 - w.admitted;
      const ceiling = last === null ? Infinity : w.lastBatch < batches ? last - 1 : last;
      const high = remaining > ceiling || remaining > expected;
      rule('remaining_not_decremented', s, high, () =>
        remaining > ceiling
          ? 'Remaining ' + remaining + ' after ' + last + ' for an admitted request'
          : 'Remaining ' + remaining + ' after ' + w.admitted + ' admitted request(s) in a window of ' + w.limit
      );
      if (!high && !w.uncertain)
        lows.judge(
          'remaining_skipped',
          s,
          w.counted ? expected - remaining : 0,
          () => 'Remaining ' + remaining + ' for admitted request ' + (w.admitted + 1) + ' of ' + w.limit
        );
    } else if (last !== null) {
      rule('remaining_not_decremented', s, remaining >= last, () => 'Remaining ' + remaining + ' after ' + last + ' for an admitted request');
      if (remaining < last && !w.uncertain)
        rule('remaining_skipped', s, remaining < last - 1, () => 'Remaining fell from ' + last + ' to ' + remaining + ' for one admitted request');
    }
    w.admitted += 1;
    w.lastRemaining = remaining;
    w.lastBatch = batches;
    slots.admitted(s);
    lows.admitted();
  }

  /** @param {Snapshot} s @param {Window} w @param {boolean} first */
  function countRefused(s, w, first) {
    slots.heard(s);
    if (w.saturated) return;
    w.saturated = true;
    if (first) {
      // A window whose first answer is a 429: full only if Limit admitted requests still count in it.
      const held = slots.since(/** @type {number} */ (s.reset), s);
      w.tracked = held.complete;
      w.admitted = held.complete ? Math.min(held.atMost, w.limit) : w.limit;
    }
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
      const reset = /** @type {number} */ (s.reset);
      const offMinute = Math.min(reset % 60, 60 - (reset % 60));
      if (offMinute > tol.roundingSeconds) shapes.clock = false;
      const placed = place(s);
      if (placed === null) return;
      if (uncertainInBatch) placed.w.uncertain = true;
      if (s.admitted) countAdmitted(s, placed.w, placed.first, placed.freed, early);
      else countRefused(s, placed.w, placed.first);
      if (placed.first) previous = null;
    },
    /**
     * A usable answer that is not counted in a window (inside a ban): an admitted one still holds a slot.
     * @param {Snapshot} s
     */
    aside: function (s) {
      if (s.admitted) slots.admitted(s);
      else slots.heard(s);
    },
    /**
     * An admitted answer whose headers describe another window of the key (readings scope.minute,
     * scope.day): it holds a slot here too, and counts in this window unless that may have ended.
     * @param {Snapshot} s
     */
    alsoAdmitted: function (s) {
      slots.admitted(s);
      const w = win;
      if (w === null) return;
      if (s.serverNow >= w.reset - slackSeconds(s, tol)) w.uncertain = true;
      else w.admitted += 1;
    },
    /**
     * A request got no response, or one the limiter did not decide: the window's counts are no longer exact.
     * @param {Snapshot} s
     */
    uncertain: function (s) {
      uncertainInBatch = true;
      if (win) win.uncertain = true;
      slots.unknown(s);
    },
    /** The batch ended: Remaining read as of the answer is explained by what the batch admitted after it, or not. */
    settle: function () {
      const explained = lows.settle();
      batches++;
      uncertainInBatch = false;
      // As of the answer: the lowest Remaining of the batch counted every admission decided before it
      // was built, so every later request is decided after at least that many.
      const w = win;
      if (atAnswer && explained && w !== null && w.lastRemaining !== null) {
        w.admitted = Math.max(w.admitted, w.limit - w.lastRemaining);
        w.counted = true;
      }
    },
    /** The window readings (readings.js ids) the Resets seen so far allow. @returns {string[]} */
    windowReadings: function () {
      /** @type {string[]} */
      const ids = [];
      if (shapes.clock) ids.push('window.fixed-clock');
      if (shapes.fixed) ids.push('window.fixed-start');
      if (shapes.sliding) ids.push('window.sliding-log');
      return ids;
    },
    /** The current window, for reports. */
    current: function () {
      const w = win;
      return w === null ? null : { reset: w.reset, admitted: w.admitted, saturated: w.saturated };
    },
  };
}
