// @ts-check
// Where timeline-svg.js draws each thing: the picture's frame (margins and lanes), the span of time
// it covers, the choice between a time axis and the order sent, and the axes drawn along them.
// The marks (timeline-marks.js) take every position from the TimelineScale this module builds.

import { niceStep, r1 } from './svg.js';

/**
 * @typedef {import('./timeline-types.js').TimelinePoint} TimelinePoint
 * @typedef {object} TimelineFrame the margins and lanes of a picture `width` by `height`
 * @property {number} width
 * @property {number} height
 * @property {number} left
 * @property {number} right
 * @property {number} top the top of the Remaining plot
 * @property {number} plotBottom where Remaining is 0
 * @property {{ violations: number, requests: number, retry: number }} lanes the rows of marks under the plot
 * @property {number} axisY the time axis
 * @typedef {object} TimeSpan the time the picture covers
 * @property {number} first the first request
 * @property {number} lastRequest the last request
 * @property {number} end the last moment drawn to scale
 * @property {number} t0 the left edge (padded)
 * @property {number} t1 the right edge (padded)
 * @property {number} maxLimit the top of the Remaining axis
 * @typedef {TimelineFrame & TimeSpan & {
 *   axis: 'time' | 'sequence',
 *   count: number,
 *   slot: number,
 *   x: (ms: number) => number,
 *   y: (remaining: number) => number,
 *   timeOf: (i: number) => number,
 *   xOf: (i: number) => number,
 *   xAt: (ms: number) => number,
 *   clip: (until: number) => string,
 * }} TimelineScale where everything stands: `x` a moment on the time axis, `y` a Remaining,
 *   `xOf` request i (sorted by time), `xAt` a moment on the chosen axis, `clip` the attribute of a
 *   span that ends past the picture; `slot` is one request's width on the sequence axis
 */

/** @param {number} width @param {number} height @returns {TimelineFrame} */
export function timelineFrame(width, height) {
  return {
    width: width,
    height: height,
    left: 48,
    right: 16,
    top: 52,
    plotBottom: height - 84,
    lanes: { violations: height - 76, requests: height - 58, retry: height - 44 },
    axisY: height - 30,
  };
}

/**
 * Ends at most one request-span after the last request: a ten-minute ban after ten seconds of
 * traffic would squeeze the requests into a corner (a span cut there is marked data-clipped).
 * @param {TimelinePoint[]} points sorted by time, at least one
 * @returns {TimeSpan}
 */
function timeSpan(points) {
  const first = /** @type {TimelinePoint} */ (points[0]).atMs;
  const lastRequest = /** @type {TimelinePoint} */ (points[points.length - 1]).atMs;
  let t1 = lastRequest;
  let maxLimit = 1;
  for (const p of points) {
    if (p.retryAfterMs !== null && p.retryAfterMs !== undefined) t1 = Math.max(t1, p.atMs + p.retryAfterMs);
    if (p.injected) continue;
    if (typeof p.limit === 'number' && p.limit > maxLimit) maxLimit = p.limit;
    if (typeof p.remaining === 'number' && p.remaining > maxLimit) maxLimit = p.remaining;
  }
  const horizon = lastRequest + Math.max(lastRequest - first, 1000);
  if (t1 > horizon) t1 = horizon;
  if (t1 - first < 1000) t1 = first + 1000;
  const pad = (t1 - first) * 0.02;
  return { first: first, lastRequest: lastRequest, end: t1, t0: first - pad, t1: t1 + pad, maxLimit: maxLimit };
}

/**
 * Requests too close for the time axis to separate (a burst of sixty in a second) are drawn in the
 * order sent instead, time not to scale: 'auto' (or none) chooses so, 'time' and 'sequence' force one.
 * @param {TimelinePoint[]} points sorted by time, at least one
 * @param {TimelineFrame} frame
 * @param {'auto' | 'time' | 'sequence'} [axis]
 * @returns {TimelineScale}
 */
