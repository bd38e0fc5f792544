// @ts-check
// The marks timeline-svg.js draws, each placed by timeline-scale.js's TimelineScale; each takes the
// requests sorted by time and returns SVG text. Their classes: README.md (… › Marks).

import { COLOURS, esc, r1 } from './svg.js';
import { violationLabelsSvg } from './timeline-labels.js';

/**
 * @typedef {import('./timeline-types.js').TimelinePoint} TimelinePoint
 * @typedef {import('./timeline-scale.js').TimelineScale} TimelineScale
 */

/** @param {TimelinePoint} p */
function requestClass(p) {
  if (p.status === 0) return 'tl-no-response';
  if (p.status >= 200 && p.status < 300) return 'tl-admitted';
  if (p.status === 429 || p.status === 403) return 'tl-refused';
  return 'tl-other';
}

/**
 * The opening of a span's rect, from a request at `from` until `untilMs`, up to its width: what a ban
 * and a Retry-After span share (their height and colours follow).
 * @param {string} cls
 * @param {number} atMs
 * @param {number} untilMs
 * @param {number} from
 * @param {number} y
 * @param {TimelineScale} s
 */
function spanStart(cls, atMs, untilMs, from, y, s) {
  return (
    '<rect class="' +
    cls +
    '" data-at-ms="' +
    atMs +
    '" data-until-ms="' +
    untilMs +
    '"' +
    s.clip(untilMs) +
    ' x="' +
    from +
    '" y="' +
    y +
    '" width="' +
    r1(Math.max(1, s.xAt(untilMs) - from)) +
    '"'
  );
}

/**
 * Each announced ban, from the refusal that announced it to its end, over the whole plot: drawn
 * first, so that everything else is drawn over it.
 * @param {TimelinePoint[]} points
 * @param {TimelineScale} s
 */
export function bansSvg(points, s) {
  /** @type {string[]} */
  const out = [];
  points.forEach(function (p, i) {
    if (!p.ban || p.retryAfterMs === null || p.retryAfterMs === undefined) return;
    const from = s.xOf(i);
    out.push(
      spanStart('tl-ban', p.atMs, p.atMs + p.retryAfterMs, from, s.top, s) +
        ' height="' +
        (s.plotBottom - s.top) +
        '" fill="' +
        COLOURS.ban +
        '" fill-opacity="0.12" stroke="' +
        COLOURS.ban +
        '" stroke-dasharray="2 2"><title>ban announced: ' +
        (p.retryAfterMs / 1000).toFixed(0) +
        ' s</title></rect>'
    );
    out.push('<text x="' + (from + 4) + '" y="' + (s.top + 12) + '" fill="' + COLOURS.ban + '">ban ' + (p.retryAfterMs / 1000).toFixed(0) + ' s</text>');
  });
  return out.join('');
}

/**
 * The window boundaries: every distinct moment Reset names (within a second) inside the picture.
 * @param {TimelinePoint[]} points
 * @param {TimelineScale} s
 */
export function boundariesSvg(points, s) {
  /** @type {number[]} */
  const resets = [];
  for (const p of points) {
    const at = p.resetAtMs;
    if (p.injected || at === null || at === undefined || at < s.t0 || at > (s.axis === 'time' ? s.t1 : s.lastRequest)) continue;
    if (
      resets.some(function (r) {
        return Math.abs(r - at) <= 1000;
      })
    )
      continue;
    resets.push(at);
  }
  return resets
    .map(function (at) {
      const bx = s.xAt(at);
      return (
        '<line class="tl-window-boundary" data-at-ms="' +
        Math.round(at) +
        '" x1="' +
        bx +
        '" y1="' +
        (s.top - 4) +
        '" x2="' +
        bx +
        '" y2="' +
        s.axisY +
        '" stroke="' +
        COLOURS.boundary +
        '" stroke-dasharray="5 3"><title>window resets (X-RateLimit-Reset)</title></line>'
      );
    })
    .join('');
}

/**
 * The span each refusal's Retry-After names, in its own lane.
 * @param {TimelinePoint[]} points
 * @param {TimelineScale} s
 */
export function retryAfterSvg(points, s) {
  /** @type {string[]} */
  const out = [];
  points.forEach(function (p, i) {
    if (p.retryAfterMs === null || p.retryAfterMs === undefined || requestClass(p) !== 'tl-refused') return;
    out.push(
      spanStart('tl-retry-after', p.atMs, p.atMs + p.retryAfterMs, s.xOf(i), s.lanes.retry - 4, s) +
        ' height="8" fill="' +
        COLOURS.retry +
        '" fill-opacity="0.35" stroke="' +
        COLOURS.retry +
        '"><title>' +
        p.status +
        ': Retry-After ' +
        (p.retryAfterMs / 1000).toFixed(1) +
        ' s</title></rect>'
    );
  });
  return out.join('');
}

