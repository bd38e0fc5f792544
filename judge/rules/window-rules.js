// @ts-check
// The rate-limit rules as a state machine, fed every snapshot of one key in the order the requests
// were made (a batch sent at once is passed whole, for arrival.js to order). Exact only if it sees
// every request made with the key. Three families (field-rules.js, refusal-rules.js,
// window-count.js or moving-count.js) report through one recorder (judgement.js). One machine runs
// per combination of readings (readings.js) still consistent with the history: a batch that breaks a
// must rule in some machines drops them, and a finding is reported only when none survives it.
import { arrange } from './arrival.js';
import { createFieldRules } from './field-rules.js';
import { createRecorder } from './judgement.js';
import { PLAN_LIMITS } from '../../spec/rules/contract.js';
import { createMovingCount } from './moving-count.js';
import { READINGS } from './readings.js';
import { createRefusalRules } from './refusal-rules.js';
import { DEFAULT_TOLERANCES } from '../../spec/rules/snapshot.js';
import { createWindowCount } from './window-count.js';

/**
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('../../spec/rules/snapshot.js').Tolerances} Tolerances
 * @typedef {import('./judgement.js').Violation} Violation
 * @typedef {import('./judgement.js').Judgement} Judgement
 * @typedef {import('./judgement.js').Outcome} Outcome
 * @typedef {import('./rules.js').Kind} Kind
 */

/**
 * A combination of readings (readings.js ids) one machine judges under; the window reading of the
 * fixed and sliding machines is narrowed by the Resets they see.
 * `scope: 'either'`: each answer's headers describe the minute or the day window (readings scope.minute,
 * scope.day), told apart by their Limit, each window judged on its own; absent: one window throughout.
 * @typedef {{ window: 'fixed-or-sliding' | 'moving', reset: 'reset.next-slot' | 'reset.window-empty', remaining: 'remaining.at-decision' | 'remaining.at-answer', scope?: 'either' }} Combination
 */

/** Every combination, the first that explains a history named first. @type {Combination[]} */
export const COMBINATIONS = [
  { window: 'fixed-or-sliding', reset: 'reset.next-slot', remaining: 'remaining.at-decision' },
  { window: 'fixed-or-sliding', reset: 'reset.next-slot', remaining: 'remaining.at-answer' },
  { window: 'moving', reset: 'reset.window-empty', remaining: 'remaining.at-decision' },
  { window: 'moving', reset: 'reset.window-empty', remaining: 'remaining.at-answer' },
  { window: 'fixed-or-sliding', reset: 'reset.next-slot', remaining: 'remaining.at-decision', scope: 'either' },
  { window: 'fixed-or-sliding', reset: 'reset.next-slot', remaining: 'remaining.at-answer', scope: 'either' },
];

/** Whether two Limits are one plan's per-minute and per-day limits. @param {number | null} a @param {number | null} b */
function onePlan(a, b) {
  for (const plan of Object.keys(PLAN_LIMITS)) {
    const l = PLAN_LIMITS[/** @type {keyof typeof PLAN_LIMITS} */ (plan)];
    if ((a === l.perMinute && b === l.perDay) || (a === l.perDay && b === l.perMinute)) return true;
  }
  return false;
}

/**
 * A batch whose answers describe two windows: arrange() puts the window that resets first first,
 * but a refusal of the minute window came after the admissions the day window describes.
 * @param {Snapshot[]} arranged
 * @returns {Snapshot[]}
 */
function admittedFirst(arranged) {
  const limits = arranged.filter((s) => s.limit !== null).map((s) => s.limit);
  if (limits.every((l) => l === limits[0])) return arranged;
  return arranged.filter((s) => s.admitted).concat(arranged.filter((s) => !s.admitted));
}

/**
 * The windows of the headers when each answer may describe the minute or the day window: one
 * window-count per Limit; an admitted answer holds a slot in every one of them.
 * @param {() => ReturnType<typeof createWindowCount>} create
 */
