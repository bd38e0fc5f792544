// @ts-check
// k6's execution segments, read the way k6 writes them: each process of a split run gets a share of
// every arrival rate. capacity.js judges its share, merge.js the sum; rate-limit.js refuses a share.

/**
 * @typedef {{ segment: string, from: number, to: number, share: number, sequence: string | null }} Segment
 */

/** The whole run: what a single k6 process without `--execution-segment` runs. */
export const WHOLE = '0:1';

/**
 * One end of a segment: "1/3", "0.5", "50%" or "1".
 * @param {string} text
 * @returns {number}
 */
export function parseSegmentPoint(text) {
  const t = String(text).trim();
  let value = NaN;
  if (/^\d+(?:\.\d+)?%$/.test(t)) value = Number(t.slice(0, -1)) / 100;
  else if (/^\d+\/\d+$/.test(t)) {
    const parts = t.split('/');
    value = Number(parts[1]) === 0 ? NaN : Number(parts[0]) / Number(parts[1]);
  } else if (/^\d+(?:\.\d+)?$/.test(t)) value = Number(t);
  if (!(value >= 0 && value <= 1)) throw new Error('"' + text + '" is not a point of an execution segment (0 to 1, as 1/3, 0.5 or 50%)');
  return value;
}

/**
 * A segment as k6 prints it ("0:1/2", "1/2:1"); empty or missing means the whole run.
 * @param {string | null | undefined} segment
 * @param {string | null | undefined} [sequence]
 * @returns {Segment}
 */
export function parseSegment(segment, sequence) {
  const text = segment === null || segment === undefined || String(segment).trim() === '' ? WHOLE : String(segment).trim();
  const parts = text.split(':');
  if (parts.length !== 2) throw new Error('"' + text + '" is not an execution segment (from:to, as 0:1/2)');
  const from = parseSegmentPoint(parts[0]);
  const to = parseSegmentPoint(parts[1]);
  if (!(to > from)) throw new Error('execution segment "' + text + '" is empty');
  const seq = sequence === null || sequence === undefined || String(sequence).trim() === '' ? null : String(sequence).trim();
  return { segment: text, from: from, to: to, share: to - from, sequence: seq };
}

/**
 * The segment a running k6 process was given, from `exec.test.options` (readable in setup, not in
 * the init context).
 * @param {{ executionSegment?: unknown, executionSegmentSequence?: unknown } | null | undefined} options
 * @returns {Segment}
 */
export function segmentOf(options) {
  const o = options || {};
  /** @param {unknown} v */
  const text = (v) => (v === null || v === undefined ? null : Array.isArray(v) ? v.join(',') : String(v));
  return parseSegment(text(o.executionSegment), text(o.executionSegmentSequence));
}

/**
 * @param {Segment} s
 */
export function isWhole(s) {
  return s.from === 0 && s.to === 1;
}
