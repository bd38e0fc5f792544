// @ts-check
// A capacity search (load/lib/knee.js judgeSteps() rows) as self-contained SVG text, drawn with the
// timeline's parts (svg.js) so that capacity.js's k6 summary opens offline. Its marks are listed in
// README.md (The windows as a picture › Marks).

import { COLOURS, emptySvg, esc, headingSvg, legendSvg, r1 } from './svg.js';

/**
 * @typedef {'server' | 'key' | 'generator'} Bound
 * @typedef {{ rate: number, achieved: number, p95: number, p99: number, ok: boolean, requestMs?: number | null, name?: string, why?: string }} CapacityRow
 * @typedef {{ rows: CapacityRow[], held?: { rate: number } | number | null, broke?: { rate: number } | number | null, bound?: Bound | null, title?: string }} Capacity
 * @typedef {{ width?: number, height?: number }} SvgOptions
 */

const ACHIEVED = ['achieved /s', COLOURS.remaining];
const REQUEST = ['request ms', COLOURS.other];
const PERCENTILES = [
  ['p95 ms', COLOURS.p95],
  ['p99 ms', COLOURS.p99],
];

/** What the marker between the rate that held and the one that broke is called, by what bound the search. */
const MARKER = { server: "server's knee", key: "key's limit", generator: "generator's ceiling" };

/**
 * What bound a search, in words: capacity.js's report line `bound found: ...` and the picture's heading.
 * @param {Bound | null | undefined} bound
 * @param {number | null} held the highest rate that held
 * @param {number | null} broke the first rate that broke
 * @param {number} maxRate the highest rate of the run
 * @returns {string}
 */
export function boundText(bound, held, broke, maxRate) {
  const heldText = held === null ? 'nothing held' : held + '/s held';
  if (broke === null) return 'none up to ' + maxRate + '/s (neither the server, the key nor the generator)';
  if (bound === 'key') return "the key's limit at " + broke + '/s (' + heldText + '), not the server';
  if (bound === 'generator') return "the generator's ceiling at " + broke + '/s (' + heldText + '), not the server';
  return "the server's knee, between " + (held === null ? 0 : held) + ' and ' + broke + '/s';
}

/**
 * A capacity search as a self-contained SVG: achieved rate, request time, p95 and p99 per offered
 * rate, the knee marked, the bound found in the heading.
 * @param {Capacity} capacity
 * @param {SvgOptions} [options]
 * @returns {string}
 */
export function capacitySvg(capacity, options) {
  const opts = options || {};
  const width = opts.width || 900;
  const height = opts.height || 360;
  const rows = capacity.rows.slice().sort(function (a, b) {
    return a.rate - b.rate;
  });
  const held = rateOf(capacity.held);
  const broke = rateOf(capacity.broke);
  const s = capacityScale(rows, width, height);
  const subtitle = capacity.title || 'Capacity: achieved rate and latency per step';
  // Given the bound, the verdict is the heading and what was run the line under it.
  const maxRate = rows.reduce(function (m, row) {
    return Math.max(m, row.rate);
  }, 0);
  const heading = capacity.bound === undefined ? subtitle : 'bound found: ' + boundText(capacity.bound, held, broke, maxRate);
  const label = capacity.bound === undefined ? subtitle : heading + ' (' + subtitle + ')';
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
    esc(label) +
    '" font-family="system-ui, sans-serif" font-size="11">' +
    headingSvg(heading, width, height, s.left) +
    (capacity.bound === undefined ? '' : '<text class="cap-subtitle" x="' + s.left + '" y="32" fill="#57606a">' + esc(subtitle) + '</text>');
  if (rows.length === 0) return root + emptySvg('no step', s.left, height);
  return (
    root +
    legendSvg('cap-legend', legend(rows, capacity.bound), width - s.right) +
    axesSvg(s) +
    kneeSvg(s, held, broke, capacity.bound) +
    seriesSvg(rows, s) +
    stepsSvg(rows, s) +
    '</svg>'
  );
}

/**
 * The legend: the request time only when a row has one, the marker named after what it marks.
 * @param {CapacityRow[]} rows
 * @param {Bound | null | undefined} bound
 */
function legend(rows, bound) {
  const timed = rows.some(function (row) {
    return typeof row.requestMs === 'number';
  });
  return [ACHIEVED].concat(timed ? [REQUEST] : [], PERCENTILES, [[bound === undefined ? 'knee' : 'bound', COLOURS.ban]]);
}

/** @param {{ rate: number } | number | null | undefined} step */
function rateOf(step) {
  if (step === null || step === undefined) return null;
  return typeof step === 'number' ? step : step.rate;
}

