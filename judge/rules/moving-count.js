// @ts-check
// The moving window whose Reset names when the window is fully empty (readings.js: window.moving,
// reset.window-empty): no window can be told by its Reset, which moves forward with every admission
// in a later second. What holds instead: no 60 s span holds more than Limit admissions, Remaining is
// Limit minus the admissions still in the last 60 s (as of the decision, or lower by what overlapping
// requests took, as of the answer), Reset is never before this answer's own slot frees, never past
// now + 60 s, and never goes back while the requests that set it still count.
import { WINDOW_SECONDS } from './held-slots.js';
import { slackSeconds } from '../../spec/rules/snapshot.js';
import { createLowJudge } from './window-count.js';

/**
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('../../spec/rules/snapshot.js').Tolerances} Tolerances
 * @typedef {{ lo: number, hi: number }} Span when a request was decided, in ms on the key's one clock
 */

const WINDOW_MS = WINDOW_SECONDS * 1000;
/** A Date header is floored to the second, and may be written a little before or after the decision. */
const DATE_MARGIN_MS = 250;

/**
 * When the server decided `s`, on one clock for the whole key, so that two requests' distance is
 * known better than either's moment: its Date header's second, else between sending and receiving.
 * @param {Snapshot} s
 * @returns {Span}
 */
export function decidedWithin(s) {
  if (s.clock === 'date-header') return { lo: s.serverNowMs - DATE_MARGIN_MS, hi: s.serverNowMs + 1000 + DATE_MARGIN_MS };
  return { lo: Math.min(s.sentAtMs, s.receivedAtMs), hi: s.receivedAtMs };
}

/**
 * @param {import('./judgement.js').Recorder} rec
 * @param {Tolerances} tol
 * @param {{ remaining?: import('./window-count.js').RemainingReading }} [readings]
 */
