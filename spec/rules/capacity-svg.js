// @ts-check
// A capacity search as a picture: self-contained SVG text, like timeline-svg.js's (no script, no
// font, no stylesheet or chart library fetched when it is viewed), drawn with the same parts
// (svg.js). Plain ES2015 without imports outside spec/rules and without Node APIs: capacity.js (k6,
// by relative path) draws its summary with it, and the guides' example picture is drawn by it.
//
// API
//
//   capacitySvg({ rows, held, broke, title? }, { width?, height? }?) -> string
//     A capacity search: `rows` are steps { rate, achieved, p95, p99, ok } (judgeSteps() of
//     load/lib/phases.js writes them, name and why optional), `held` and `broke` the step (or its
//     rate, or null) that held last and broke first. Marks: .cap-achieved (line), .cap-step.cap-ok |
//     .cap-broke (circles), .cap-p95 and .cap-p99 (lines, right axis in ms), .cap-ideal (achieved =
//     offered), .cap-knee (between the rate that held and the one that broke).

import { COLOURS, emptySvg, esc, headingSvg, legendSvg, niceStep, r1 } from './svg.js';

/**
 * @typedef {{ rate: number, achieved: number, p95: number, p99: number, ok: boolean, name?: string, why?: string }} CapacityRow
 * @typedef {{ rows: CapacityRow[], held?: { rate: number } | number | null, broke?: { rate: number } | number | null, title?: string }} Capacity
 * @typedef {{ width?: number, height?: number }} SvgOptions
 */

const LEGEND = [
  ['achieved /s', COLOURS.remaining],
  ['p95 ms', COLOURS.p95],
  ['p99 ms', COLOURS.p99],
  ['knee', COLOURS.ban],
];

/**
 * A capacity search as a self-contained SVG: achieved rate and p95/p99 per offered rate, the knee marked.
 * @param {Capacity} capacity
 * @param {SvgOptions} [options]
 * @returns {string}
 */
export function capacitySvg(capacity, options) {
  const opts = options || {};
  const width = opts.width || 900;
  const height = opts.height || 340;
  const rows = capacity.rows.slice().sort(function (a, b) {
    return a.rate - b.rate;
  });
  const title = capacity.title || 'Capacity: achieved rate and latency per step';
  const s = capacityScale(rows, width, height);
  const root =
    '<svg xmlns="http://www.w3.org/2000/svg" class="capacity-chart" viewBox="0 0 ' +
    width +
    ' ' +
    height +
    '" width="' +
    width +
    '" height="' +
    height +
    '" role="img" aria-label="' +
    esc(title) +
    '" font-family="system-ui, sans-serif" font-size="11">' +
    headingSvg(title, width, height, s.left);
  if (rows.length === 0) return root + emptySvg('no step', s.left, height);
  return (
    root +
    legendSvg('cap-legend', LEGEND, width - s.right) +
    axesSvg(s) +
    kneeSvg(s, rateOf(capacity.held), rateOf(capacity.broke)) +
    seriesSvg(rows, s) +
    stepsSvg(rows, s) +
    '</svg>'
  );
}

/** @param {{ rate: number } | number | null | undefined} step */
function rateOf(step) {
  if (step === null || step === undefined) return null;
  return typeof step === 'number' ? step : step.rate;
}

/**
 * Where everything stands: offered rate along the bottom, achieved rate on the left, latency (ms)
 * on the right, each axis reaching a little past the largest value.
 * @param {CapacityRow[]} rows
 * @param {number} width
 * @param {number} height
 */
function capacityScale(rows, width, height) {
  const left = 56;
  const right = 60;
  const top = 52;
  const bottom = height - 44;
  let maxRate = 1;
  let maxMs = 1;
  for (const row of rows) {
    maxRate = Math.max(maxRate, row.rate, row.achieved);
    maxMs = Math.max(maxMs, row.p95, row.p99);
  }
  maxRate *= 1.05;
  maxMs *= 1.1;
  return {
    width: width,
    height: height,
    left: left,
    right: right,
    top: top,
    bottom: bottom,
    maxRate: maxRate,
    maxMs: maxMs,
    /** @param {number} rate */
    x: function (rate) {
      return r1(left + (rate / maxRate) * (width - left - right));
    },
    /** @param {number} rate */
    yRate: function (rate) {
      return r1(bottom - (rate / maxRate) * (bottom - top));
    },
    /** @param {number} ms */
    yMs: function (ms) {
      return r1(bottom - (ms / maxMs) * (bottom - top));
    },
  };
}