/**
 * A logarithmic axis over [lo, hi] onto [from, to] pixels; values at or below 0 land on lo.
 * @param {number} lo
 * @param {number} hi
 * @param {number} from
 * @param {number} to
 */
function logAxis(lo, hi, from, to) {
  const a = Math.log(lo);
  const span = Math.log(hi) - a;
  /** @param {number} v */
  return function (v) {
    return r1(from + ((Math.log(Math.max(v, lo)) - a) / span) * (to - from));
  };
}

/**
 * Round values to label a logarithmic axis over [lo, hi]: 1, 2 and 5 of each power of ten, or
 * every digit when the range spans too little for four of those.
 * @param {number} lo
 * @param {number} hi
 * @returns {number[]}
 */
function logTicks(lo, hi) {
  /** @param {number[]} digits */
  const ticks = function (digits) {
    /** @type {number[]} */
    const out = [];
    for (let power = Math.pow(10, Math.floor(Math.log(lo) / Math.LN10)); power <= hi; power *= 10) {
      for (const d of digits) {
        const v = Math.round(d * power * 1000) / 1000;
        if (v >= lo && v <= hi) out.push(v);
      }
    }
    return out;
  };
  const coarse = ticks([1, 2, 5]);
  return coarse.length >= 4 ? coarse : ticks([1, 2, 3, 4, 5, 6, 7, 8, 9]);
}

/**
 * Where everything stands: offered rate along the bottom and achieved rate on the left, on one
 * logarithmic scale (so that achieved = offered is the diagonal), latency (ms) on the right, on a
 * logarithmic scale of its own; each axis reaching a little past its values.
 * @param {CapacityRow[]} rows
 * @param {number} width
 * @param {number} height
 */
function capacityScale(rows, width, height) {
  const left = 56;
  const right = 60;
  const top = 60;
  const bottom = height - 44;
  let minRate = Infinity;
  let maxRate = 1;
  let minMs = Infinity;
  let maxMs = 1;
  for (const row of rows) {
    minRate = Math.min(minRate, row.rate);
    if (row.achieved > 0) minRate = Math.min(minRate, row.achieved);
    maxRate = Math.max(maxRate, row.rate, row.achieved);
    for (const ms of msValues(row)) {
      minMs = Math.min(minMs, ms);
      maxMs = Math.max(maxMs, ms);
    }
  }
  const loRate = minRate === Infinity ? 1 : minRate / 1.3;
  const hiRate = maxRate * 1.3;
  const loMs = minMs === Infinity ? 0.1 : minMs / 1.5;
  const hiMs = Math.max(maxMs * 1.5, loMs * 10);
  return {
    width: width,
    height: height,
    left: left,
    right: right,
    top: top,
    bottom: bottom,
    loRate: loRate,
    hiRate: hiRate,
    loMs: loMs,
    hiMs: hiMs,
    x: logAxis(loRate, hiRate, left, width - right),
    yRate: logAxis(loRate, hiRate, bottom, top),
    yMs: logAxis(loMs, hiMs, bottom, top),
  };
}

/** The latencies of a row that can stand on a logarithmic axis. @param {CapacityRow} row */
function msValues(row) {
  const values = [row.p95, row.p99];
  if (typeof row.requestMs === 'number') values.push(row.requestMs);
  return values.filter(function (v) {
    return v > 0;
  });
}

