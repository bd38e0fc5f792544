// @ts-check
// One key's rate-limit windows as self-contained SVG text (nothing fetched when viewed), so a report
// opens the same offline from a CI artifact. Layout is timeline-scale.js, marks timeline-marks.js;
// every mark's class is listed in README.md (The windows as a picture › Marks).

import { retryWaitMs, DEFAULT_TOLERANCES } from './snapshot.js';
import { COLOURS, emptySvg, esc, headingSvg, legendSvg } from './svg.js';
import { bansSvg, boundariesSvg, remainingSvg, requestsSvg, retryAfterSvg, violationsSvg } from './timeline-marks.js';
import { axesSvg, timelineFrame, timelineScale } from './timeline-scale.js';

/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 * @typedef {{ events: string[], violations: Array<{ kind: string, level: 'must' | 'should', detail: string }> }} Outcome what the picture reads of the judge's outcome for one answer (judge/rules/window-rules.js)
 * @typedef {import('./timeline-types.js').TimelineViolation} TimelineViolation
 * @typedef {import('./timeline-types.js').TimelinePoint} TimelinePoint
 * @typedef {{ key: string, points: TimelinePoint[], title?: string }} Timeline
 * @typedef {{ width?: number, height?: number }} SvgOptions
 * @typedef {SvgOptions & { axis?: 'auto' | 'time' | 'sequence' }} TimelineOptions
 */

/**
 * One request of a key as the timeline draws it.
 * @param {Snapshot} s
 * @param {Outcome} [outcome]
 * @param {Tolerances} [tolerances]
 * @returns {TimelinePoint}
 */
export function timelinePoint(s, outcome, tolerances) {
  const offset = s.receivedAtMs - s.serverNowMs;
  const wait = s.refused ? retryWaitMs(s, tolerances || DEFAULT_TOLERANCES) : null;
  /** @type {TimelinePoint} */
  const point = {
    atMs: s.sentAtMs,
    status: s.status,
    limit: s.limit,
    remaining: s.remaining,
    resetAtMs: s.reset === null ? null : s.reset * 1000 + offset,
    retryAfterMs: wait,
  };
  if (outcome) {
    if (outcome.events.indexOf('ban_detected') >= 0) point.ban = true;
    if (outcome.violations.length > 0) {
      point.violations = outcome.violations.map(function (v) {
        return { kind: v.kind, level: v.level, detail: v.detail };
      });
    }
  }
  return point;
}

const LEGEND = [
  ['admitted', COLOURS.admitted],
  ['refused', COLOURS.refused],
  ['Remaining', COLOURS.remaining],
  ['Retry-After', COLOURS.retry],
  ['ban', COLOURS.ban],
  ['rule broken', COLOURS.must],
];
const INJECTED_LEGEND = ['injected', COLOURS.refused, 'hollow'];

/**
 * One key's rate-limit timeline as a self-contained SVG document fragment.
 * @param {Timeline} timeline
 * @param {TimelineOptions} [options]
 * @returns {string}
 */
export function timelineSvg(timeline, options) {
  const opts = options || {};
  const frame = timelineFrame(opts.width || 900, opts.height || 320);
  const points = timeline.points.slice().sort(function (a, b) {
    return a.atMs - b.atMs;
  });
  const title = timeline.title || 'Rate-limit windows of ' + timeline.key;
  if (points.length === 0) return rootSvg(timeline, title, frame, 'time') + emptySvg('no request', frame.left, frame.height);
  const scale = timelineScale(points, frame, opts.axis);
  return (
    rootSvg(timeline, title, frame, scale.axis) +
    legendSvg(
      'tl-legend',
      points.some(function (p) {
        return p.injected;
      })
        ? LEGEND.concat([INJECTED_LEGEND])
        : LEGEND,
      frame.width - frame.right
    ) +
    axesSvg(scale) +
    bansSvg(points, scale) +
    boundariesSvg(points, scale) +
    retryAfterSvg(points, scale) +
    remainingSvg(points, scale) +
    requestsSvg(points, scale) +
    violationsSvg(points, scale) +
    '</svg>'
  );
}

/**
 * The root element, which says which axis was drawn (data-axis) and whose key, and the heading.
 * @param {Timeline} timeline
 * @param {string} title
 * @param {import('./timeline-scale.js').TimelineFrame} frame
 * @param {'time' | 'sequence'} axis
 */
function rootSvg(timeline, title, frame, axis) {
  const { width, height } = frame;
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" class="rate-limit-timeline" data-axis="' +
    axis +
    '" viewBox="0 0 ' +
    width +
    ' ' +
    height +
    '" width="' +
    width +
    '" height="' +
    height +
    '" role="img" aria-label="' +
    esc(title) +
    '" data-key="' +
    esc(timeline.key) +
    '" font-family="system-ui, sans-serif" font-size="11">' +
    headingSvg(title, width, height, frame.left)
  );
}
