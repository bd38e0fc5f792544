// @ts-check
// The rate-limit rules as a state machine, fed every snapshot one client observes for one key in
// the order the requests were made. The conformance kit and rate-limit.js both judge a limiter with
// it: the kit maps each broken rule to a check id, rate-limit.js to a k6 threshold. It is exact only
// if it sees every request made with the key. Requests sent at once (http.batch) reach the server in
// an order nobody knows, so a batch is passed in whole and ordered the only way a correct
// fixed-window limiter could have answered it: by window (Reset), admitted first, most Remaining
// first. Plain ES2015 without imports outside spec/rules: k6 loads it by relative path.
import { RULES } from './rules.js';
import { DEFAULT_TOLERANCES, retryAtSeconds, retryWaitMs, slackSeconds } from './snapshot.js';

/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 * @typedef {import('./rules.js').Level} Level
 * @typedef {import('./rules.js').Kind} Kind
 */

/**
 * @typedef {{ kind: Kind, level: Level, rule: string, detail: string, refs: unknown[] }} Violation
 * @typedef {{ kind: Kind, ref: unknown }} Judgement a rule that was judged on a snapshot (broken or not)
 * @typedef {{ violations: Violation[], judged: Judgement[], events: string[], notes: string[] }} Outcome
 * @typedef {object} Window
 * @property {number} reset
 * @property {number} limit
 * @property {number} admitted admitted requests counted in it (seeded from Remaining when joined late)
 * @property {number | null} lastRemaining
 * @property {boolean} tracked it was seen to begin, so its counts are exact
 * @property {boolean} uncertain a request got no response: the server may have counted it
 * @property {boolean} saturated a 429 was seen in it
 * @property {number} faults must-level rules broken while in it
 * @typedef {object} Episode the refusals since the last admitted request
 * @property {number} startMs when its first 429 arrived (client clock)
 * @property {number | null} dueMs when every Retry-After announced so far has passed (client clock)
 * @property {number | null} baseline the later of the first 429's Retry-After and Reset (server seconds)
 * @property {boolean} provoked the client retried before a Retry-After had passed
 * @property {number | null} banDueMs when the announced ban ends (client clock)
 * @property {unknown} ref the 429 that began it
 */

/** @param {Snapshot[]} batch */
function ordered(batch) {
  return batch.slice().sort((a, b) => {
    const ra = a.reset === null ? 0 : a.reset;
    const rb = b.reset === null ? 0 : b.reset;
    if (ra !== rb) return ra - rb;
    if (a.admitted !== b.admitted) return a.admitted ? -1 : 1;
    return (b.remaining === null ? 0 : b.remaining) - (a.remaining === null ? 0 : a.remaining);
  });
}

/**
 * @param {{ expectedLimit?: number | null, tolerances?: Partial<Tolerances> }} [options]
 */