function createScopedCount(create) {
  /** @type {Map<number, ReturnType<typeof createWindowCount>>} */
  const byLimit = new Map();
  /** @type {ReturnType<typeof createWindowCount> | null} */
  let latest = null;
  /** Requests of this batch the server may have counted unheard: a window first seen later in the batch may hold them too. @type {Snapshot[]} */
  let unheard = [];
  /** @param {Snapshot} s */
  function of(s) {
    const limit = /** @type {number} */ (s.limit);
    let w = byLimit.get(limit);
    if (!w) {
      const created = create();
      unheard.forEach((u) => created.uncertain(u));
      byLimit.set(limit, (w = created));
    }
    return w;
  }
  return {
    /** @param {Snapshot} s @param {boolean} early */
    count: function (s, early) {
      const own = of(s);
      byLimit.forEach((w) => {
        if (w === own) w.count(s, early);
        else if (s.admitted) w.alsoAdmitted(s);
        else w.aside(s);
      });
      latest = own;
    },
    /** @param {Snapshot} s */
    aside: function (s) {
      byLimit.forEach((w) => w.aside(s));
    },
    /** @param {Snapshot} s */
    uncertain: function (s) {
      unheard.push(s);
      byLimit.forEach((w) => w.uncertain(s));
    },
    settle: function () {
      unheard = [];
      byLimit.forEach((w) => w.settle());
    },
    /** @returns {string[]} */
    windowReadings: function () {
      return (latest === null ? ['window.fixed-clock', 'window.fixed-start', 'window.sliding-log'] : latest.windowReadings()).concat([
        'scope.minute',
        'scope.day',
      ]);
    },
    current: function () {
      return latest === null ? null : latest.current();
    },
  };
}

/**
 * One machine: the three families under one combination of readings.
 * @param {Combination} combination
 * @param {{ expectedLimit: number | null, tolerances: Tolerances }} opts
 */
function createMachine(combination, opts) {
  const tol = opts.tolerances;
  const rec = createRecorder();
  const either = combination.scope === 'either';
  // Either window: a Limit that turns from the plan's per-minute to its per-day one (or back) is no change
  // of limit, and the plan's per-day Limit is the expected one's other window.
  const fieldRec = !either
    ? rec
    : Object.assign({}, rec, {
        /** @type {typeof rec.rule} */
        rule: function (kind, s, broken, detail, related) {
          const otherWindow =
            (kind === 'limit_changed' && onePlan(fields.knownLimit(), s.limit)) || (kind === 'limit_mismatch' && onePlan(opts.expectedLimit, s.limit));
          rec.rule(kind, s, broken && !otherWindow, detail, related);
        },
      });
  const fields = createFieldRules(fieldRec, { expectedLimit: opts.expectedLimit, tolerances: tol });
  const refusals = createRefusalRules(rec, tol);
  const remaining = combination.remaining === 'remaining.at-answer' ? 'at-answer' : 'at-decision';
  const windows =
    combination.window === 'moving'
      ? createMovingCount(rec, tol, { remaining: remaining })
      : either
        ? createScopedCount(() => createWindowCount(rec, tol, { remaining: remaining }))
        : createWindowCount(rec, tol, { remaining: remaining });

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
    combination: combination,
    rec: rec,
    /** @param {Snapshot[]} arranged @returns {Outcome} */
    observe: function (arranged) {
      rec.begin();
      for (const s of either ? admittedFirst(arranged) : arranged) step(s);
      windows.settle();
      return rec.outcome();
    },
    retryDueMs: function () {
      return refusals.retryDueMs();
    },
    /** The readings (readings.js ids) this machine stands for. @returns {string[]} */
    readings: function () {
      return windows.windowReadings().concat([combination.reset, combination.remaining]);
    },
    knownLimit: function () {
      return fields.knownLimit();
    },
    window: function () {
      return windows.current();
    },
    banned: function () {
      return refusals.banSeen();
    },
  };
}

/**
 * The readings (readings.js ids) of the machines still explaining a run.
 * @param {Array<ReturnType<typeof createMachine>>} machines
 * @returns {string[]}
 */
function readingsOf(machines) {
  /** @type {string[]} */
  const ids = [];
  for (const m of machines) for (const id of m.readings()) if (ids.indexOf(id) < 0) ids.push(id);
  return ids;
}

