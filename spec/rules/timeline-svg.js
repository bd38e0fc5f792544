// @ts-check
// One key's rate-limit windows as a picture: self-contained SVG text (no script, no font, no
// stylesheet or chart library fetched when it is viewed), so a report opens the same from a CI
// artifact offline. Plain ES2015 without imports outside spec/rules and without Node APIs: the
// conformance kit, the judging proxy, the client report and the k6 scripts (by relative path) draw
// with the same module. Where things stand is timeline-scale.js, the marks timeline-marks.js, what
// the pictures share svg.js; capacity-svg.js draws a capacity search the same way.
//
// API
//
//   timelinePoint(snapshot, outcome?, tolerances?) -> TimelinePoint
//     One request of one key, from what the window rules saw: `snapshot` is readSnapshot()'s result
//     for the response (snapshot.js), `outcome` what createWindowRules().observe([snapshot])
//     answered for it (window-rules.js). Its violations and a ban it announced are kept.
//
//   timelineSvg({ key, points, title? }, { width?, height?, axis? }?) -> string
//     One key's timeline: `points` (TimelinePoint[], any order) drawn over the time they span, or,
//     when requests come faster than the time axis can separate them (axis 'auto', the default),
//     in the order sent, evenly spaced (axis 'sequence'; the root's data-axis says which).
//     Marks, each an element with a class a test or a stylesheet can find:
//       .tl-request.tl-admitted | .tl-refused | .tl-other | .tl-no-response   one per request (circle)
//       .tl-injected           also on a request whose answer was injected (`injected`: --faults of the
//                              proxy or the server): a hollow dashed circle, its <title> saying so, and
//                              a legend entry only when there is one. Its Limit, Remaining and Reset
//                              are not the limiter's: the Remaining line and the boundaries pass it by
//       .tl-remaining          X-RateLimit-Remaining as a line (polyline)
//       .tl-retry-after        the span each 429's Retry-After names (rect from the 429 onwards)
//       .tl-window-boundary    each X-RateLimit-Reset moment (dashed line)
//       .tl-ban                an announced ban, from the 429 that announced it to its end (rect)
//       .tl-violation.tl-must | .tl-should   each broken rule, at the request that broke it (path,
//                              with data-kind and a <title> naming the rule)
//       .tl-violation-label    the rule's name (its kind) written at one of its marks (text, with
//                              data-kind and data-index): the first mark of each kind, then the first
//                              of each later run of it (its marks under 40 px apart), at most 16 per
//                              picture, so that hundreds of broken rules stay readable and the SVG
//                              grows only with the marks. Beside the mark, or raised above its stack
//                              on a leader (.tl-violation-leader, a line); never over another label,
//                              left out when it finds no room (the marks keep their <title>)
//     Every mark but a label carries data-at-ms (and spans data-until-ms) with the time it stands
//     for. The picture ends one request-span after the last request; a span cut there has
//     data-clipped.
//
// Times are milliseconds on any one clock (the client's: sentAtMs of the snapshots); the axis shows
// seconds from the first mark.

import { retryWaitMs, DEFAULT_TOLERANCES } from './snapshot.js';
import { COLOURS, emptySvg, esc, headingSvg, legendSvg } from './svg.js';
import { bansSvg, boundariesSvg, remainingSvg, requestsSvg, retryAfterSvg, violationsSvg } from './timeline-marks.js';
import { axesSvg, timelineFrame, timelineScale } from './timeline-scale.js';

/**
 * @typedef {import('./snapshot.js').Snapshot} Snapshot
 * @typedef {import('./snapshot.js').Tolerances} Tolerances
 * @typedef {import('./window-rules.js').Outcome} Outcome
 * @typedef {{ kind: string, level: 'must' | 'should', detail: string }} TimelineViolation
 * @typedef {object} TimelinePoint one request
 * @property {number} atMs when it was sent
 * @property {number} status 0 when no response came
 * @property {number | null} [limit] X-RateLimit-Limit
 * @property {number | null} [remaining] X-RateLimit-Remaining
 * @property {number | null} [resetAtMs] the moment X-RateLimit-Reset names, on the same clock as atMs
 * @property {number | null} [retryAfterMs] the wait a refusal's Retry-After names
 * @property {boolean} [ban] this refusal announced a ban lasting retryAfterMs
 * @property {boolean} [injected] a fault injected in the server's place (--faults), not the limiter's answer
 * @property {TimelineViolation[]} [violations] the rules broken by this response
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
