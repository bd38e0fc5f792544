// @ts-check
// The rate-limit rules as a state machine, fed every snapshot of one key in the order the requests
// were made (a batch sent at once is passed whole, for arrival.js to order). Exact only if it sees
// every request made with the key. Three families (field-rules.js, refusal-rules.js,
// window-count.js) report through one recorder (judgement.js).
import { arrange } from './arrival.js';
import { createFieldRules } from './field-rules.js';
import { createRecorder } from './judgement.js';
import { createRefusalRules } from './refusal-rules.js';
import { DEFAULT_TOLERANCES } from './snapshot.js';
import { createWindowCount } from './window-count.js';

/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 * @typedef {import('./judgement.js').Violation} Violation
 * @typedef {import('./judgement.js').Judgement} Judgement
 * @typedef {import('./judgement.js').Outcome} Outcome
 * @typedef {import('./rules.js').Kind} Kind
 */

/**
 * @param {{ expectedLimit?: number | null, tolerances?: Partial<Tolerances> }} [options]
 */
export function createWindowRules(options) {
  const opts = options || {};
  /** @type {Tolerances} */
  const tol = Object.assign({}, DEFAULT_TOLERANCES, opts.tolerances || {});
  const rec = createRecorder();
  const fields = createFieldRules(rec, { expectedLimit: opts.expectedLimit === undefined ? null : opts.expectedLimit, tolerances: tol });
  const refusals = createRefusalRules(rec, tol);
  const windows = createWindowCount(rec, tol);

  /** @param {Snapshot} s */
  function step(s) {
    if (s.status === 0) {
      rec.event('transport_error');
      windows.uncertain(s);
      return;
    }
    if (!s.admitted && !s.refused) {
      // Neither served nor refused by the limiter (a 401, a 5xx): it says nothing about the window,
      // and the server may or may not have counted it.
      rec.event('unexpected_status');
      windows.uncertain(s);
      return;
    }
    rec.event(s.admitted ? 'admitted' : 'rejected');
    const usable = fields.check(s);
    const after = refusals.judgeRetry(s);
    const ban = !after.paused && usable && s.refused && refusals.judgeRetryAfter(s);
    if (usable && !after.paused && !ban) windows.count(s, after.early);
    // Not counted in a window (a ban's answers describe the ban), but an admitted request still
    // holds a slot of the window that follows.
    else if (usable) windows.aside(s);
    refusals.follow(s);
  }

  return {
    /**
     * Feeds one batch of snapshots (a single request is a batch of one).
     * @param {Snapshot[]} batch
     * @returns {Outcome}
     */
    observe: function (batch) {
      rec.begin();
      for (const s of arrange(batch, tol)) step(s);
      return rec.outcome();
    },
    /** When a client may retry: every Retry-After of the current refusals has passed (client clock); null when admitted or unknown. */
    retryDueMs: function () {
      return refusals.retryDueMs();
    },
    /** Counts so far, for logs and tests. */
    report: function () {
      const totals = rec.totals();
      return {
        limit: fields.knownLimit(),
        violations: totals.violations,
        firstDetail: totals.firstDetail,
        events: totals.events,
        window: windows.current(),
        banned: refusals.banSeen(),
      };
    },
  };
}