/**
 * Remaining as a step line over the responses that carried it: it holds until the next says
 * otherwise. Nothing when no response carried it. An injected answer's fields are not the
 * limiter's: the line passes it by.
 * @param {TimelinePoint[]} points
 * @param {TimelineScale} s
 */
export function remainingSvg(points, s) {
  /** @type {string[]} */
  const steps = [];
  /** @type {number | null} */
  let before = null;
  let carried = 0;
  points.forEach(function (p, i) {
    if (p.injected || typeof p.remaining !== 'number') return;
    if (before !== null) steps.push(s.xOf(i) + ',' + s.y(before));
    steps.push(s.xOf(i) + ',' + s.y(p.remaining));
    before = p.remaining;
    carried += 1;
  });
  if (carried === 0) return '';
  return (
    '<polyline class="tl-remaining" data-points="' +
    carried +
    '" fill="none" stroke="' +
    COLOURS.remaining +
    '" stroke-width="1.5" points="' +
    steps.join(' ') +
    '"/>'
  );
}

/** What an injected answer's <title> says. */
const INJECTED = "injected by --faults (the proxy's or the server's), not the limiter's answer";

/**
 * One circle per request, coloured by its answer; smaller when the order sent leaves them little room.
 * An answer injected in the server's place (--faults) is a hollow dashed circle: the client had to
 * honour it, but the limiter never decided it.
 * @param {TimelinePoint[]} points
 * @param {TimelineScale} s
 */
export function requestsSvg(points, s) {
  const radius = s.axis === 'sequence' ? Math.max(1.5, Math.min(3, s.slot / 2.5)) : 3;
  return points
    .map(function (p, i) {
      const cls = requestClass(p);
      const colour = cls === 'tl-admitted' ? COLOURS.admitted : cls === 'tl-refused' ? COLOURS.refused : COLOURS.other;
      const paint = p.injected
        ? ' r="' + r1(Math.max(3.5, radius)) + '" fill="#ffffff" stroke="' + COLOURS.refused + '" stroke-width="1.5" stroke-dasharray="1.5 1"'
        : ' r="' + r1(radius) + '" fill="' + colour + '"';
      return (
        '<circle class="tl-request ' +
        cls +
        (p.injected ? ' tl-injected' : '') +
        '" data-index="' +
        i +
        '" data-at-ms="' +
        p.atMs +
        '" data-status="' +
        p.status +
        '" cx="' +
        s.xOf(i) +
        '" cy="' +
        s.lanes.requests +
        '"' +
        paint +
        '><title>#' +
        (i + 1) +
        ': ' +
        (p.status === 0 ? 'no response' : p.status) +
        (p.injected ? ' ' + INJECTED : typeof p.remaining === 'number' ? ', Remaining ' + p.remaining : '') +
        '</title></circle>'
      );
    })
    .join('');
}

/**
 * Each rule a request broke, as a triangle above it (several stacked upwards), its <title>
 * naming the rule, and the rule's name written beside the first mark of each run of its kind
 * (chooseLabels), drawn under the triangles.
 * @param {TimelinePoint[]} points
 * @param {TimelineScale} s
 */
export function violationsSvg(points, s) {
  /** @type {import('./timeline-labels.js').Mark[]} */
  const marks = [];
  points.forEach(function (p, i) {
    const vs = p.violations || [];
    const stackTop = s.lanes.violations - (vs.length - 1) * 9;
    vs.forEach(function (v, k) {
      marks.push({ v: v, i: i, cx: s.xOf(i), cy: s.lanes.violations - k * 9, stackTop: stackTop });
    });
  });
  const triangles = marks.map(function (m) {
    const v = m.v;
    return (
      '<path class="tl-violation tl-' +
      v.level +
      '" data-kind="' +
      esc(v.kind) +
      '" data-index="' +
      m.i +
      '" data-at-ms="' +
      /** @type {TimelinePoint} */ (points[m.i]).atMs +
      '" d="M' +
      m.cx +
      ',' +
      (m.cy + 4) +
      ' L' +
      r1(m.cx - 4.5) +
      ',' +
      (m.cy - 4) +
      ' L' +
      r1(m.cx + 4.5) +
      ',' +
      (m.cy - 4) +
      ' Z" fill="' +
      (v.level === 'must' ? COLOURS.must : COLOURS.should) +
      '"><title>' +
      esc(v.kind + ' (' + v.level + '): ' + v.detail) +
      '</title></path>'
    );
  });
  return violationLabelsSvg(marks, s) + triangles.join('');
}
