// @ts-check
// The window bookkeeping of rate-limit.js: a state machine fed with every rate-limit snapshot one
// client observes for one key, in the order the requests were made. It turns the specification's
// rules into counted violations and events, which the script forwards to k6 metrics so that
// thresholds fail the run. Pure JavaScript: no k6 import, so Node tests it with recorded sequences.
//
// It is exact only if it sees every request made with the key during the run; rate-limit.js makes
// that true by sending all of them from one VU (http.batch gives it concurrency). Requests sent in
// one batch reach the server in an order nobody knows, so a batch is passed in whole and ordered
// the only way a correct fixed-window limiter could have answered it: by window (Reset), admitted
// responses first, most Remaining first.

/** Every violation kind, each with the rule it breaks. The script puts a `count==0` threshold on each. */
export const VIOLATIONS = {
  malformed_headers: 'a rate-limit header is missing or not an integer',
  remaining_negative: 'X-RateLimit-Remaining is negative',
  remaining_above_limit: 'Remaining exceeds Limit, or an admitted request left Remaining equal to Limit',
  limit_mismatch: 'X-RateLimit-Limit differs from the expected per-minute limit (PLAN or LIMIT)',
  limit_changed: 'X-RateLimit-Limit changed during the run (another window became binding)',
  over_admitted: 'more requests admitted in one window than Limit, or one admitted after a 429 in the same window',
  under_admitted: 'a 429 arrived before Limit requests had been admitted in the window',
  remaining_not_decremented: 'an admitted request did not lower Remaining (it stuck or rose)',
  remaining_skipped: 'Remaining fell by more than one for one admitted request',
  remaining_not_reset: 'the first request of a new window did not see Remaining = Limit - 1',
  remaining_nonzero_on_429: 'a 429 (outside a ban) reported Remaining other than 0',
  reset_moved: 'X-RateLimit-Reset changed before that window had ended, or went backwards',
  reset_in_past: 'X-RateLimit-Reset is earlier than the response time',
  retry_after_invalid: 'a 429 without Retry-After of at least 1 second (delay-seconds or HTTP-date)',
  retry_after_early: 'waiting Retry-After ends before X-RateLimit-Reset: the retry would be refused again',
  retry_after_late: 'Retry-After points past X-RateLimit-Reset although no ban was provoked',
  not_readmitted: 'the first request after the window reset was refused',
  ban_not_enforced: 'a request was admitted while a temporary ban had not yet expired',
};

/** Events worth counting; the script puts `count>=1` thresholds on the ones a run must reach. */
export const EVENTS = [
  'admitted',
  'rejected',
  'transport_error',
  'window_crossed',
  'window_saturated',
  'readmitted',
  'window_verified',
  'ban_detected',
  'ban_confirmed',
];

/**
 * @typedef {import('./headers.js').Snapshot} Snapshot
 * @typedef {{ kind: string, detail: string }} Violation
 * @typedef {{ violations: Violation[], events: string[], notes: string[] }} Outcome
 * @typedef {object} Window
 * @property {number} reset
 * @property {number} limit
 * @property {number} admitted admitted requests counted in this window (seeded from Remaining when we joined it late)
 * @property {number | null} lastRemaining
 * @property {boolean} tracked we saw this window begin, so its counts are exact
 * @property {boolean} uncertain a request got no response: the server may have counted it
 * @property {boolean} saturated a 429 was seen in it
 * @property {number} faults violations recorded while in it
 */

/**
 * @param {{ mode?: 'window' | 'ban', expectedLimit?: number | null, skewSeconds?: number }} [options]
 */
