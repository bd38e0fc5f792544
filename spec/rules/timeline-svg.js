// @ts-check
// Rate-limit windows and capacity steps as pictures: self-contained SVG text (no script, no font, no
// stylesheet or chart library fetched when it is viewed), so a report opens the same from a CI
// artifact offline. Plain ES2015 without imports outside spec/rules and without Node APIs: the
// conformance kit, the judging proxy, the client report and the k6 scripts (by relative path) draw
// with the same module.
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
//       .tl-remaining          X-RateLimit-Remaining as a line (polyline)
//       .tl-retry-after        the span each 429's Retry-After names (rect from the 429 onwards)
//       .tl-window-boundary    each X-RateLimit-Reset moment (dashed line)
//       .tl-ban                an announced ban, from the 429 that announced it to its end (rect)
//       .tl-violation.tl-must | .tl-should   each broken rule, at the request that broke it (path,
//                              with data-kind and a <title> naming the rule)
//     Every mark carries data-at-ms (and spans data-until-ms) with the time it stands for. The
//     picture ends one request-span after the last request; a span cut there has data-clipped.
//
//   capacitySvg({ rows, held, broke, title? }, { width?, height? }?) -> string
//     A capacity search: `rows` are steps { rate, achieved, p95, p99, ok } (judgeSteps() of
//     load/lib/phases.js writes them, name and why optional), `held` and `broke` the step (or its
//     rate, or null) that held last and broke first. Marks: .cap-achieved (line), .cap-step.cap-ok |
//     .cap-broke (circles), .cap-p95 and .cap-p99 (lines, right axis in ms), .cap-ideal (achieved =
//     offered), .cap-knee (between the rate that held and the one that broke).
//
// Times are milliseconds on any one clock (the client's: sentAtMs of the snapshots); the axis shows
// seconds from the first mark.

import { retryWaitMs, DEFAULT_TOLERANCES } from './snapshot.js';

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
 * @property {TimelineViolation[]} [violations] the rules broken by this response
 * @typedef {{ key: string, points: TimelinePoint[], title?: string }} Timeline
 * @typedef {{ rate: number, achieved: number, p95: number, p99: number, ok: boolean, name?: string, why?: string }} CapacityRow
 * @typedef {{ rows: CapacityRow[], held?: { rate: number } | number | null, broke?: { rate: number } | number | null, title?: string }} Capacity
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

/** @param {unknown} text */
function esc(text) {
  return String(text).replace(/[&<>"']/g, function (c) {
    return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;';
  });
}

/** @param {number} n */
function r1(n) {
  return Math.round(n * 10) / 10;
}

/** A round step for an axis spanning `span` with about `count` ticks. @param {number} span @param {number} count */
function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

const COLOURS = {
  admitted: '#1a7f37',
  refused: '#cf222e',
  other: '#6e7781',
  remaining: '#0969da',
  retry: '#d4a72c',
  ban: '#8250df',
  boundary: '#57606a',
  must: '#cf222e',
  should: '#9a6700',
  p95: '#bf8700',
  p99: '#cf222e',
};

/**
 * A row of legend entries (a swatch and its name, 84 px each), ending at `right`.
 * @param {string} cls
 * @param {string[][]} entries [name, colour]
 * @param {number} right
 */
function legendSvg(cls, entries, right) {
  let x = right - entries.length * 84;
  let svg = '';
  for (const [name, colour] of entries) {
    svg +=
      '<rect class="' +
      cls +
      '" x="' +
      x +
      '" y="24" width="10" height="10" fill="' +
      colour +
      '"/><text x="' +
      (x + 14) +
      '" y="33" fill="#1f2328">' +
      name +
      '</text>';
    x += 84;
  }
  return svg;
}

/** @param {TimelinePoint} p */
function requestClass(p) {
  if (p.status === 0) return 'tl-no-response';
  if (p.status >= 200 && p.status < 300) return 'tl-admitted';
  if (p.status === 429 || p.status === 403) return 'tl-refused';
  return 'tl-other';
}

/**
 * One key's rate-limit timeline as a self-contained SVG document fragment.
 * @param {Timeline} timeline
 * @param {TimelineOptions} [options]
 * @returns {string}
 */