export function createWindowRules(options) {
  const opts = options || {};
  const expected = opts.expectedLimit === undefined ? null : opts.expectedLimit;
  /** @type {Tolerances} */
  const tol = Object.assign({}, DEFAULT_TOLERANCES, opts.tolerances || {});
  /** @type {Window | null} */
  let win = null;
  /** @type {Window | null} the window before a legitimate crossing, until its successor's first response */
  let previous = null;
  /** @type {Episode | null} */
  let episode = null;
  /** @type {number | null} */
  let knownLimit = null;
  let banSeen = false;
  /** @type {Record<string, number>} */
  const counts = {};
  /** @type {Record<string, string>} */
  const firstDetail = {};
  /** @type {Record<string, number>} */
  const eventCounts = {};
  /** @type {Outcome} */
  let out = { violations: [], judged: [], events: [], notes: [] };

  /** @param {Kind} kind @param {Snapshot} s */
  const judge = (kind, s) => out.judged.push({ kind: kind, ref: s.ref });
  /** @param {Kind} kind @param {Snapshot} s @param {string} detail @param {unknown} [related] */
  const violate = (kind, s, detail, related) => {
    out.violations.push({ kind: kind, level: /** @type {Level} */ (RULES[kind].level), rule: RULES[kind].rule, detail: detail, refs: related === undefined ? [s.ref] : [related, s.ref] });
    counts[kind] = (counts[kind] || 0) + 1;
    if (firstDetail[kind] === undefined) firstDetail[kind] = detail;
    if (win && RULES[kind].level === 'must') win.faults += 1;
  };
  /** @param {Kind} kind @param {Snapshot} s @param {boolean} broken @param {() => string} detail @param {unknown} [related] */
  const rule = (kind, s, broken, detail, related) => {
    judge(kind, s);
    if (broken) violate(kind, s, detail(), related);
  };
  /** @param {string} name */
  const event = (name) => {
    out.events.push(name);
    eventCounts[name] = (eventCounts[name] || 0) + 1;
  };

  /**
   * Rules every single response obeys; false when its numbers cannot be used for counting.
   * @param {Snapshot} s
   */
  function fieldRules(s) {
    const refused = s.status === 429;
    if (refused) {
      const ra = s.retryAfter;
      rule('retry_after_missing', s, ra.form === 'missing', () => '429 without Retry-After');
      if (ra.form !== 'missing') rule('retry_after_invalid', s, ra.form === 'invalid', () => 'Retry-After ' + (ra.form === 'invalid' ? ra.reason : ''));
      if (ra.form !== 'missing' && ra.form !== 'invalid') {
        rule('retry_after_form', s, ra.form !== 'delay-seconds' || ra.seconds < 1, () => 'Retry-After ' + JSON.stringify(s.retryAfterRaw) + ' is not integer seconds >= 1');
      }
      rule('refusal_cacheable', s, !/(^|,)[ \t]*no-store[ \t]*(,|$)/i.test(s.cacheControl || ''), () => '429 with Cache-Control ' + JSON.stringify(s.cacheControl === undefined ? null : s.cacheControl));
    }
    rule('malformed_headers', s, s.malformed.length > 0, () => 'status ' + s.status + ': ' + s.malformed.join(', ') + ' missing or not an integer');
    if (s.malformed.length > 0) return false;
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);
    const reset = /** @type {number} */ (s.reset);
    const slack = slackSeconds(s, tol);
    rule('remaining_negative', s, remaining < 0, () => 'Remaining ' + remaining + ' (status ' + s.status + ')');
    rule('remaining_above_limit', s, remaining > limit || (s.admitted && remaining >= limit), () => 'Remaining ' + remaining + ' with Limit ' + limit + ' (status ' + s.status + ')');
    if (expected !== null) rule('limit_mismatch', s, limit !== expected, () => 'Limit ' + limit + ', expected ' + expected);
    if (knownLimit !== null) {
      const before = knownLimit;
      rule('limit_changed', s, limit !== before, () => 'Limit went from ' + before + ' to ' + limit);
    }
    knownLimit = limit;
    if (refused) rule('remaining_nonzero_on_429', s, remaining !== 0, () => '429 with Remaining ' + remaining);
    rule('reset_in_past', s, reset < s.serverNow - slack, () => 'Reset ' + reset + ' is ' + (s.serverNow - reset) + ' s before the response time ' + s.serverNow);
    rule('reset_too_far', s, reset > s.serverNow + tol.maxWindowSeconds + slack, () => 'Reset ' + reset + ' is ' + (reset - s.serverNow) + ' s after the response time ' + s.serverNow + ', more than a day (milliseconds?)');
    return remaining >= 0;
  }

  /**
   * The rules about what follows a 429: retries before Retry-After, re-admission after it, bans.
   * @param {Snapshot} s
   * @returns {{ paused: boolean, early: boolean }} paused: inside an announced ban, where the
   *   window's numbers may describe the ban instead; early: sent before Retry-After had passed
   */
  function refusalRules(s) {
    const e = episode;
    if (e === null || s.sentAtMs < e.startMs) return { paused: false, early: false };
    const slackMs = slackSeconds(s, tol) * 1000;
    const banned = e.banDueMs !== null;
    if (e.dueMs !== null && s.sentAtMs >= e.dueMs) {
      const detail = () => 'sent ' + Math.round((s.sentAtMs - /** @type {number} */ (e.dueMs)) / 1000) + ' s after every Retry-After had passed, and refused';
      rule('not_readmitted', s, !s.admitted, detail, e.ref);
      if (banned) rule('ban_not_lifted', s, !s.admitted, detail, e.ref);
      if (banned && s.admitted) event('ban_lifted');
      return { paused: banned && !s.admitted, early: false };
    }
    if (banned && s.sentAtMs < /** @type {number} */ (e.banDueMs) - slackMs) {
      rule('ban_not_enforced', s, s.admitted, () => 'admitted ' + Math.round((/** @type {number} */ (e.banDueMs) - s.sentAtMs) / 1000) + ' s before the announced ban ends', e.ref);
      if (!s.admitted) event('ban_confirmed');
      // Refused after the window it began in had ended: the ban outlived the window, it is no 429 of that window.
      if (!s.admitted && e.baseline !== null && s.serverNow > e.baseline + slackMs / 1000) event('ban_held_past_reset');
      return { paused: true, early: true };
    }
    if (banned) return { paused: true, early: false };
    if (e.dueMs === null || s.sentAtMs >= e.dueMs - slackMs) return { paused: false, early: false };
    e.provoked = true;
    rule('served_before_retry_after', s, s.admitted, () => 'admitted ' + Math.round((/** @type {number} */ (e.dueMs) - s.sentAtMs) / 1000) + ' s before the Retry-After of an earlier 429 had passed', e.ref);
    return { paused: false, early: true };
  }

  /**
   * A 429 whose Retry-After reaches past the episode's first Reset, after the client retried too
   * early, announces a ban; without such retries it is a Retry-After that does not match Reset.
   * @param {Snapshot} s
   * @returns {boolean} a ban was announced
   */
  function retryAfterRules(s) {
    const at = retryAtSeconds(s);
    if (at === null) return false;
    const slack = slackSeconds(s, tol);
    const e = episode;
    if (e !== null && e.provoked && e.baseline !== null && at > e.baseline + slack) {
      e.banDueMs = s.receivedAtMs + /** @type {number} */ (retryWaitMs(s, tol));
      banSeen = true;
      event('ban_detected');
      out.notes.push('temporary ban detected: 429 with Retry-After ' + s.retryAfterRaw + ', ' + (at - e.baseline) + ' s beyond the window reset');
      return true;
    }
    const reset = /** @type {number} */ (s.reset);
    rule('retry_after_early', s, at < reset - slack, () => 'Retry-After ' + s.retryAfterRaw + ' at ' + s.serverNow + ' ends ' + (reset - at) + ' s before Reset ' + reset);
    rule('retry_after_late', s, at > reset + slack, () => 'Retry-After ' + s.retryAfterRaw + ' at ' + s.serverNow + ' ends ' + (at - reset) + ' s after Reset ' + reset + ', and no ban was provoked');
    return false;
  }

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
   * Which window the snapshot belongs to; null when Reset went back and the snapshot cannot count.
   * @param {Snapshot} s
   * @returns {{ w: Window, first: boolean } | null}
   */
  function place(s) {
    const reset = /** @type {number} */ (s.reset);
    if (win === null) {
      win = open(s, false);
      out.notes.push('joined the window that resets at ' + reset + ' with ' + win.admitted + ' request(s) spent before this run');
      return { w: win, first: false };
    }
    const current = win;
    const moved = Math.abs(reset - current.reset) > tol.roundingSeconds;
    const crossing = moved && reset > current.reset && s.serverNow >= current.reset - slackSeconds(s, tol);
    rule('reset_moved', s, moved && !crossing, () =>
      reset < current.reset ? 'Reset went back from ' + current.reset + ' to ' + reset : 'Reset changed from ' + current.reset + ' to ' + reset + ' at ' + s.serverNow + ', ' + (current.reset - s.serverNow) + ' s before that window ended'
    );
    if (!moved) return { w: current, first: false };
    if (reset < current.reset) return null;
    if (!crossing) {
      win = open(s, false);
      previous = null;
      return { w: win, first: false };
    }
    event('window_crossed');
    out.notes.push('window boundary crossed: Reset ' + current.reset + ' -> ' + reset + ' (' + current.admitted + ' admitted in the window that ended' + (current.saturated ? ', 429 at the limit' : '') + ')');
    previous = current;
    win = open(s, true);
    return { w: win, first: true };
  }

  /** @param {Snapshot} s @param {Window} w @param {boolean} first @param {boolean} early */
  function countAdmitted(s, w, first, early) {
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);
    const last = w.lastRemaining;
    rule('over_admitted', s, w.admitted + 1 > w.limit || (w.saturated && !early), () => 'request ' + (w.admitted + 1) + ' admitted in the window resetting at ' + w.reset + ' with Limit ' + w.limit + (w.saturated ? ', after a 429 in the same window' : ''));
    if (last === null && w.tracked && !w.uncertain) {
      rule('remaining_not_reset', s, remaining !== limit - 1, () => 'first request of the window resetting at ' + w.reset + ' saw Remaining ' + remaining + ', expected ' + (limit - 1));
    } else if (last !== null) {
      rule('remaining_not_decremented', s, remaining >= last, () => 'Remaining ' + remaining + ' after ' + last + ' for an admitted request');
      if (remaining < last && !w.uncertain) rule('remaining_skipped', s, remaining < last - 1, () => 'Remaining fell from ' + last + ' to ' + remaining + ' for one admitted request');
    }
    w.admitted += 1;
    w.lastRemaining = remaining;
    const before = previous;
    if (first && before !== null && before.saturated) {
      event('readmitted');
      if (before.tracked && !before.uncertain && before.faults === 0 && before.admitted === before.limit) {
        event('window_verified');
        out.notes.push('window resetting at ' + before.reset + ' verified: exactly ' + before.limit + ' admitted, then 429, then admitted again after the reset');
      }
    }
  }

  /** @param {Snapshot} s @param {Window} w */
  function countRefused(s, w) {
    if (w.saturated) return;
    w.saturated = true;
    rule('under_admitted', s, w.admitted < w.limit && !w.uncertain, () => '429 after only ' + w.admitted + ' of ' + w.limit + ' requests in the window resetting at ' + w.reset);
    if (w.admitted === w.limit && w.lastRemaining !== null) event('window_saturated');
  }

  /** @param {Snapshot} s */
  function endOrExtendEpisode(s) {
    if (s.admitted) {
      episode = null;
      return;
    }
    const wait = retryWaitMs(s, tol);
    const due = wait === null ? null : s.receivedAtMs + wait;
    if (episode === null) episode = { startMs: s.receivedAtMs, dueMs: due, baseline: null, provoked: false, banDueMs: null, ref: s.ref };
    else if (due !== null && (episode.dueMs === null || due > episode.dueMs)) episode.dueMs = due;
    const at = retryAtSeconds(s);
    if (episode.baseline === null && at !== null) episode.baseline = s.reset === null ? at : Math.max(at, s.reset);
  }

  /** @param {Snapshot} s */
  function step(s) {
    if (s.status === 0) {
      event('transport_error');
      if (win) win.uncertain = true;
      return;
    }
    if (!s.admitted && !s.refused) {
      // Neither served nor refused by the limiter (a 401, a 5xx): it says nothing about the window,
      // and the server may or may not have counted it.
      event('unexpected_status');
      if (win) win.uncertain = true;
      return;
    }
    event(s.admitted ? 'admitted' : 'rejected');
    const usable = fieldRules(s);
    const after = refusalRules(s);
    const ban = !after.paused && usable && s.refused && retryAfterRules(s);
    if (usable && !after.paused && !ban) {
      const placed = place(s);
      if (placed !== null) {
        if (s.admitted) countAdmitted(s, placed.w, placed.first, after.early);
        else countRefused(s, placed.w);
        if (placed.first) previous = null;
      }
    }
    endOrExtendEpisode(s);
  }

  return {
    /**
     * Feeds one batch of snapshots (a single request is a batch of one).
     * @param {Snapshot[]} batch
     * @returns {Outcome}
     */
    observe: function (batch) {
      out = { violations: [], judged: [], events: [], notes: [] };
      for (const s of ordered(batch)) step(s);
      return out;
    },
    /** When a client may retry: every Retry-After of the current refusals has passed (client clock); null when admitted or unknown. */
    retryDueMs: function () {
      return episode === null ? null : episode.dueMs;
    },
    /** Counts so far, for logs and tests. */
    report: function () {
      const w = win;
      return {
        limit: knownLimit,
        violations: Object.assign({}, counts),
        firstDetail: Object.assign({}, firstDetail),
        events: Object.assign({}, eventCounts),
        window: w === null ? null : { reset: w.reset, admitted: w.admitted, saturated: w.saturated },
        banned: banSeen,
      };
    },
  };
}
