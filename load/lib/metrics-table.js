// @ts-check
// k6's own end-of-test table, as k6 v0.47 prints it for a script without handleSummary: a script
// with its own loses it, and k6's textSummary lives only in the remote jslib, which an offline
// script cannot import. load/k6.test.ts compares it with what a real k6 prints.

/**
 * @typedef {{ type?: string, contains?: string, values: Record<string, number>, thresholds?: Record<string, { ok: boolean }> }} TableMetric
 * @typedef {{ name: string, passes: number, fails: number }} TableCheck
 * @typedef {{ name?: string, checks?: TableCheck[], groups?: TableGroup[] }} TableGroup
 * @typedef {{ summaryTrendStats?: string[] | null, summaryTimeUnit?: string | null }} TableOptions
 * @typedef {{ metrics: Record<string, TableMetric>, root_group?: TableGroup, options?: TableOptions }} TableData
 */

/** What k6 shows of a trend when the script names no summaryTrendStats. */
export const DEFAULT_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];

const PASS = '\u2713';
const FAIL = '\u2717';

/**
 * Columns a string takes on a terminal: code points once composed, as k6 counts them.
 * @param {string} text
 */
export function width(text) {
  let n = 0;
  for (const _c of text.normalize('NFKC')) n++;
  return n;
}

/** @param {string} text @param {number} columns */
function padded(text, columns) {
  const missing = columns - width(text);
  return missing > 0 ? text + new Array(missing + 1).join(' ') : text;
}

/** @param {number} value @param {number} digits */
function fixedTrimmed(value, digits) {
  return String(parseFloat(value.toFixed(digits)));
}

/** Cut, not rounded, to `digits` decimals, then trailing zeros dropped. @param {number} value @param {number} digits */
function cutTrimmed(value, digits) {
  const scale = Math.pow(10, digits);
  return fixedTrimmed(Math.trunc(scale * value) / scale, digits);
}

/**
 * Bytes as k6 shows them: decimal units, one decimal below 10.
 * @param {number} bytes
 */
export function bytesText(bytes) {
  if (bytes < 10) return bytes + ' B';
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
  const power = Math.floor(Math.log(bytes) / Math.log(1000));
  const scaled = Math.floor((bytes / Math.pow(1000, power)) * 10 + 0.5) / 10;
  return scaled.toFixed(scaled < 10 ? 1 : 0) + ' ' + units[power];
}

/**
 * A duration in milliseconds as k6 shows it: in the unit it reads best in (ns, µs, ms, s, m, h), or in
 * the script's summaryTimeUnit.
 * @param {number} ms
 * @param {string | null | undefined} unit
 */
export function durationText(ms, unit) {
  if (unit === 's') return (ms * 0.001).toFixed(2) + 's';
  if (unit === 'ms') return ms.toFixed(2) + 'ms';
  if (unit === 'us') return (ms * 1000).toFixed(2) + '\u00b5s';
  if (ms === 0) return '0s';
  if (ms < 0.001) return Math.trunc(ms * 1000000) + 'ns';
  if (ms < 1) return cutTrimmed(ms * 1000, 2) + '\u00b5s';
  if (ms < 1000) return cutTrimmed(ms, 2) + 'ms';
  let text = cutTrimmed((ms % 60000) / 1000, ms > 60000 ? 0 : 2) + 's';
  const minutes = Math.trunc(ms / 60000);
  if (minutes < 1) return text;
  text = (minutes % 60) + 'm' + text;
  const hours = Math.trunc(minutes / 60);
  return hours < 1 ? text : hours + 'h' + text;
}

/**
 * One figure of a metric, in the metric's own terms.
 * @param {number | undefined} value
 * @param {TableMetric} metric
 * @param {string | null | undefined} unit the summaryTimeUnit
 */
export function figure(value, metric, unit) {
  if (value === undefined || value === null) return 'n/a';
  // A share is cut, not rounded, to two decimals: 99.999% is not 100.00%.
  if (metric.type === 'rate') return (Math.trunc(value * 100 * 100) / 100).toFixed(2) + '%';
  if (metric.contains === 'data') return bytesText(value);
  if (metric.contains === 'time') return durationText(value, unit);
  return fixedTrimmed(value, 6);
}

/**
 * A non-trend metric's cells: its main figure, then the figures beside it.
 * @param {TableMetric} m
 * @param {string | null | undefined} unit
 * @returns {string[]}
 */
function cells(m, unit) {
  const v = m.values;
  if (m.type === 'counter') return [figure(v.count, m, unit), figure(v.rate, m, unit) + '/s'];
  if (m.type === 'gauge') return [figure(v.value, m, unit), 'min=' + figure(v.min, m, unit), 'max=' + figure(v.max, m, unit)];
  if (m.type === 'rate') return [figure(v.rate, m, unit), PASS + ' ' + v.passes, FAIL + ' ' + v.fails];
  return ['[no data]'];
}