export function timelineSvg(timeline, options) {
  const opts = options || {};
  const width = opts.width || 900;
  const height = opts.height || 320;
  const points = timeline.points.slice().sort(function (a, b) {
    return a.atMs - b.atMs;
  });
  const left = 48;
  const right = 16;
  const top = 52;
  const plotBottom = height - 84;
  const lanes = { violations: height - 76, requests: height - 58, retry: height - 44 };
  const axisY = height - 30;
  const title = timeline.title || 'Rate-limit windows of ' + timeline.key;
  const out = [];
  out.push(
    '<svg xmlns="http://www.w3.org/2000/svg" class="rate-limit-timeline" data-axis="__axis__" viewBox="0 0 ' +
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
      '" font-family="system-ui, sans-serif" font-size="11">'
  );
  out.push('<title>' + esc(title) + '</title>');
  out.push('<rect x="0" y="0" width="' + width + '" height="' + height + '" fill="#ffffff"/>');
  out.push('<text x="' + left + '" y="16" font-size="13" font-weight="bold" fill="#1f2328">' + esc(title) + '</text>');
  if (points.length === 0) {
    out.push('<text x="' + left + '" y="' + height / 2 + '" fill="#6e7781">no request</text></svg>');
    return out.join('').replace('data-axis="__axis__"', 'data-axis="time"');
  }

  const first = Math.min.apply(
    null,
    points.map(function (p) {
      return p.atMs;
    })
  );
  let t0 = first;
  let t1 = Math.max.apply(
    null,
    points.map(function (p) {
      return p.atMs;
    })
  );
  let maxLimit = 1;
  for (const p of points) {
    if (p.retryAfterMs !== null && p.retryAfterMs !== undefined) t1 = Math.max(t1, p.atMs + p.retryAfterMs);
    if (typeof p.limit === 'number' && p.limit > maxLimit) maxLimit = p.limit;
    if (typeof p.remaining === 'number' && p.remaining > maxLimit) maxLimit = p.remaining;
  }
  // A span reaching far past the last request (a ten-minute ban after ten seconds of traffic) would
  // squeeze the requests into a corner: the picture ends one request-span after the last request,
  // and a span cut there says so (data-clipped) and keeps its true end in data-until-ms.
  const lastRequest = Math.max.apply(
    null,
    points.map(function (p) {
      return p.atMs;
    })
  );
  const horizon = lastRequest + Math.max(lastRequest - first, 1000);
  if (t1 > horizon) t1 = horizon;
  if (t1 - t0 < 1000) t1 = t0 + 1000;
  const end = t1;
  const pad = (t1 - t0) * 0.02;
  t0 -= pad;
  t1 += pad;
  /** @param {number} ms */
  const x = function (ms) {
    return r1(left + ((ms - t0) / (t1 - t0)) * (width - left - right));
  };
  /** @param {number} remaining */
  const y = function (remaining) {
    return r1(plotBottom - (Math.max(0, Math.min(remaining, maxLimit)) / maxLimit) * (plotBottom - top));
  };
  // Requests sent faster than the time axis can separate them (a kit on a manual clock, a burst of
  // sixty in a second) are drawn in the order sent instead, evenly spaced: time is then not to scale,
  // and a span reaches the first request sent at or after its end.
  const times = points.map(function (p) {
    return p.atMs;
  });
  /** @param {number} i */
  const timeOf = function (i) {
    return /** @type {number} */ (times[i]);
  };
  let crowded = 0;
  for (let i = 1; i < points.length; i++) if (x(timeOf(i)) - x(timeOf(i - 1)) < 2) crowded += 1;
  const axis = opts.axis === 'time' || opts.axis === 'sequence' ? opts.axis : points.length > 1 && crowded * 4 >= points.length - 1 ? 'sequence' : 'time';
  const slot = (width - left - right) / (points.length + 1);
  /** Where each request stands. */
  const xs = points.map(function (p, i) {
    return axis === 'sequence' ? r1(left + (i + 0.5) * slot) : x(p.atMs);
  });
  /** @param {number} i */
  const xOf = function (i) {
    return /** @type {number} */ (xs[i]);
  };
  /** Where a moment stands: on the time axis, or at the first request sent at or after it. @param {number} ms */
  const xAt = function (ms) {
    if (axis === 'time') return x(Math.min(ms, end));
    for (let j = 0; j < points.length; j++) if (timeOf(j) >= ms) return r1(left + j * slot);
    return r1(left + (points.length + 0.9) * slot);
  };
  /** @param {number} until */
  const clip = function (until) {
    return until > (axis === 'time' ? end : lastRequest) ? ' data-clipped="true"' : '';
  };

  // Legend
  const legend = [
    ['admitted', COLOURS.admitted],
    ['refused', COLOURS.refused],
    ['Remaining', COLOURS.remaining],
    ['Retry-After', COLOURS.retry],
    ['ban', COLOURS.ban],
    ['rule broken', COLOURS.must],
  ];
  out.push(legendSvg('tl-legend', legend, width - right));

  // Axes: Remaining on the left; along the bottom seconds since the first request, or the requests in order.
  out.push('<line x1="' + left + '" y1="' + top + '" x2="' + left + '" y2="' + plotBottom + '" stroke="#d0d7de"/>');
  out.push('<line x1="' + left + '" y1="' + plotBottom + '" x2="' + (width - right) + '" y2="' + plotBottom + '" stroke="#d0d7de"/>');
  out.push('<text x="' + (left - 6) + '" y="' + (top + 4) + '" text-anchor="end" fill="#57606a">' + maxLimit + '</text>');
  out.push('<text x="' + (left - 6) + '" y="' + (plotBottom + 4) + '" text-anchor="end" fill="#57606a">0</text>');
  out.push('<text x="' + 4 + '" y="' + (top - 8) + '" fill="#57606a">Remaining</text>');
  if (axis === 'time') {
    const stepMs = niceStep(t1 - t0, 8);
    for (let t = Math.ceil((t0 - first) / stepMs) * stepMs; first + t <= t1; t += stepMs) {
      const tx = x(first + t);
      out.push('<line class="tl-tick" x1="' + tx + '" y1="' + axisY + '" x2="' + tx + '" y2="' + (axisY + 4) + '" stroke="#8c959f"/>');
      out.push('<text x="' + tx + '" y="' + (axisY + 16) + '" text-anchor="middle" fill="#57606a">' + (t / 1000).toFixed(stepMs < 1000 ? 1 : 0) + ' s</text>');
    }
  } else {
    const step = Math.max(1, niceStep(points.length, 8));
    for (let n = step; n <= points.length; n += step) {
      const tx = xOf(n - 1);
      out.push('<line class="tl-tick" x1="' + tx + '" y1="' + axisY + '" x2="' + tx + '" y2="' + (axisY + 4) + '" stroke="#8c959f"/>');
      out.push(
        '<text x="' +
          tx +
          '" y="' +
          (axisY + 16) +
          '" text-anchor="middle" fill="#57606a">#' +
          n +
          ' +' +
          ((timeOf(n - 1) - first) / 1000).toFixed(1) +
          ' s</text>'
      );
    }
    out.push('<text x="' + (left + 40) + '" y="' + (top - 8) + '" fill="#57606a">· requests in the order sent (time not to scale)</text>');
  }
  out.push('<line x1="' + left + '" y1="' + axisY + '" x2="' + (width - right) + '" y2="' + axisY + '" stroke="#8c959f"/>');

  // Bans first, so that everything else is drawn over them.
  points.forEach(function (p, i) {
    if (!p.ban || p.retryAfterMs === null || p.retryAfterMs === undefined) return;
    const until = p.atMs + p.retryAfterMs;
    const from = xOf(i);
    out.push(
      '<rect class="tl-ban" data-at-ms="' +
        p.atMs +
        '" data-until-ms="' +
        until +
        '"' +
        clip(until) +
        ' x="' +
        from +
        '" y="' +
        top +
        '" width="' +
        r1(Math.max(1, xAt(until) - from)) +
        '" height="' +
        (plotBottom - top) +
        '" fill="' +
        COLOURS.ban +
        '" fill-opacity="0.12" stroke="' +
        COLOURS.ban +
        '" stroke-dasharray="2 2"><title>ban announced: ' +
        (p.retryAfterMs / 1000).toFixed(0) +
        ' s</title></rect>'
    );
    out.push('<text x="' + (from + 4) + '" y="' + (top + 12) + '" fill="' + COLOURS.ban + '">ban ' + (p.retryAfterMs / 1000).toFixed(0) + ' s</text>');
  });

  // Window boundaries: every distinct moment Reset names (within a second) inside the picture.
  /** @type {number[]} */
  const resets = [];
  for (const p of points) {
    const at = p.resetAtMs;
    if (at === null || at === undefined || at < t0 || at > (axis === 'time' ? t1 : lastRequest)) continue;
    if (
      resets.some(function (r) {
        return Math.abs(r - at) <= 1000;
      })
    )
      continue;
    resets.push(at);
  }
  for (const at of resets) {
    const bx = xAt(at);
    out.push(
      '<line class="tl-window-boundary" data-at-ms="' +
        Math.round(at) +
        '" x1="' +
        bx +
        '" y1="' +
        (top - 4) +
        '" x2="' +
        bx +
        '" y2="' +
        axisY +
        '" stroke="' +
        COLOURS.boundary +
        '" stroke-dasharray="5 3"><title>window resets (X-RateLimit-Reset)</title></line>'
    );
  }

  // Retry-After spans, in their own lane.
  points.forEach(function (p, i) {
    if (p.retryAfterMs === null || p.retryAfterMs === undefined || requestClass(p) !== 'tl-refused') return;
    const until = p.atMs + p.retryAfterMs;
    const from = xOf(i);
    out.push(
      '<rect class="tl-retry-after" data-at-ms="' +
        p.atMs +
        '" data-until-ms="' +
        until +
        '"' +
        clip(until) +
        ' x="' +
        from +
        '" y="' +
        (lanes.retry - 4) +
        '" width="' +
        r1(Math.max(1, xAt(until) - from)) +
        '" height="8" fill="' +
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

  // Remaining as a step line over the responses that carried it: it holds until the next says otherwise.
  /** @type {string[]} */
  const steps = [];
  /** @type {number | null} */
  let before = null;
  let carried = 0;
  points.forEach(function (p, i) {
    if (typeof p.remaining !== 'number') return;
    if (before !== null) steps.push(xOf(i) + ',' + y(before));
    steps.push(xOf(i) + ',' + y(p.remaining));
    before = p.remaining;
    carried += 1;
  });
  if (carried > 0)
    out.push(
      '<polyline class="tl-remaining" data-points="' +
        carried +
        '" fill="none" stroke="' +
        COLOURS.remaining +
        '" stroke-width="1.5" points="' +
        steps.join(' ') +
        '"/>'
    );

  // Requests, then the rules they broke above them.
  const radius = axis === 'sequence' ? Math.max(1.5, Math.min(3, slot / 2.5)) : 3;
  points.forEach(function (p, i) {
    const cls = requestClass(p);
    const colour = cls === 'tl-admitted' ? COLOURS.admitted : cls === 'tl-refused' ? COLOURS.refused : COLOURS.other;
    out.push(
      '<circle class="tl-request ' +
        cls +
        '" data-index="' +
        i +
        '" data-at-ms="' +
        p.atMs +
        '" data-status="' +
        p.status +
        '" cx="' +
        xOf(i) +
        '" cy="' +
        lanes.requests +
        '" r="' +
        r1(radius) +
        '" fill="' +
        colour +
        '"><title>#' +
        (i + 1) +
        ': ' +
        (p.status === 0 ? 'no response' : p.status) +
        (typeof p.remaining === 'number' ? ', Remaining ' + p.remaining : '') +
        '</title></circle>'
    );
  });
  points.forEach(function (p, i) {
    let k = 0;
    for (const v of p.violations || []) {
      const cx = xOf(i);
      const cy = lanes.violations - k * 9;
      out.push(
        '<path class="tl-violation tl-' +
          v.level +
          '" data-kind="' +
          esc(v.kind) +
          '" data-index="' +
          i +
          '" data-at-ms="' +
          p.atMs +
          '" d="M' +
          cx +
          ',' +
          (cy + 4) +
          ' L' +
          r1(cx - 4.5) +
          ',' +
          (cy - 4) +
          ' L' +
          r1(cx + 4.5) +
          ',' +
          (cy - 4) +
          ' Z" fill="' +
          (v.level === 'must' ? COLOURS.must : COLOURS.should) +
          '"><title>' +
          esc(v.kind + ' (' + v.level + '): ' + v.detail) +
          '</title></path>'
      );
      k += 1;
    }
  });
  out.push('</svg>');
  // The root element was written before the axis was chosen.
  return out.join('').replace('data-axis="__axis__"', 'data-axis="' + axis + '"');
}

/** @param {{ rate: number } | number | null | undefined} step */
function rateOf(step) {
  if (step === null || step === undefined) return null;
  return typeof step === 'number' ? step : step.rate;
}

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
  const left = 56;
  const right = 60;
  const top = 52;
  const bottom = height - 44;
  const title = capacity.title || 'Capacity: achieved rate and latency per step';
  const out = [];
  out.push(
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
      '" font-family="system-ui, sans-serif" font-size="11">'
  );
  out.push('<title>' + esc(title) + '</title>');
  out.push('<rect x="0" y="0" width="' + width + '" height="' + height + '" fill="#ffffff"/>');
  out.push('<text x="' + left + '" y="16" font-size="13" font-weight="bold" fill="#1f2328">' + esc(title) + '</text>');
  if (rows.length === 0) {
    out.push('<text x="' + left + '" y="' + height / 2 + '" fill="#6e7781">no step</text></svg>');
    return out.join('');
  }
  let maxRate = 1;
  let maxMs = 1;
  for (const row of rows) {
    maxRate = Math.max(maxRate, row.rate, row.achieved);
    maxMs = Math.max(maxMs, row.p95, row.p99);
  }
  maxRate *= 1.05;
  maxMs *= 1.1;
  /** @param {number} rate */
  const x = function (rate) {
    return r1(left + (rate / maxRate) * (width - left - right));
  };
  /** @param {number} rate */
  const yRate = function (rate) {
    return r1(bottom - (rate / maxRate) * (bottom - top));
  };
  /** @param {number} ms */
  const yMs = function (ms) {
    return r1(bottom - (ms / maxMs) * (bottom - top));
  };
  const legend = [
    ['achieved /s', COLOURS.remaining],
    ['p95 ms', COLOURS.p95],
    ['p99 ms', COLOURS.p99],
    ['knee', COLOURS.ban],
  ];
  out.push(legendSvg('cap-legend', legend, width - right));
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

  const held = rateOf(capacity.held);
  const broke = rateOf(capacity.broke);
  if (held !== null || broke !== null) {
    const at = held !== null && broke !== null ? (held + broke) / 2 : held !== null ? held : /** @type {number} */ (broke);
    const text = (held !== null ? 'held ' + held + '/s' : 'nothing held') + (broke !== null ? ', broke at ' + broke + '/s' : '');
    out.push(
      '<line class="cap-knee" data-held="' +
        (held === null ? '' : held) +
        '" data-broke="' +
        (broke === null ? '' : broke) +
        '" x1="' +
        x(at) +
        '" y1="' +
        top +
        '" x2="' +
        x(at) +
        '" y2="' +
        bottom +
        '" stroke="' +
        COLOURS.ban +
        '" stroke-width="2" stroke-dasharray="6 3"><title>knee: ' +
        text +
        '</title></line>'
    );
    out.push('<text x="' + (x(at) + 4) + '" y="' + (top + 10) + '" fill="' + COLOURS.ban + '">knee: ' + esc(text) + '</text>');
  }
  /** @param {string} cls @param {string} colour @param {(row: CapacityRow) => number} value @param {(v: number) => number} scale */
  const series = function (cls, colour, value, scale) {
    out.push(
      '<polyline class="' +
        cls +
        '" fill="none" stroke="' +
        colour +
        '" stroke-width="1.5" points="' +
        rows
          .map(function (row) {
            return x(row.rate) + ',' + scale(value(row));
          })
          .join(' ') +
        '"/>'
    );
  };
  series(
    'cap-p95',
    COLOURS.p95,
    function (row) {
      return row.p95;
    },
    yMs
  );
  series(
    'cap-p99',
    COLOURS.p99,
    function (row) {
      return row.p99;
    },
    yMs
  );
  series(
    'cap-achieved',
    COLOURS.remaining,
    function (row) {
      return row.achieved;
    },
    yRate
  );
  for (const row of rows) {
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
    out.push(
      '<circle class="cap-step ' +
        (row.ok ? 'cap-ok' : 'cap-broke') +
        '" data-rate="' +
        row.rate +
        '" cx="' +
        x(row.rate) +
        '" cy="' +
        yRate(row.achieved) +
        '" r="4" fill="' +
        (row.ok ? COLOURS.admitted : COLOURS.refused) +
        '"><title>' +
        esc(what) +
        '</title></circle>'
    );
  }
  out.push('</svg>');
  return out.join('');
}