/** The three axes with their ticks and names, and the line where achieved equals offered. @param {ReturnType<typeof capacityScale>} s */
function axesSvg(s) {
  const { left, right, top, bottom, width, height, x, yRate, yMs } = s;
  const out = [];
  out.push('<line x1="' + left + '" y1="' + top + '" x2="' + left + '" y2="' + bottom + '" stroke="#d0d7de"/>');
  out.push('<line x1="' + (width - right) + '" y1="' + top + '" x2="' + (width - right) + '" y2="' + bottom + '" stroke="#d0d7de"/>');
  out.push('<line x1="' + left + '" y1="' + bottom + '" x2="' + (width - right) + '" y2="' + bottom + '" stroke="#8c959f"/>');
  // Ticks crowd at the top of each power of ten on a log scale: a label too close to the last one is left out.
  let lastX = -Infinity;
  let lastY = Infinity;
  for (const v of logTicks(s.loRate, s.hiRate)) {
    out.push('<line class="cap-tick" x1="' + x(v) + '" y1="' + top + '" x2="' + x(v) + '" y2="' + bottom + '" stroke="#eaeef2"/>');
    if (x(v) - lastX >= 8 * String(v).length) {
      out.push(
        '<text class="cap-rate-tick" data-rate="' + v + '" x="' + x(v) + '" y="' + (bottom + 14) + '" text-anchor="middle" fill="#57606a">' + v + '</text>'
      );
      lastX = x(v);
    }
    if (lastY - yRate(v) >= 14) {
      out.push('<text x="' + (left - 6) + '" y="' + (yRate(v) + 4) + '" text-anchor="end" fill="#57606a">' + v + '</text>');
      lastY = yRate(v);
    }
  }
  lastY = Infinity;
  for (const v of logTicks(s.loMs, s.hiMs)) {
    if (lastY - yMs(v) < 14) continue;
    out.push('<text x="' + (width - right + 6) + '" y="' + (yMs(v) + 4) + '" fill="#57606a">' + v + '</text>');
    lastY = yMs(v);
  }
  out.push(
    '<text x="' + (left + width - right) / 2 + '" y="' + (height - 12) + '" text-anchor="middle" fill="#57606a">offered rate (requests/s, log scale)</text>'
  );
  out.push('<text x="4" y="' + (top - 8) + '" fill="#57606a">achieved /s</text>');
  out.push('<text x="' + (width - right - 10) + '" y="' + (top - 8) + '" fill="#57606a">latency ms</text>');
  out.push(
    '<line class="cap-ideal" x1="' +
      x(s.loRate) +
      '" y1="' +
      yRate(s.loRate) +
      '" x2="' +
      x(s.hiRate) +
      '" y2="' +
      yRate(s.hiRate) +
      '" stroke="#d0d7de" stroke-dasharray="4 4"><title>achieved = offered</title></line>'
  );
  return out.join('');
}

/**
 * The knee: midway (on the log scale) between the rate that held and the one that broke (at either
 * when only one is known; nothing when neither is), named after what bound the search.
 * @param {ReturnType<typeof capacityScale>} s
 * @param {number | null} held
 * @param {number | null} broke
 * @param {Bound | null | undefined} bound
 */
function kneeSvg(s, held, broke, bound) {
  if (held === null && broke === null) return '';
  const at = held !== null && broke !== null ? Math.sqrt(held * broke) : held !== null ? held : /** @type {number} */ (broke);
  const name = bound ? MARKER[bound] : bound === null ? 'no bound found' : 'knee';
  const text = name + ': ' + (held !== null ? 'held ' + held + '/s' : 'nothing held') + (broke !== null ? ', broke at ' + broke + '/s' : '');
  return (
    '<line class="cap-knee" data-held="' +
    (held === null ? '' : held) +
    '" data-broke="' +
    (broke === null ? '' : broke) +
    '" data-bound="' +
    (bound || '') +
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
    '" stroke-width="2" stroke-dasharray="6 3"><title>' +
    esc(text) +
    '</title></line>' +
    kneeLabel(s, s.x(at), text)
  );
}

/**
 * The marker's words beside it: to its right, or to its left when they would run past the plot (about 6 px a character).
 * @param {ReturnType<typeof capacityScale>} s
 * @param {number} x
 * @param {string} text
 */
function kneeLabel(s, x, text) {
  const fits = x + 4 + text.length * 6 <= s.width - s.right;
  return (
    '<text x="' +
    (fits ? x + 4 : x - 4) +
    '" y="' +
    (s.top + 10) +
    '"' +
    (fits ? '' : ' text-anchor="end"') +
    ' fill="' +
    COLOURS.ban +
    '">' +
    esc(text) +
    '</text>'
  );
}

/**
 * The request time, p95 and p99 against the right axis, then the achieved rate against the left,
 * one line each; a step without a value (no request) leaves its point out.
 * @param {CapacityRow[]} rows
 * @param {ReturnType<typeof capacityScale>} s
 */
function seriesSvg(rows, s) {
  /** @type {Array<[string, string, (row: CapacityRow) => number | null | undefined, (v: number) => number]>} */
  const series = [
    ['cap-request', COLOURS.other, (row) => row.requestMs, s.yMs],
    ['cap-p95', COLOURS.p95, (row) => row.p95, s.yMs],
    ['cap-p99', COLOURS.p99, (row) => row.p99, s.yMs],
    ['cap-achieved', COLOURS.remaining, (row) => row.achieved, s.yRate],
  ];
  return series
    .map(function ([cls, colour, value, scale]) {
      const points = [];
      for (const row of rows) {
        const v = value(row);
        if (typeof v === 'number' && (v > 0 || cls === 'cap-achieved')) points.push(s.x(row.rate) + ',' + scale(v));
      }
      if (points.length === 0) return '';
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
        '/s achieved, ' +
        (typeof row.requestMs === 'number' ? 'request ' + r1(row.requestMs) + ' ms, ' : '') +
        'p95 ' +
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