/** @param {Outcome} out @param {Kind[] | undefined} kinds */
function mustCount(out, kinds) {
  let n = 0;
  for (const v of out.violations) if (v.level === 'must' && (kinds === undefined || kinds.indexOf(v.kind) >= 0)) n++;
  return n;
}

/**
 * Names readings (readings.js ids) as a report shows them, by point: `window: sliding log; Reset: ...`.
 * @param {string[]} ids
 * @returns {string}
 */
export function describeReadings(ids) {
  /** @type {Record<string, string[]>} */
  const byPoint = {};
  /** @type {string[]} */
  const points = [];
  for (const r of READINGS) {
    if (ids.indexOf(r.id) < 0) continue;
    if (!byPoint[r.point]) {
      byPoint[r.point] = [];
      points.push(r.point);
    }
    /** @type {string[]} */ (byPoint[r.point]).push(r.name.replace(/^[A-Za-z]+: /, ''));
  }
  return points
    .map(
      (p) =>
        (p === 'window' ? 'window' : p === 'reset' ? 'Reset' : p === 'remaining' ? 'Remaining' : p) + ': ' + /** @type {string[]} */ (byPoint[p]).join(' or ')
    )
    .join('; ');
}

/**
 * `kinds`: the must rules whose violation drops a combination (every must rule when absent), for a
 * caller that reads only some of them from what it feeds.
 * @param {{ expectedLimit?: number | null, tolerances?: Partial<Tolerances>, combinations?: Combination[], kinds?: Kind[] }} [options]
 */
export function createWindowRules(options) {
  const opts = options || {};
  /** @type {Tolerances} */
  const tol = Object.assign({}, DEFAULT_TOLERANCES, opts.tolerances || {});
  const machineOpts = { expectedLimit: opts.expectedLimit === undefined ? null : opts.expectedLimit, tolerances: tol };
  let alive = (opts.combinations || COMBINATIONS).map((c) => createMachine(c, machineOpts));
  /** The run's totals: what was reported, whichever machine reported it. */
  const totals = createRecorder();
  let lastNamed = '';

  return {
    /**
     * Feeds one batch of snapshots (a single request is a batch of one): judged by every machine
     * still alive; those that broke a must rule are dropped unless none is left, and then the one
     * that broke the fewest reports.
     * @param {Snapshot[]} batch
     * @returns {Outcome}
     */
    observe: function (batch) {
      const arranged = arrange(batch, tol);
      const outs = alive.map((m) => m.observe(arranged));
      const survivors = alive.filter((_m, i) => mustCount(/** @type {Outcome} */ (outs[i]), opts.kinds) === 0);
      let pick = 0;
      if (survivors.length > 0) {
        pick = alive.indexOf(/** @type {typeof alive[number]} */ (survivors[0]));
        alive = survivors;
      } else {
        for (let i = 1; i < outs.length; i++)
          if (mustCount(/** @type {Outcome} */ (outs[i]), opts.kinds) < mustCount(/** @type {Outcome} */ (outs[pick]), opts.kinds)) pick = i;
      }
      const out = /** @type {Outcome} */ (outs[pick]);
      if (survivors.length > 0 && survivors.length < outs.length) {
        // Fewer readings explain the run now: say which, as the log of a k6 run or a proxy shows it.
        const named = describeReadings(readingsOf(alive));
        if (named !== lastNamed) out.notes.push('the readings that explain the run so far: ' + named);
        lastNamed = named;
      }
      totals.begin();
      for (const v of out.violations) totals.record(v);
      for (const e of out.events) totals.event(e);
      return out;
    },
    /** When a client may retry: every Retry-After of the current refusals has passed (client clock); null when admitted or unknown. */
    retryDueMs: function () {
      return /** @type {typeof alive[number]} */ (alive[0]).retryDueMs();
    },
    /** The readings (readings.js ids) of every combination that still explains the run. @returns {string[]} */
    readings: function () {
      return readingsOf(alive);
    },
    /** Counts so far, for logs and tests. */
    report: function () {
      const first = /** @type {typeof alive[number]} */ (alive[0]);
      const t = totals.totals();
      return {
        limit: first.knownLimit(),
        violations: t.violations,
        firstDetail: t.firstDetail,
        events: t.events,
        window: first.window(),
        banned: first.banned(),
      };
    },
  };
}
