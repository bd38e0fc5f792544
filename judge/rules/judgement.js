// @ts-check
// What the window rules found in one batch and in the whole run: each rule judged, each violation
// with its level and text (from rules.js), events and notes; the three rule families report
// through one recorder.
import { RULES } from './rules.js';

/**
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('./rules.js').Level} Level
 * @typedef {import('./rules.js').Kind} Kind
 * @typedef {{ kind: Kind, level: Level, rule: string, detail: string, refs: unknown[] }} Violation
 * @typedef {{ kind: Kind, ref: unknown }} Judgement a rule that was judged on a snapshot (broken or not)
 * @typedef {{ violations: Violation[], judged: Judgement[], events: string[], notes: string[] }} Outcome
 * @typedef {ReturnType<typeof createRecorder>} Recorder
 */

export function createRecorder() {
  /** @type {Outcome} */
  let out = { violations: [], judged: [], events: [], notes: [] };
  /** @type {Record<string, number>} */
  const counts = {};
  /** @type {Record<string, string>} */
  const firstDetail = {};
  /** @type {Record<string, number>} */
  const eventCounts = {};
  /** @type {Array<() => void>} */
  const onMust = [];

  return {
    /**
     * Judges one rule on one snapshot; `detail` is only built when it is broken.
     * @param {Kind} kind @param {Snapshot} s @param {boolean} broken @param {() => string} detail
     * @param {unknown} [related] the exchange the broken rule refers back to (the 429 that began a wait)
     */
    rule: function (kind, s, broken, detail, related) {
      out.judged.push({ kind: kind, ref: s.ref });
      if (!broken) return;
      const text = detail();
      out.violations.push({
        kind: kind,
        level: /** @type {Level} */ (RULES[kind].level),
        rule: RULES[kind].rule,
        detail: text,
        refs: related === undefined ? [s.ref] : [related, s.ref],
      });
      counts[kind] = (counts[kind] || 0) + 1;
      if (firstDetail[kind] === undefined) firstDetail[kind] = text;
      if (RULES[kind].level === 'must') onMust.forEach((listener) => listener());
    },
    /** Counts a violation another recorder built (the run's totals, whichever machine reported it). @param {Violation} v */
    record: function (v) {
      out.violations.push(v);
      counts[v.kind] = (counts[v.kind] || 0) + 1;
      if (firstDetail[v.kind] === undefined) firstDetail[v.kind] = v.detail;
    },
    /** @param {string} name */
    event: function (name) {
      out.events.push(name);
      eventCounts[name] = (eventCounts[name] || 0) + 1;
    },
    /** @param {string} text */
    note: function (text) {
      out.notes.push(text);
    },
    /** Calls `listener` on every must-level violation (a window counts its faults). @param {() => void} listener */
    onMustViolation: function (listener) {
      onMust.push(listener);
    },
    /** Starts a new batch's outcome. */
    begin: function () {
      out = { violations: [], judged: [], events: [], notes: [] };
    },
    /** @returns {Outcome} */
    outcome: function () {
      return out;
    },
    /** The whole run's counts so far. */
    totals: function () {
      return { violations: Object.assign({}, counts), firstDetail: Object.assign({}, firstDetail), events: Object.assign({}, eventCounts) };
    },
  };
}