export function timelineScale(points, frame, axis) {
  const span = timeSpan(points);
  const { left, right, top, plotBottom, width } = frame;
  const { t0, t1, maxLimit } = span;
  /** @param {number} ms */
  const x = function (ms) {
    return r1(left + ((ms - t0) / (t1 - t0)) * (width - left - right));
  };
  /** @param {number} remaining */
  const y = function (remaining) {
    return r1(plotBottom - (Math.max(0, Math.min(remaining, maxLimit)) / maxLimit) * (plotBottom - top));
  };
  /** @param {number} i */
  const timeOf = function (i) {
    return /** @type {TimelinePoint} */ (points[i]).atMs;
  };
  let crowded = 0;
  for (let i = 1; i < points.length; i++) if (x(timeOf(i)) - x(timeOf(i - 1)) < 2) crowded += 1;
  /** @type {'time' | 'sequence'} */
  const chosen = axis === 'time' || axis === 'sequence' ? axis : points.length > 1 && crowded * 4 >= points.length - 1 ? 'sequence' : 'time';
  const slot = (width - left - right) / (points.length + 1);
  /** @param {number} i */
  const xOf = function (i) {
    return chosen === 'sequence' ? r1(left + (i + 0.5) * slot) : x(timeOf(i));
  };
  /** Where a moment stands: on the time axis, or at the first request sent at or after it. @param {number} ms */
  const xAt = function (ms) {
    if (chosen === 'time') return x(Math.min(ms, span.end));
    for (let j = 0; j < points.length; j++) if (timeOf(j) >= ms) return r1(left + j * slot);
    return r1(left + (points.length + 0.9) * slot);
  };
  /** @param {number} until */
  const clip = function (until) {
    return until > (chosen === 'time' ? span.end : span.lastRequest) ? ' data-clipped="true"' : '';
  };
  return Object.assign({}, frame, span, { axis: chosen, count: points.length, slot, x, y, timeOf, xOf, xAt, clip });
}

/**
 * The axes: Remaining on the left; along the bottom seconds since the first request, or the
 * requests in order.
 * @param {TimelineScale} s
 */
export function axesSvg(s) {
  const { left, right, top, plotBottom, width, axisY } = s;
  const out = [];
  out.push('<line x1="' + left + '" y1="' + top + '" x2="' + left + '" y2="' + plotBottom + '" stroke="#d0d7de"/>');
  out.push('<line x1="' + left + '" y1="' + plotBottom + '" x2="' + (width - right) + '" y2="' + plotBottom + '" stroke="#d0d7de"/>');
  out.push('<text x="' + (left - 6) + '" y="' + (top + 4) + '" text-anchor="end" fill="#57606a">' + s.maxLimit + '</text>');
  out.push('<text x="' + (left - 6) + '" y="' + (plotBottom + 4) + '" text-anchor="end" fill="#57606a">0</text>');
  out.push('<text x="' + 4 + '" y="' + (top - 8) + '" fill="#57606a">Remaining</text>');
  out.push(s.axis === 'time' ? timeTicksSvg(s) : sequenceTicksSvg(s));
  out.push('<line x1="' + left + '" y1="' + axisY + '" x2="' + (width - right) + '" y2="' + axisY + '" stroke="#8c959f"/>');
  return out.join('');
}

/** A tick on the bottom axis at `tx`, labelled. @param {TimelineScale} s @param {number} tx @param {string} label */
function tickSvg(s, tx, label) {
  const { axisY } = s;
  return (
    '<line class="tl-tick" x1="' +
    tx +
    '" y1="' +
    axisY +
    '" x2="' +
    tx +
    '" y2="' +
    (axisY + 4) +
    '" stroke="#8c959f"/>' +
    '<text x="' +
    tx +
    '" y="' +
    (axisY + 16) +
    '" text-anchor="middle" fill="#57606a">' +
    label +
    '</text>'
  );
}

/** Seconds since the first request, at round steps. @param {TimelineScale} s */
function timeTicksSvg(s) {
  const { first, t0, t1 } = s;
  const stepMs = niceStep(t1 - t0, 8);
  let svg = '';
  for (let t = Math.ceil((t0 - first) / stepMs) * stepMs; first + t <= t1; t += stepMs) {
    svg += tickSvg(s, s.x(first + t), (t / 1000).toFixed(stepMs < 1000 ? 1 : 0) + ' s');
  }
  return svg;
}

/** Every so many requests, its number and when it was sent; and a note that time is not to scale. @param {TimelineScale} s */
function sequenceTicksSvg(s) {
  const step = Math.max(1, niceStep(s.count, 8));
  let svg = '';
  for (let n = step; n <= s.count; n += step) {
    svg += tickSvg(s, s.xOf(n - 1), '#' + n + ' +' + ((s.timeOf(n - 1) - s.first) / 1000).toFixed(1) + ' s');
  }
  return svg + '<text x="' + (s.left + 40) + '" y="' + (s.top - 8) + '" fill="#57606a">· requests in the order sent (time not to scale)</text>';
}
