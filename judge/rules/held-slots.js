// @ts-check
// The admitted requests that may still count in the window of an answer with Reset T (which began at
// T − 60 s; README.md, Which window algorithms the rules accept): at least and at most, from server
// times known within their slack, and whether the log saw every request since. Bounded: beyond
// `capacity` the oldest go, and the log is no longer complete there.
import { slackSeconds } from '../../spec/rules/snapshot.js';

/**
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('../../spec/rules/snapshot.js').Tolerances} Tolerances
 */

/** The window length every accepted algorithm counts over: "requests per minute". */
export const WINDOW_SECONDS = 60;

/** Most entries a log keeps, whatever the Limit: what a proxy in front of an unlimited key can afford per key. */
export const MAX_HELD_ENTRIES = 20000;

/**
 * @param {Tolerances} tol
 */
export function createHeldSlots(tol) {
  let cap = MAX_HELD_ENTRIES;
  /** @type {Array<{ at: number, slack: number }>} server seconds of admitted answers, each within its slack, in the order the rules heard them */
  let entries = [];
  /** Server seconds of the latest request the server may or may not have counted. */
  let lastUnknown = -Infinity;
  /** Server seconds before which the log is not complete: the run's start, or the last entry dropped for room. */
  let completeFrom = Infinity;
  let latest = -Infinity;

  /** @param {number} now */
  function prune(now) {
    const horizon = now - WINDOW_SECONDS - 4 * tol.clockSkewSeconds - 4 * tol.roundingSeconds - 4;
    const keep = entries.findIndex((e) => e.at + e.slack >= horizon);
    if (keep !== 0) entries = keep < 0 ? [] : entries.slice(keep);
    // Nothing before the horizon is kept, so nothing there can be counted.
    completeFrom = Math.max(completeFrom, horizon);
  }

  /** @param {Snapshot} s */
  function seen(s) {
    if (completeFrom === Infinity) completeFrom = s.serverNow + slackSeconds(s, tol);
    if (s.serverNow > latest) {
      latest = s.serverNow;
      prune(latest);
    }
  }

  return {
    /**
     * Sizes the log for a Limit: a correct fixed window admits at most 2 × Limit in any minute.
     * @param {number} limit
     */
    fit: function (limit) {
      cap = Math.max(64, Math.min(MAX_HELD_ENTRIES, 4 * limit + 64));
    },
    /** An admitted answer. @param {Snapshot} s */
    admitted: function (s) {
      seen(s);
      entries.push({ at: s.serverNowMs / 1000, slack: slackSeconds(s, tol) });
      if (entries.length > cap) {
        // The oldest half at once, so that keeping the log bounded costs nothing per answer.
        const dropped = entries.slice(0, Math.ceil(cap / 2));
        entries = entries.slice(dropped.length);
        for (const e of dropped) completeFrom = Math.max(completeFrom, e.at + e.slack);
      }
    },
    /** Any other answer the rules heard (it only moves the log's clock). @param {Snapshot} s */
    heard: function (s) {
      seen(s);
    },
    /** A request the server may have counted without saying so (no answer, a 401, a 5xx). @param {Snapshot} s */
    unknown: function (s) {
      seen(s);
      lastUnknown = Math.max(lastUnknown, s.serverNowMs / 1000);
    },
    /**
     * How many admitted requests, of those heard so far, count in the window of an answer with
     * Reset `reset`: at least (decided surely after the window began) and at most (possibly after);
     * `complete` when the log saw every request of the key since then.
     * @param {number} reset
     * @param {Snapshot} s the answer asked about
     * @returns {{ atLeast: number, atMost: number, complete: boolean }}
     */
    since: function (reset, s) {
      const start = reset - WINDOW_SECONDS;
      const margin = tol.roundingSeconds + slackSeconds(s, tol);
      let atLeast = 0;
      let atMost = 0;
      for (const e of entries) {
        if (e.at - e.slack >= start) atLeast++;
        if (e.at + e.slack > start - tol.roundingSeconds) atMost++;
      }
      const lost = lastUnknown > start - margin;
      return { atLeast: atLeast, atMost: atMost, complete: !lost && completeFrom <= start - margin };
    },
  };
}
