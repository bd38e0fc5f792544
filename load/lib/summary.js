// @ts-check
// handleSummary's output, written here because a script may not import the remote jslib: k6's own
// table and the verdict for stdout, the full data as JSON, both with the outcome k6 exits with.
import { metricsTable } from './metrics-table.js';
import { outcomeLine, runOutcome } from './outcome.js';

/**
 * @typedef {import('./metrics-table.js').TableMetric} SummaryMetric
 * @typedef {import('./metrics-table.js').TableCheck} SummaryCheck
 * @typedef {import('./metrics-table.js').TableGroup} SummaryGroup
 * @typedef {{ metrics: Record<string, SummaryMetric>, root_group?: SummaryGroup, state?: { testRunDurationMs?: number }, options?: import('./metrics-table.js').TableOptions }} SummaryData
 */

/**
 * The statistic a threshold expression reads, e.g. "p(95)" in "p(95)<500".
 * @param {string} expression
 */
export function thresholdStat(expression) {
  const m = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*(<=|>=|==|===|!=|<|>)/.exec(expression);
  return m ? m[1] : null;
}

/**
 * @param {number | undefined} value
 * @param {string | undefined} contains
 * @param {string | null} stat
 */
function show(value, contains, stat) {
  if (value === undefined || value === null) return 'no data';
  if (stat === 'rate') return (value * 100).toFixed(2) + '%';
  if (contains === 'time') return value.toFixed(2) + ' ms';
  return String(Math.round(value * 1000) / 1000);
}

/**
 * A threshold that cannot fail (`count>=0`, `p(95)>=0`): it only makes k6 keep a sub-metric's
 * figures for handleSummary, so the text neither counts nor lists it.
 * @param {string} expression
 */
export function isBookkeeping(expression) {
  return /^\s*[a-z]+(?:\(\d+(?:\.\d+)?\))?\s*>=\s*0\s*$/.test(expression);
}

/**
 * @typedef {{ metric: string, expression: string, ok: boolean, observed: string, bookkeeping: boolean }} ThresholdRow
 */

/**
 * Every threshold of the run with its verdict, worst first.
 * @param {SummaryData} data
 * @returns {ThresholdRow[]}
 */
export function thresholdResults(data) {
  /** @type {ThresholdRow[]} */
  const rows = [];
  const names = Object.keys(data.metrics || {}).sort();
  for (let i = 0; i < names.length; i++) {
    const metric = data.metrics[names[i]];
    const thresholds = metric.thresholds || {};
    const expressions = Object.keys(thresholds);
    for (let j = 0; j < expressions.length; j++) {
      const stat = thresholdStat(expressions[j]);
      const value = stat === null ? undefined : metric.values[stat];
      rows.push({
        metric: names[i],
        expression: expressions[j],
        ok: thresholds[expressions[j]].ok,
        observed: show(value, metric.contains, stat),
        bookkeeping: isBookkeeping(expressions[j]),
      });
    }
  }
  rows.sort(function (a, b) {
    return a.ok === b.ok ? 0 : a.ok ? 1 : -1;
  });
  return rows;
}

/**
 * @param {SummaryData} data
 * @param {string} name
 * @param {string} stat
 */
export function metricValue(data, name, stat) {
  const m = data.metrics ? data.metrics[name] : undefined;
  if (!m || !m.values) return undefined;
  return m.values[stat];
}

/**
 * @typedef {{ reason: string, exitCode: number }} Stop why the run was stopped, and the exit code k6 gives it
 * @typedef {object} TextOptions
 * @property {string} title
 * @property {string[]} [report] the script's own findings
 * @property {string} [jsonPath]
 * @property {Stop | null} [stop]
 * @property {(metric: string, expression: string) => boolean} [hide] what the text leaves out while it
 *   holds: a threshold, or (expression '') a metric's row of k6's table
 */

/**
 * The outcome of a run: ABORTED when it was stopped, else FAIL when a threshold failed, else PASS.
 * @param {SummaryData} data
 * @param {{ stop?: Stop | null }} options
 */
export function outcomeOf(data, options) {
  const failed = thresholdResults(data).filter(function (r) {
    return !r.ok;
  }).length;
  return runOutcome({ failedThresholds: failed, stop: options.stop || null });
}

/**
 * The rows of k6's table: every metric, and the sub-metrics that a threshold judging the run names
 * (k6 would list the bookkeeping ones too: hundreds of rows on a long rate-limit.js run).
 * @param {SummaryData} data
 * @param {TextOptions['hide']} hide
 * @returns {string[]}
 */
export function tableMetrics(data, hide) {
  return Object.keys(data.metrics || {}).filter(function (name) {
    const thresholds = data.metrics[name].thresholds || {};
    const expressions = Object.keys(thresholds);
    for (let i = 0; i < expressions.length; i++) if (!thresholds[expressions[i]].ok) return true;
    if (hide && hide(name, '')) return false;
    if (name.indexOf('{') < 0 || expressions.length === 0) return true;
    return expressions.some(function (e) {
      return !isBookkeeping(e) && !(hide && hide(name, e));
    });
  });
}

