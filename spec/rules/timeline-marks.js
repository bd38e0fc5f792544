// @ts-check
// The marks timeline-svg.js draws over its axes, each placed by the TimelineScale of
// timeline-scale.js: the ban and Retry-After spans, the window boundaries, Remaining as a line, the
// requests (injected answers apart) and the rules they broke, with their names. Each takes the
// requests sorted by time and returns SVG text; timeline-svg.js's header comment lists the classes
// a test or a stylesheet finds them by.

import { COLOURS, esc, r1 } from './svg.js';

/**
 * @typedef {import('./timeline-svg.js').TimelinePoint} TimelinePoint
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
 * How the names of broken rules are written beside their marks: the font size, an estimate of one
 * character's width at it (generous, for any sans-serif), how close marks of one kind must stand to
 * form one run (labelled once), how many labels a picture holds at most, and how many rows (of
 * `row` px) above its stack a label may be raised to find room.
 */
const LABEL = { size: 9, charPx: 5, runPx: 40, max: 16, raise: 8, row: 12 };

/**
 * @typedef {{ x0: number, x1: number, y0: number, y1: number }} Box
 * @typedef {{ v: import('./timeline-svg.js').TimelineViolation, i: number, cx: number, cy: number, stackTop: number }} Mark
 *   one broken rule: request i's violation v, its triangle centred at (cx, cy) in a stack whose top triangle is at stackTop
 * @typedef {{ mark: Mark, x: number, y: number, anchor: 'start' | 'end', box: Box, leader: number | null }} Label
 *   a name written from (x, y); a label raised above its stack has a leader from the stack up to y
 */

/** @param {Box} a @param {Box} b */
function overlap(a, b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/** @param {Mark} m @returns {Box} */
function triangleBox(m) {
  return { x0: m.cx - 4.5, x1: m.cx + 4.5, y0: m.cy - 4, y1: m.cy + 4 };
}

/**
 * Where a mark's name may go, best first: beside it, right then left; then raised row by row above
 * its stack, on a leader, right then left. Only places inside the plot's width.
 * @param {Mark} m
 * @param {TimelineScale} s
 * @returns {Label[]}
 */
function labelPlaces(m, s) {
  const w = m.v.kind.length * LABEL.charPx;
  /** @type {Label[]} */
  const places = [];
  /** @param {number} x @param {number} y @param {'start' | 'end'} anchor @param {number | null} leader */
  const place = function (x, y, anchor, leader) {
    const x0 = anchor === 'start' ? x : x - w;
    places.push({ mark: m, x: x, y: y, anchor: anchor, box: { x0: x0, x1: x0 + w, y0: y - LABEL.size, y1: y + 3 }, leader: leader });
  };
  place(m.cx + 6, m.cy + 3, 'start', null);
  place(m.cx - 6, m.cy + 3, 'end', null);
  for (let j = 0; j < LABEL.raise; j++) {
    const y = m.stackTop - 9 - LABEL.row * j;
    place(m.cx + 3, y, 'start', y - 4);
    place(m.cx - 3, y, 'end', y - 4);
  }
  return places.filter(function (p) {
    return p.box.x0 >= s.left && p.box.x1 <= s.width - s.right && p.box.y0 >= s.top;
  });
}

/**
 * Which marks are named, and where. Named: the first mark of each kind, then the first of each
 * later run of it, at most LABEL.max in all. Placed from the right: a label beside its mark if it
 * covers no other, else raised on a leader to the lowest row where it crosses no label and no leader
 * and covers no mark (or, failing that, the fewest); so a label reaching over a later mark stands
 * above that mark's own. One with no such place is left out: its marks still have their <title>.
 * @param {Mark[]} marks in the order drawn (left to right)
 * @param {TimelineScale} s
 * @returns {Label[]}
 */
function chooseLabels(marks, s) {
  /** @type {Mark[]} */
  const firsts = [];
  /** @type {Mark[]} */
  const runs = [];
  /** @type {Record<string, number>} */
  const lastX = {};
  for (const m of marks) {
    const before = lastX[m.v.kind];
    if (before === undefined) firsts.push(m);
    else if (m.cx - before >= LABEL.runPx) runs.push(m);
    lastX[m.v.kind] = m.cx;
  }
  const named = firsts.concat(runs).slice(0, LABEL.max);
  named.sort(function (a, b) {
    return b.cx - a.cx || b.cy - a.cy;
  });
  const triangles = marks.map(triangleBox);
  /** @type {Label[]} */
  const placed = [];
  /** @param {Label} place */
  const free = function (place) {
    return !placed.some(function (l) {
      return (
        overlap(l.box, place.box) || (place.leader !== null && overlap(l.box, leaderBox(place))) || (l.leader !== null && overlap(place.box, leaderBox(l)))
      );
    });
  };
  for (const m of named) {
    /** @type {Label | null} */
    let best = null;
    let fewest = Infinity;
    for (const place of labelPlaces(m, s)) {
      if (!free(place)) continue;
      const covered = triangles.filter(function (t) {
        return overlap(t, place.box);
      }).length;
      if (covered < fewest) {
        best = place;
        fewest = covered;
      }
      if (covered === 0) break;
    }
    if (best) placed.push(best);
  }
  return placed;
}

/** @param {Label} l @returns {Box} */
function leaderBox(l) {
  return { x0: l.mark.cx - 1, x1: l.mark.cx + 1, y0: /** @type {number} */ (l.leader), y1: l.mark.stackTop - 4 };
}

/** A label: its leader, if raised, then its text. @param {Label} l */
function labelSvg(l) {
  const v = l.mark.v;
  const colour = v.level === 'must' ? COLOURS.must : COLOURS.should;
  const leader =
    l.leader === null
      ? ''
      : '<line class="tl-violation-leader" x1="' +
        l.mark.cx +
        '" y1="' +
        (l.mark.stackTop - 4) +
        '" x2="' +
        l.mark.cx +
        '" y2="' +
        l.leader +
        '" stroke="' +
        colour +
        '" stroke-width="0.75"/>';
  return (
    leader +
    '<text class="tl-violation-label tl-' +
    v.level +
    '" data-kind="' +
    esc(v.kind) +
    '" data-index="' +
    l.mark.i +
    '" x="' +
    r1(l.x) +
    '" y="' +
    r1(l.y) +
    '"' +
    (l.anchor === 'end' ? ' text-anchor="end"' : '') +
    ' font-size="' +
    LABEL.size +
    '" fill="' +
    colour +
    '" stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke">' +
    esc(v.kind) +
    '</text>'
  );
}

/**
 * Each rule a request broke, as a triangle above it (several stacked upwards), its <title>
 * naming the rule, and the rule's name written beside the first mark of each run of its kind
 * (chooseLabels), drawn under the triangles.
 * @param {TimelinePoint[]} points
 * @param {TimelineScale} s
 */
export function violationsSvg(points, s) {
  /** @type {Mark[]} */
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
  return chooseLabels(marks, s).map(labelSvg).join('') + triangles.join('');
}