export function createMovingCount(rec, tol, readings) {
  const atAnswer = !!readings && readings.remaining === 'at-answer';
  const rule = rec.rule;
  const lows = createLowJudge(rec);
  let cap = 64;
  /** @type {Span[]} admitted requests that may still count, in the order heard */
  let log = [];
  /** Latest moment of a request the server may have counted without saying so, or of one dropped for room. */
  let unknownHi = -Infinity;
  /** What the first answer said was spent before this run: how many, and until when they may count. */
  let prior = { count: 0, hi: -Infinity, sentMs: -Infinity };
  let started = false;
  /** The first batch, until it settles: what was spent before it is known only then. */
  const first = { open: false, limit: 0, lowest: Infinity, admitted: 0 };
  /** @type {number | null} the latest Reset heard */
  let lastReset = null;
  /** @type {Span | null} when the answer that named it was decided */
  let lastResetAt = null;
  /** A 429 came after exactly Limit admissions in the last 60 s, every one of them seen. */
  let saturatedExact = false;
  let saturated = false;
  let faults = 0;
  let admittedInWindow = 0;
  rec.onMustViolation(() => {
    faults += 1;
  });

  /** @param {Span} at */
  function prune(at) {
    const keep = log.findIndex((e) => at.lo - e.hi < WINDOW_MS + 5000);
    if (keep !== 0) log = keep < 0 ? [] : log.slice(keep);
  }

  /**
   * The first answer: what the first batch says was spent before the run may count for up to a
   * window; read once the batch settles, from its lowest Remaining (as of the answer, it may count
   * the batch's own admissions). A first refusal means all of it. @param {Snapshot} s @param {Span} at
   */
  function start(s, at) {
    started = true;
    const limit = /** @type {number} */ (s.limit);
    cap = Math.max(64, Math.min(20000, 4 * limit + 64));
    prior = { count: s.admitted ? 0 : limit, hi: at.hi, sentMs: s.sentAtMs };
    first.open = s.admitted;
    first.limit = limit;
  }

  /**
   * The admitted requests heard so far that count in the 60 s before `at`: surely, and possibly;
   * `complete` when none the server may have counted went unheard. What was spent before the run
   * surely still counts only while no time has passed on the client's clock since its first answer
   * was sent: any of it may be a whole window old a moment later.
   * @param {Span} at @param {Snapshot} s
   */
  function held(at, s) {
    let atLeast = 0;
    let atMost = 0;
    for (const e of log) {
      if (at.hi - e.lo < WINDOW_MS) atLeast++;
      if (at.lo - e.hi < WINDOW_MS) atMost++;
    }
    if (at.lo - prior.hi < WINDOW_MS) atMost += prior.count;
    if (s.receivedAtMs <= prior.sentMs) atLeast += prior.count;
    return { atLeast: atLeast, atMost: atMost, complete: !first.open && at.lo - unknownHi >= WINDOW_MS };
  }

  /**
   * Reset against the newest admission (its slot frees last: then the window is empty), this
   * answer's time, and the Reset before it. @param {Snapshot} s @param {Span} at
   */
  function judgeReset(s, at) {
    const reset = /** @type {number} */ (s.reset);
    const t = s.serverNowMs / 1000;
    const slack = slackSeconds(s, tol);
    const r = tol.roundingSeconds;
    // The key's one clock against the server's: none with a Date header, else the client's skew.
    const skew = s.clock === 'date-header' ? 0 : tol.clockSkewSeconds;
    const newest = s.admitted ? at : log.length > 0 ? /** @type {Span} */ (log[log.length - 1]) : null;
    const before = lastReset;
    const back = before !== null && reset < before - r && s.serverNow < before - slack;
    const early = newest !== null && reset < newest.lo / 1000 - skew + WINDOW_SECONDS - r;
    // A refusal's newest admission is the newest heard only when none went unheard.
    const late =
      newest !== null && reset > newest.hi / 1000 + skew + WINDOW_SECONDS + r && (s.admitted || (at.lo - newest.hi < WINDOW_MS && held(at, s).complete));
    const far = reset > t + slack + WINDOW_SECONDS + r;
    const jump = before !== null && lastResetAt !== null && reset > before + r && reset - before > (at.hi - lastResetAt.lo) / 1000 + r;
    rule('reset_moved', s, back || early || late || far || jump, () =>
      back
        ? 'Reset went back from ' + before + ' to ' + reset + ' while the requests that set it still count'
        : early
          ? 'Reset ' + reset + ' comes before the newest admitted request’s slot frees: the window cannot be empty then'
          : late || far
            ? 'Reset ' + reset + ' is more than the ' + WINDOW_SECONDS + ' s window after the newest admission or this answer'
            : 'Reset moved from ' + before + ' to ' + reset + ', further than the time between the answers'
    );
    if (before !== null && s.serverNow >= before - slack && reset > before + r) rec.event('window_crossed');
    if (before === null || reset > before || s.serverNow >= before - slack) {
      lastReset = reset;
      lastResetAt = at;
    }
  }

  /** @param {Snapshot} s @param {Span} at */
  function countAdmitted(s, at) {
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);
    const h = held(at, s);
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
      const short = h.complete ? limit - 1 - h.atMost - remaining : 0;
      const detail = () => 'Remaining ' + remaining + ', but at most ' + h.atMost + ' request(s) were admitted in the ' + WINDOW_SECONDS + ' s before it';
      if (atAnswer) lows.judge('remaining_skipped', s, short, detail);
      else rule('remaining_skipped', s, short > 0, detail);
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
    if (first.open) {
      first.lowest = Math.min(first.lowest, remaining);
      first.admitted++;
    }
    admit(at);
  }

  /** @param {Span} at */
  function admit(at) {
    log.push(at);
    lows.admitted();
    if (log.length > cap) {
      // The oldest half at once, so that keeping the log bounded costs nothing per answer.
      const dropped = log.slice(0, Math.ceil(cap / 2));
      log = log.slice(dropped.length);
      for (const e of dropped) unknownHi = Math.max(unknownHi, e.hi);
    }
  }

  /** @param {Snapshot} s @param {Span} at */
  function countRefused(s, at) {
    const limit = /** @type {number} */ (s.limit);
    if (saturated) return;
    const h = held(at, s);
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
     */
    count: function (s, _early) {
      const at = decidedWithin(s);
      if (!started) start(s, at);
      prune(at);
      judgeReset(s, at);
      if (s.admitted) countAdmitted(s, at);
      else countRefused(s, at);
    },
    /** A usable answer not counted (inside a ban): an admitted one still holds a slot. @param {Snapshot} s */
    aside: function (s) {
      if (s.admitted) admit(decidedWithin(s));
    },
    /** A request the server may have counted without saying so. @param {Snapshot} s */
    uncertain: function (s) {
      unknownHi = Math.max(unknownHi, decidedWithin(s).hi);
    },
    /** The batch ended. */
    settle: function () {
      lows.settle();
      if (!first.open) return;
      first.open = false;
      prior.count = Math.max(0, first.limit - first.lowest - first.admitted);
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