/** The failed bookkeeping thresholds the text names before it only counts them. */
const SHOWN_BOOKKEEPING = 3;

/**
 * The thresholds line of the verdict: how many of those that judge the run failed, and any
 * bookkeeping one that failed too (a fault of the script, but k6 exits 99 for it all the same).
 * @param {ThresholdRow[]} rows
 */
function failedLine(rows) {
  const judging = rows.filter(function (r) {
    return !r.bookkeeping;
  });
  const failed = judging.filter(function (r) {
    return !r.ok;
  }).length;
  const bookkeeping = rows.length - judging.length;
  const brokenBookkeeping = rows.filter(function (r) {
    return r.bookkeeping && !r.ok;
  }).length;
  return (
    failed +
    ' of ' +
    judging.length +
    ' thresholds failed' +
    (brokenBookkeeping > 0 ? ', and ' + brokenBookkeeping + ' of the ' + bookkeeping + ' bookkeeping ones (a fault of the script)' : '')
  );
}

/**
 * The end-of-test text: k6's own table, then the verdict.
 * @param {SummaryData} data
 * @param {TextOptions} options
 * @returns {string}
 */
export function textSummary(data, options) {
  const lines = [];
  const ms = data.state && data.state.testRunDurationMs ? data.state.testRunDurationMs : 0;
  const outcome = outcomeOf(data, options);
  lines.push('');
  lines.push('== ' + options.title + ' ==');
  if (outcome.result === 'ABORTED') lines.push('ABORTED: ' + outcome.reason);
  lines.push('');
  lines.push(metricsTable(data, tableMetrics(data, options.hide)));
  lines.push('');
  const reqs = metricValue(data, 'http_reqs', 'count');
  const iters = metricValue(data, 'iterations', 'count');
  lines.push(
    'ran ' +
      (ms / 1000).toFixed(1) +
      ' s: ' +
      (iters === undefined ? 0 : iters) +
      ' iterations, ' +
      (reqs === undefined ? 0 : reqs) +
      ' requests' +
      (ms > 0 && reqs ? ' (' + (reqs / (ms / 1000)).toFixed(1) + '/s)' : '')
  );
  const rows = thresholdResults(data);
  const judging = rows.filter(function (r) {
    return !r.bookkeeping;
  }).length;
  lines.push(
    'thresholds: ' +
      judging +
      ' judge the run' +
      (judging < rows.length ? ' (not counted: ' + (rows.length - judging) + ' bookkeeping, which only keep figures for this report)' : '')
  );
  let brokenBookkeeping = 0;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r.ok && (r.bookkeeping || (options.hide && options.hide(r.metric, r.expression)))) continue;
    // A few name the fault; one per bucket or step would bury the thresholds that judge the run.
    if (r.bookkeeping && ++brokenBookkeeping > SHOWN_BOOKKEEPING) continue;
    lines.push(
      '  ' + (r.ok ? 'ok  ' : 'FAIL') + ' ' + r.metric + ' ' + r.expression + '  (observed ' + r.observed + ')' + (r.bookkeeping ? ' [bookkeeping]' : '')
    );
  }
  if (brokenBookkeeping > SHOWN_BOOKKEEPING) lines.push('  FAIL ... and ' + (brokenBookkeeping - SHOWN_BOOKKEEPING) + ' more bookkeeping thresholds');
  const report = options.report || [];
  if (report.length > 0) {
    lines.push('report:');
    for (let i = 0; i < report.length; i++) lines.push('  ' + report[i]);
  }
  lines.push(outcome.result === 'FAIL' ? 'result: FAIL (k6 exits ' + outcome.exitCode + '): ' + failedLine(rows) : outcomeLine(outcome));
  if (options.jsonPath) lines.push('JSON summary: ' + options.jsonPath);
  lines.push('');
  return lines.join('\n');
}

/**
 * What handleSummary returns: the text on stdout and the JSON at jsonPath.
 * @param {SummaryData} data
 * @param {TextOptions & { script: string, jsonPath: string, extra?: Record<string, unknown>, files?: Record<string, string> }} options
 * @returns {Record<string, string>}
 */
export function summaryOutputs(data, options) {
  /** @type {Record<string, string>} */
  const out = {};
  out.stdout = textSummary(data, options);
  const rows = thresholdResults(data);
  const failed = rows.filter(function (r) {
    return !r.ok;
  });
  const outcome = outcomeOf(data, options);
  const files = options.files || {};
  for (const name of Object.keys(files)) out[name] = files[name];
  out[options.jsonPath] = JSON.stringify(
    {
      script: options.script,
      passed: outcome.result === 'PASS',
      result: outcome.result,
      exitCode: outcome.exitCode,
      reason: outcome.reason,
      failedThresholds: failed,
      thresholdCounts: {
        judging: rows.filter(function (r) {
          return !r.bookkeeping;
        }).length,
        failed: failed.filter(function (r) {
          return !r.bookkeeping;
        }).length,
        bookkeeping: rows.filter(function (r) {
          return r.bookkeeping;
        }).length,
      },
      report: options.report || [],
      extra: options.extra || {},
      k6: data,
    },
    null,
    2
  );
  return out;
}
