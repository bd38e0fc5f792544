// @ts-check
// The names of broken rules written beside their marks on a timeline (timeline-marks.js draws the
// marks): the first mark of each run of one kind gets its rule's name, beside it or raised above its
// stack on a leader, never over another label, at most LABEL.max in a picture.

import { COLOURS, esc, r1 } from './svg.js';

/** @typedef {import('./timeline-scale.js').TimelineScale} TimelineScale */

/**
 * charPx is generous so that any sans-serif fits; marks of one kind under runPx apart form one run,
 * labelled once; a label may be raised up to `raise` rows of `row` px above its stack.
 */
const LABEL = { size: 9, charPx: 5, runPx: 40, max: 16, raise: 8, row: 12 };

/**
 * @typedef {{ x0: number, x1: number, y0: number, y1: number }} Box
 * @typedef {{ v: import('./timeline-types.js').TimelineViolation, i: number, cx: number, cy: number, stackTop: number }} Mark
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
 * Placed from the right, so that a label reaching over a later mark stands above that mark's own;
 * where no place is free of other labels, the one covering the fewest marks. One with no free place
 * is left out: its marks still have their <title>.
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
 * The labels of the marks of broken rules, as SVG text drawn under the triangles.
 * @param {Mark[]} marks in the order drawn (left to right)
 * @param {TimelineScale} s
 */
export function violationLabelsSvg(marks, s) {
  return chooseLabels(marks, s).map(labelSvg).join('');
}