export function createLedger(options) {
  const opts = options || {};
  const mode = opts.mode || 'window';
  const expected = opts.expectedLimit === undefined ? null : opts.expectedLimit;
  const skew = opts.skewSeconds === undefined ? 2 : opts.skewSeconds;

  /** @type {Window | null} */
  let win = null;
  /** @type {Window | null} the window before a legitimate crossing, until its successor's first response */
  let previous = null;
  let knownLimit = /** @type {number | null} */ (null);
  /** @type {Record<string, number>} */
  const counts = {};
  /** @type {Record<string, string>} */
  const firstDetail = {};
  /** @type {Record<string, number>} */
  const eventCounts = {};
  // ban mode
  let banBaseline = /** @type {number | null} */ (null);
  let banUntilMs = /** @type {number | null} */ (null);

  /** @param {Snapshot} s */
  function tolerance(s) {
    // A Date header is the server's own clock, floored to the second; the client's clock may be off.
    return s.clock === 'date-header' ? 1 : skew;
  }

  /**
   * @param {Outcome} out
   * @param {string} kind
   * @param {string} detail
   */
  function violate(out, kind, detail) {
    out.violations.push({ kind: kind, detail: detail });
    counts[kind] = (counts[kind] || 0) + 1;
    if (firstDetail[kind] === undefined) firstDetail[kind] = detail;
    if (win) win.faults += 1;
  }

  /**
   * @param {Outcome} out
   * @param {string} name
   */
  function event(out, name) {
    out.events.push(name);
    eventCounts[name] = (eventCounts[name] || 0) + 1;
  }

  /**
   * @param {Snapshot} s
   * @param {boolean} tracked
   * @returns {Window}
   */
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
   * Orders one batch the way a correct limiter must have served it.
   * @param {Snapshot[]} batch
   */
  function ordered(batch) {
    return batch.slice().sort(function (a, b) {
      const ra = a.reset === null ? 0 : a.reset;
      const rb = b.reset === null ? 0 : b.reset;
      if (ra !== rb) return ra - rb;
      if (a.admitted !== b.admitted) return a.admitted ? -1 : 1;
      const qa = a.remaining === null ? 0 : a.remaining;
      const qb = b.remaining === null ? 0 : b.remaining;
      return qb - qa;
    });
  }

  /**
   * @param {Snapshot} s
   * @param {Outcome} out
   * @returns {boolean} whether the snapshot is usable for window bookkeeping
   */
  function checkHeaders(s, out) {
    if (s.status === 0) {
      event(out, 'transport_error');
      if (win) win.uncertain = true;
      return false;
    }
    event(out, s.admitted ? 'admitted' : 'rejected');
    if (s.malformed.length > 0) {
      violate(out, 'malformed_headers', 'status ' + s.status + ': ' + s.malformed.join(', ') + ' missing or not an integer');
      return false;
    }
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);
    if (remaining < 0) {
      violate(out, 'remaining_negative', 'Remaining ' + remaining + ' (status ' + s.status + ')');
      return false;
    }
    if (remaining > limit || (s.admitted && remaining >= limit && mode === 'window')) {
      violate(out, 'remaining_above_limit', 'Remaining ' + remaining + ' with Limit ' + limit + ' (status ' + s.status + ')');
    }
    if (expected !== null && limit !== expected) {
      violate(out, 'limit_mismatch', 'Limit ' + limit + ', expected ' + expected);
    }
    if (knownLimit !== null && limit !== knownLimit) {
      violate(out, 'limit_changed', 'Limit went from ' + knownLimit + ' to ' + limit);
    }
    knownLimit = limit;
    if (s.status === 429) {
      const ra = s.retryAfter;
      if (ra === null || ra.seconds < 1) {
        violate(out, 'retry_after_invalid', 'Retry-After ' + (s.retryAfterRaw === undefined ? 'missing' : JSON.stringify(s.retryAfterRaw)));
      }
    }
    return true;
  }

  /**
   * @param {Snapshot} s
   * @param {Outcome} out
   */
  function windowStep(s, out) {
    const tol = tolerance(s);
    const reset = /** @type {number} */ (s.reset);
    const limit = /** @type {number} */ (s.limit);
    const remaining = /** @type {number} */ (s.remaining);

    if (reset < s.serverNow - tol) {
      violate(out, 'reset_in_past', 'Reset ' + reset + ' is ' + (s.serverNow - reset) + ' s before the response time ' + s.serverNow);
    }

    let firstOfNewWindow = false;
    if (win === null) {
      win = open(s, false);
      out.notes.push('joined the window that resets at ' + reset + ' with ' + win.admitted + ' request(s) spent before this run');
    } else if (reset !== win.reset) {
      if (reset < win.reset) {
        violate(out, 'reset_moved', 'Reset went back from ' + win.reset + ' to ' + reset);
        return;
      }
      if (s.serverNow < win.reset - tol) {
        violate(out, 'reset_moved', 'Reset changed from ' + win.reset + ' to ' + reset + ' at ' + s.serverNow + ', ' + (win.reset - s.serverNow) + ' s before that window ended');
        win = open(s, false);
        previous = null;
      } else {
        event(out, 'window_crossed');
        out.notes.push('window boundary crossed: Reset ' + win.reset + ' -> ' + reset + ' (' + win.admitted + ' admitted in the window that ended' + (win.saturated ? ', 429 at the limit' : '') + ')');
        previous = win;
        win = open(s, true);
        firstOfNewWindow = true;
      }
    }
    const w = win;

    if (s.admitted) {
      if (w.saturated || w.admitted + 1 > w.limit) {
        violate(out, 'over_admitted', 'request ' + (w.admitted + 1) + ' admitted in the window resetting at ' + w.reset + ' with Limit ' + w.limit + (w.saturated ? ', after a 429 in the same window' : ''));
      }
      if (w.lastRemaining === null) {
        if (w.tracked && !w.uncertain && remaining !== limit - 1) {
          violate(out, 'remaining_not_reset', 'first request of the window resetting at ' + reset + ' saw Remaining ' + remaining + ', expected ' + (limit - 1));
        }
      } else if (remaining >= w.lastRemaining) {
        violate(out, 'remaining_not_decremented', 'Remaining ' + remaining + ' after ' + w.lastRemaining + ' for an admitted request');
      } else if (remaining < w.lastRemaining - 1 && !w.uncertain) {
        violate(out, 'remaining_skipped', 'Remaining fell from ' + w.lastRemaining + ' to ' + remaining + ' for one admitted request');
      }
      w.admitted += 1;
      w.lastRemaining = remaining;
      if (firstOfNewWindow && previous !== null && previous.saturated) {
        event(out, 'readmitted');
        if (previous.tracked && !previous.uncertain && previous.faults === 0 && previous.admitted === previous.limit) {
          event(out, 'window_verified');
          out.notes.push('window resetting at ' + previous.reset + ' verified: exactly ' + previous.limit + ' admitted, then 429, then admitted again after the reset');
        }
      }
    } else {
      if (firstOfNewWindow) {
        violate(out, 'not_readmitted', 'first request after the window reset at ' + (previous ? previous.reset : '?') + ' got 429');
      }
      if (remaining !== 0) {
        violate(out, 'remaining_nonzero_on_429', '429 with Remaining ' + remaining);
      }
      const ra = s.retryAfter;
      if (ra !== null && ra.seconds >= 1) {
        const retryAt = s.serverNow + ra.seconds;
        if (retryAt < reset - tol) {
          violate(out, 'retry_after_early', 'Retry-After ' + ra.seconds + ' s at ' + s.serverNow + ' ends ' + (reset - retryAt) + ' s before Reset ' + reset);
        } else if (retryAt > reset + tol + 1) {
          violate(out, 'retry_after_late', 'Retry-After ' + ra.seconds + ' s at ' + s.serverNow + ' ends ' + (retryAt - reset) + ' s after Reset ' + reset);
        }
      }
      if (!w.saturated) {
        w.saturated = true;
        if (w.admitted < w.limit && !w.uncertain) {
          violate(out, 'under_admitted', '429 after only ' + w.admitted + ' of ' + w.limit + ' requests in the window resetting at ' + w.reset);
        } else if (w.admitted === w.limit && w.lastRemaining !== null) {
          event(out, 'window_saturated');
        }
      }
    }
    if (firstOfNewWindow) previous = null;
  }

  /**
   * @param {Snapshot} s
   * @param {Outcome} out
   */
  function banStep(s, out) {
    const tol = tolerance(s);
    if (s.admitted) {
      if (banUntilMs !== null && s.receivedAtMs < banUntilMs - tol * 1000) {
        violate(out, 'ban_not_enforced', 'admitted ' + Math.round((banUntilMs - s.receivedAtMs) / 1000) + ' s before the ban announced by Retry-After ends');
      }
      banBaseline = null;
      return;
    }
    const ra = s.retryAfter;
    if (ra === null || ra.seconds < 1) return;
    const retryAt = s.serverNow + ra.seconds;
    const until = s.receivedAtMs + ra.seconds * 1000;
    if (banUntilMs !== null && s.receivedAtMs < banUntilMs) {
      event(out, 'ban_confirmed');
      return;
    }
    if (banBaseline === null) {
      // The first refusal of an episode is the ordinary one: it waits for the window's reset.
      banBaseline = Math.max(retryAt, /** @type {number} */ (s.reset));
      return;
    }
    if (retryAt > banBaseline + tol + 1) {
      banUntilMs = until;
      event(out, 'ban_detected');
      out.notes.push('temporary ban detected: 429 with Retry-After ' + ra.seconds + ' s, ' + (retryAt - banBaseline) + ' s beyond the window reset');
    }
  }

  return {
    mode: mode,
    /**
     * Feeds one batch of responses (a single request is a batch of one).
     * @param {Snapshot[]} batch
     * @returns {Outcome}
     */
    observe: function (batch) {
      /** @type {Outcome} */
      const out = { violations: [], events: [], notes: [] };
      const list = ordered(batch);
      for (let i = 0; i < list.length; i++) {
        const s = list[i];
        if (!checkHeaders(s, out)) continue;
        if (mode === 'window') windowStep(s, out);
        else banStep(s, out);
      }
      return out;
    },
    /** Counts so far, for logs and tests. */
    report: function () {
      return {
        mode: mode,
        limit: knownLimit,
        violations: Object.assign({}, counts),
        firstDetail: Object.assign({}, firstDetail),
        events: Object.assign({}, eventCounts),
        window: win === null ? null : { reset: win.reset, admitted: win.admitted, saturated: win.saturated },
        banned: banUntilMs !== null,
      };
    },
  };
}
