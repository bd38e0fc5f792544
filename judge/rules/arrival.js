// @ts-check
// The order in which the window rules hear a key's answers: concurrent answers arrive in another order
// than the server decided them, so the rules take the one order a correct limiter could have decided
// them in (README.md, Any arrival order).
import { DEFAULT_TOLERANCES } from '../../spec/rules/snapshot.js';

/** @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot */

/**
 * Groups of Reset values that name one moment within rounding: a correct server may round the
 * same instant to neighbouring seconds, and then the groups must not split a window.
 * @param {Snapshot[]} snapshots
 * @param {number} roundingSeconds
 * @returns {Map<number, number>} each Reset seen to the first Reset of its group
 */
function resetGroups(snapshots, roundingSeconds) {
  const resets = snapshots
    .map((s) => (s.reset === null ? 0 : s.reset))
    .sort((a, b) => a - b)
    .filter((r, i, all) => i === 0 || all[i - 1] !== r);
  /** @type {Map<number, number>} */
  const group = new Map();
  let start = 0;
  let prior = -Infinity;
  for (const reset of resets) {
    if (reset - prior > roundingSeconds) start = reset;
    group.set(reset, start);
    prior = reset;
  }
  return group;
}

/**
 * How a correct limiter orders two answers it decided: by window, admitted before refused (a
 * refusal closes the window), most Remaining first, then by the server's and the client's clocks.
 * @param {Map<number, number>} groups
 * @returns {(a: Snapshot, b: Snapshot) => number}
 */
function decisionOrder(groups) {
  /** @param {Snapshot} s */
  const groupOf = (s) => /** @type {number} */ (groups.get(s.reset === null ? 0 : s.reset));
  return (a, b) => {
    const ga = groupOf(a);
    const gb = groupOf(b);
    if (ga !== gb) return ga - gb;
    if (a.admitted !== b.admitted) return a.admitted ? -1 : 1;
    const ra = a.remaining === null ? 0 : a.remaining;
    const rb = b.remaining === null ? 0 : b.remaining;
    if (ra !== rb) return rb - ra;
    if (a.serverNowMs !== b.serverNowMs) return a.serverNowMs - b.serverNowMs;
    return a.receivedAtMs - b.receivedAtMs;
  };
}

/**
 * Answers in the order a correct limiter decided them: the decision order above, except that an
 * answer whose request left after another answer arrived always comes after that one.
 * @param {Snapshot[]} snapshots
 * @param {{ roundingSeconds?: number }} [options]
 * @returns {Snapshot[]}
 */
export function arrange(snapshots, options) {
  if (snapshots.length < 2) return snapshots.slice();
  const rounding = options && options.roundingSeconds !== undefined ? options.roundingSeconds : DEFAULT_TOLERANCES.roundingSeconds;
  const rest = snapshots.slice().sort(decisionOrder(resetGroups(snapshots, rounding)));
  /** @type {Snapshot[]} */
  const out = [];
  while (rest.length > 0) {
    let earliestAnswer = Infinity;
    for (const s of rest) if (s.receivedAtMs < earliestAnswer) earliestAnswer = s.receivedAtMs;
    // The first in decision order whose request did not leave after a remaining answer arrived
    // (the answer that arrived first always qualifies: its request left before it arrived).
    const pick = rest.findIndex((s) => s.sentAtMs <= earliestAnswer);
    out.push(/** @type {Snapshot} */ (rest.splice(pick, 1)[0]));
  }
  return out;
}

/**
 * Holds a stream of answers until nothing still to come can have been decided before them
 * (`release(oldestPendingSentMs)`, null when nothing is in flight). Past `limit` held, the first half
 * in decision order go out anyway, counted by `forced`: their place was not certain.
 * @param {{ roundingSeconds?: number, limit?: number }} [options]
 */
export function createArrivalBuffer(options) {
  const opts = options || {};
  const limit = opts.limit === undefined ? 4096 : opts.limit;
  // Sorted by arrival, so that what may go is a prefix: a release with thousands held costs one pass
  // over those that must wait. Answers gone are skipped by `head` and dropped in bulk, not shifted.
  /** @type {Snapshot[]} */
  let held = [];
  let head = 0;
  let forced = 0;
  return {
    /** @param {Snapshot} s */
    offer: function (s) {
      let lo = head;
      let hi = held.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (/** @type {Snapshot} */ (held[mid]).receivedAtMs <= s.receivedAtMs) lo = mid + 1;
        else hi = mid;
      }
      if (lo === held.length) held.push(s);
      else held.splice(lo, 0, s);
    },
    /**
     * @param {number | null} oldestPendingSentMs
     * @returns {Snapshot[]}
     */
    release: function (oldestPendingSentMs) {
      // An answer that must wait holds back every answer that arrived after its request was sent, so
      // the threshold falls to its send time; the first answer from the back that arrived before it ends the search.
      let threshold = oldestPendingSentMs === null ? Infinity : oldestPendingSentMs;
      let cut = held.length;
      while (cut > head && /** @type {Snapshot} */ (held[cut - 1]).receivedAtMs >= threshold) {
        cut--;
        const sentAtMs = /** @type {Snapshot} */ (held[cut]).sentAtMs;
        if (sentAtMs < threshold) threshold = sentAtMs;
      }
      // Under sustained concurrent traffic nothing is ever certain. The first in decision order go, not
      // the earliest arrivals: a key's answer handed out alone, out of decided order, breaks its Remaining.
      if (held.length - cut > limit) {
        const all = arrange(held.slice(head), opts);
        const out = cut - head + Math.max(held.length - cut - limit, Math.ceil(limit / 2));
        forced += out - (cut - head);
        held = all.slice(out).sort(function (a, b) {
          return a.receivedAtMs - b.receivedAtMs;
        });
        head = 0;
        return all.slice(0, out);
      }
      const ready = held.slice(head, cut);
      head = cut;
      if (head === held.length) {
        held = [];
        head = 0;
      } else if (head >= 1024 && head * 2 >= held.length) {
        held = held.slice(head);
        head = 0;
      }
      return arrange(ready, opts);
    },
    /** Answers held now. */
    size: function () {
      return held.length - head;
    },
    /** Answers handed out before their order was certain. */
    forced: function () {
      return forced;
    },
  };
}