/** The three axes with their ticks and names, and the line where achieved equals offered. @param {ReturnType<typeof capacityScale>} s */
function axesSvg(s) {
  const { left, right, top, bottom, width, height, maxRate, maxMs, x, yRate, yMs } = s;
  const out = [];
  out.push('<line x1="' + left + '" y1="' + top + '" x2="' + left + '" y2="' + bottom + '" stroke="#d0d7de"/>');
  out.push('<line x1="' + (width - right) + '" y1="' + top + '" x2="' + (width - right) + '" y2="' + bottom + '" stroke="#d0d7de"/>');
  out.push('<line x1="' + left + '" y1="' + bottom + '" x2="' + (width - right) + '" y2="' + bottom + '" stroke="#8c959f"/>');
  const rateStep = niceStep(maxRate, 6);
  for (let v = 0; v <= maxRate; v += rateStep) {
    out.push('<text x="' + x(v) + '" y="' + (bottom + 14) + '" text-anchor="middle" fill="#57606a">' + v + '</text>');
    out.push('<text x="' + (left - 6) + '" y="' + (yRate(v) + 4) + '" text-anchor="end" fill="#57606a">' + v + '</text>');
  }
  const msStep = niceStep(maxMs, 6);
  for (let v = 0; v <= maxMs; v += msStep) {
    out.push('<text x="' + (width - right + 6) + '" y="' + (yMs(v) + 4) + '" fill="#57606a">' + r1(v) + '</text>');
  }
  out.push('<text x="' + (left + width - right) / 2 + '" y="' + (height - 12) + '" text-anchor="middle" fill="#57606a">offered rate (requests/s)</text>');
  out.push('<text x="4" y="' + (top - 8) + '" fill="#57606a">achieved /s</text>');
  out.push('<text x="' + (width - right - 10) + '" y="' + (top - 8) + '" fill="#57606a">latency ms</text>');
  out.push(
    '<line class="cap-ideal" x1="' +
      x(0) +
      '" y1="' +
      yRate(0) +
      '" x2="' +
      x(maxRate) +
      '" y2="' +
      yRate(maxRate) +
      '" stroke="#d0d7de" stroke-dasharray="4 4"><title>achieved = offered</title></line>'
  );
  return out.join('');
}

/**
 * The knee: midway between the rate that held and the one that broke (at either when only one is
 * known; nothing when neither is).
 * @param {ReturnType<typeof capacityScale>} s
 * @param {number | null} held
 * @param {number | null} broke
 */
function kneeSvg(s, held, broke) {
  if (held === null && broke === null) return '';
  const at = held !== null && broke !== null ? (held + broke) / 2 : held !== null ? held : /** @type {number} */ (broke);
  const text = (held !== null ? 'held ' + held + '/s' : 'nothing held') + (broke !== null ? ', broke at ' + broke + '/s' : '');
  return (
    '<line class="cap-knee" data-held="' +
    (held === null ? '' : held) +
    '" data-broke="' +
    (broke === null ? '' : broke) +
    '" x1="' +
    s.x(at) +
    '" y1="' +
    s.top +
    '" x2="' +
    s.x(at) +
    '" y2="' +
    s.bottom +
    '" stroke="' +
    COLOURS.ban +
    '" stroke-width="2" stroke-dasharray="6 3"><title>knee: ' +
    text +
    '</title></line>' +
    ('<text x="' + (s.x(at) + 4) + '" y="' + (s.top + 10) + '" fill="' + COLOURS.ban + '">knee: ' + esc(text) + '</text>')
  );
}

/** p95 and p99 against the right axis, then the achieved rate against the left, one line each. @param {CapacityRow[]} rows @param {ReturnType<typeof capacityScale>} s */
function seriesSvg(rows, s) {
  /** @type {Array<[string, string, (row: CapacityRow) => number, (v: number) => number]>} */
  const series = [
    ['cap-p95', COLOURS.p95, (row) => row.p95, s.yMs],
    ['cap-p99', COLOURS.p99, (row) => row.p99, s.yMs],
    ['cap-achieved', COLOURS.remaining, (row) => row.achieved, s.yRate],
  ];
  return series
    .map(function ([cls, colour, value, scale]) {
      const points = rows.map(function (row) {
        return s.x(row.rate) + ',' + scale(value(row));
      });
      return '<polyline class="' + cls + '" fill="none" stroke="' + colour + '" stroke-width="1.5" points="' + points.join(' ') + '"/>';
    })
    .join('');
}

/** Each step as a circle at its achieved rate, green if it held, red if it broke, its numbers in its <title>. @param {CapacityRow[]} rows @param {ReturnType<typeof capacityScale>} s */
function stepsSvg(rows, s) {
  return rows
    .map(function (row) {
      const what =
        (row.name ? row.name + ': ' : '') +
        row.rate +
        '/s offered, ' +
        r1(row.achieved) +
        '/s achieved, p95 ' +
        r1(row.p95) +
        ' ms, p99 ' +
        r1(row.p99) +
        ' ms' +
        (row.ok ? '' : ' (broke' + (row.why ? ': ' + row.why : '') + ')');
      return (
        '<circle class="cap-step ' +
        (row.ok ? 'cap-ok' : 'cap-broke') +
        '" data-rate="' +
        row.rate +
        '" cx="' +
        s.x(row.rate) +
        '" cy="' +
        s.yRate(row.achieved) +
        '" r="4" fill="' +
        (row.ok ? COLOURS.admitted : COLOURS.refused) +
        '"><title>' +
        esc(what) +
        '</title></circle>'
      );
    })
    .join('');
}