/** `http_req_duration{status:200}` is shown as `{ status:200 }`, under its metric. @param {string} name */
function shownName(name) {
  const brace = name.indexOf('{');
  return brace < 0 ? name : '{ ' + name.slice(brace + 1, -1) + ' }';
}

/** @param {string} name */
function nameIndent(name) {
  return name.indexOf('{') < 0 ? '' : '  ';
}

/**
 * Metrics in k6's order: by metric, each sub-metric right under its own.
 * @param {string} a
 * @param {string} b
 */
function byMetric(a, b) {
  const parentA = a.split('{', 1)[0];
  const parentB = b.split('{', 1)[0];
  const order = parentA.localeCompare(parentB);
  return order !== 0 ? order : a.slice(parentA.length).localeCompare(b.slice(parentB.length));
}

/**
 * The metric rows of k6's table, for the metrics `names` (every metric of the data when omitted).
 * Columns are as wide as the widest of the rows shown.
 * @param {TableData} data
 * @param {string[]} [names]
 * @returns {string[]}
 */
export function metricRows(data, names) {
  const options = data.options || {};
  const stats = options.summaryTrendStats && options.summaryTrendStats.length > 0 ? options.summaryTrendStats : DEFAULT_TREND_STATS;
  const unit = options.summaryTimeUnit;
  const shown = (names || Object.keys(data.metrics)).slice().sort(byMetric);
  /** @type {Record<string, string[]>} */
  const row = {};
  let nameWidth = 0;
  const trendWidths = stats.map(function () {
    return 0;
  });
  const cellWidths = [0, 0, 0];
  for (let i = 0; i < shown.length; i++) {
    const name = shown[i];
    const m = data.metrics[name];
    nameWidth = Math.max(nameWidth, width(nameIndent(name) + shownName(name)));
    if (m.type === 'trend') {
      row[name] = stats.map(function (stat, j) {
        const v = m.values[stat];
        const text = stat === 'count' && v !== undefined ? String(v) : figure(v, m, unit);
        trendWidths[j] = Math.max(trendWidths[j], width(text));
        return text;
      });
    } else {
      row[name] = cells(m, unit);
      for (let j = 0; j < row[name].length; j++) cellWidths[j] = Math.max(cellWidths[j], width(row[name][j]));
    }
  }
  return shown.map(function (name) {
    const m = data.metrics[name];
    const thresholds = m.thresholds ? Object.keys(m.thresholds) : [];
    let mark = ' ';
    if (thresholds.length > 0) {
      mark = thresholds.every(function (t) {
        return /** @type {Record<string, { ok: boolean }>} */ (m.thresholds)[t].ok;
      })
        ? PASS
        : FAIL;
    }
    const indent = nameIndent(name);
    const label = shownName(name);
    const dots = new Array(nameWidth - width(label) - width(indent) + 3 + 1).join('.');
    let figures;
    if (m.type === 'trend') {
      figures = stats
        .map(function (stat, j) {
          return stat + '=' + padded(row[name][j], trendWidths[j]);
        })
        .join(' ');
    } else {
      const c = row[name];
      figures = padded(c[0], cellWidths[0]);
      // One figure beside the main one is not padded; several are, each to its column.
      if (c.length === 2) figures += ' ' + c[1];
      else if (c.length > 2) {
        figures +=
          ' ' +
          c
            .slice(1)
            .map(function (text, j) {
              return padded(text, cellWidths[j + 1]);
            })
            .join(' ');
      }
    }
    return '   ' + indent + mark + ' ' + label + dots + ': ' + figures;
  });
}

/**
 * The checks of a group and of the groups in it: a ✓ per check that always held, a ✗ with its share
 * of passes for one that did not.
 * @param {TableGroup | undefined} group
 * @param {string} [indent]
 * @returns {string[]}
 */
export function checkRows(group, indent) {
  if (!group) return [];
  let at = indent === undefined ? '     ' : indent;
  /** @type {string[]} */
  const rows = [];
  if (group.name) {
    rows.push(at + '\u2588 ' + group.name, '');
    at += '  ';
  }
  const checks = group.checks || [];
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i];
    if (c.fails === 0) {
      rows.push(at + PASS + ' ' + c.name);
      continue;
    }
    const share = Math.floor((100 * c.passes) / (c.passes + c.fails));
    rows.push(at + FAIL + ' ' + c.name, at + ' \u21b3  ' + share + '% \u2014 ' + PASS + ' ' + c.passes + ' / ' + FAIL + ' ' + c.fails);
  }
  if (checks.length > 0) rows.push('');
  const groups = group.groups || [];
  for (let i = 0; i < groups.length; i++) rows.push.apply(rows, checkRows(groups[i], at));
  return rows;
}

/**
 * k6's table: the checks, then the metric rows (of `names` only, when given), as one text.
 * @param {TableData} data
 * @param {string[]} [names]
 */
export function metricsTable(data, names) {
  return checkRows(data.root_group).concat(metricRows(data, names)).join('\n');
}
