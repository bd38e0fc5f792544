// @ts-check
// handleSummary's output, written here because a script may not import the remote jslib: a
// plain-text report for stdout and the full data as JSON for machines, both with the outcome k6
// exits with (outcome.js). Pure JavaScript.
import { outcomeLine, runOutcome } from './outcome.js';

/**
 * @typedef {{ type?: string, contains?: string, values: Record<string, number>, thresholds?: Record<string, { ok: boolean }> }} SummaryMetric
 * @typedef {{ name: string, passes: number, fails: number }} SummaryCheck
 * @typedef {{ name?: string, checks?: SummaryCheck[], groups?: SummaryGroup[] }} SummaryGroup
 * @typedef {{ metrics: Record<string, SummaryMetric>, root_group?: SummaryGroup, state?: { testRunDurationMs?: number } }} SummaryData
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
 * Every threshold of the run with its verdict, worst first.
 * @param {SummaryData} data
 * @returns {Array<{ metric: string, expression: string, ok: boolean, observed: string }>}
 */
export function thresholdResults(data) {
  /** @type {Array<{ metric: string, expression: string, ok: boolean, observed: string }>} */
  const rows = [];
  const names = Object.keys(data.metrics || {}).sort();
  for (let i = 0; i < names.length; i++) {
    const metric = data.metrics[names[i]];
    const thresholds = metric.thresholds || {};
    const expressions = Object.keys(thresholds);
    for (let j = 0; j < expressions.length; j++) {
      const stat = thresholdStat(expressions[j]);
      const value = stat === null ? undefined : metric.values[stat];
      rows.push({ metric: names[i], expression: expressions[j], ok: thresholds[expressions[j]].ok, observed: show(value, metric.contains, stat) });
    }
  }
  rows.sort(function (a, b) {
    return a.ok === b.ok ? 0 : a.ok ? 1 : -1;
  });
  return rows;
}

/**
 * @param {SummaryGroup | undefined} group
 * @param {SummaryCheck[]} into
 */
function collectChecks(group, into) {
  if (!group) return into;
  const checks = group.checks || [];
  for (let i = 0; i < checks.length; i++) into.push(checks[i]);
  const groups = group.groups || [];
  for (let i = 0; i < groups.length; i++) collectChecks(groups[i], into);
  return into;
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
 * @typedef {{ title: string, report?: string[], jsonPath?: string, stop?: Stop | null, hide?: (metric: string, expression: string) => boolean }} TextOptions
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
  const failed = metricValue(data, 'http_req_failed', 'rate');
  const p95 = metricValue(data, 'http_req_duration', 'p(95)');
  const p99 = metricValue(data, 'http_req_duration', 'p(99)');
  if (failed !== undefined) lines.push('unexpected statuses: ' + (failed * 100).toFixed(2) + '%');
  if (p95 !== undefined) lines.push('latency: p95 ' + p95.toFixed(2) + ' ms' + (p99 === undefined ? '' : ', p99 ' + p99.toFixed(2) + ' ms'));

  const checks = collectChecks(data.root_group, []);
  if (checks.length > 0) {
    let passes = 0;
    let fails = 0;
    for (let i = 0; i < checks.length; i++) {
      passes += checks[i].passes;
      fails += checks[i].fails;
    }
    lines.push('checks: ' + passes + ' passed, ' + fails + ' failed');
    for (let i = 0; i < checks.length; i++) {
      if (checks[i].fails > 0) lines.push('  FAIL ' + checks[i].name + ': ' + checks[i].fails + ' of ' + (checks[i].passes + checks[i].fails));
    }
  }

  const rows = thresholdResults(data);
  let bad = 0;
  lines.push('thresholds:');
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (!r.ok) bad += 1;
    if (r.ok && options.hide && options.hide(r.metric, r.expression)) continue;
    lines.push('  ' + (r.ok ? 'ok  ' : 'FAIL') + ' ' + r.metric + ' ' + r.expression + '  (observed ' + r.observed + ')');
  }
  const report = options.report || [];
  if (report.length > 0) {
    lines.push('report:');
    for (let i = 0; i < report.length; i++) lines.push('  ' + report[i]);
  }
  lines.push(
    outcome.result === 'FAIL' ? 'result: FAIL (k6 exits ' + outcome.exitCode + '): ' + bad + ' of ' + rows.length + ' thresholds failed' : outcomeLine(outcome)
  );
  if (options.jsonPath) lines.push('JSON summary: ' + options.jsonPath);
  lines.push('');
  return lines.join('\n');
}

/**
 * What handleSummary returns: the text on stdout and the JSON, with the script's own report, at
 * jsonPath.
 * @param {SummaryData} data
 * @param {TextOptions & { script: string, jsonPath: string, extra?: Record<string, unknown>, files?: Record<string, string> }} options
 * @returns {Record<string, string>}
 */
export function summaryOutputs(data, options) {
  /** @type {Record<string, string>} */
  const out = {};
  out.stdout = textSummary(data, options);
  const failed = thresholdResults(data).filter(function (r) {
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
      report: options.report || [],
      extra: options.extra || {},
      k6: data,
    },
    null,
    2
  );
  return out;
}
