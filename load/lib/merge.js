// @ts-check
// One verdict from the JSON summaries of k6 processes that ran the same script with execution
// segments. Counts add up exactly and percentiles do not, so the objectives are judged on summed
// counts of slow requests (load/README.md, Many generators).
import { capacitySvg } from '../../spec/rules/capacity-svg.js';
import { boundLine, judgeSteps, meetsObjectives, stepLine } from './knee.js';
import { stepPlan } from './phases.js';

/**
 * @typedef {import('./knee.js').StepStats} StepStats
 * @typedef {import('./segments.js').Segment} Segment
 * @typedef {{ script: string, result?: 'PASS' | 'FAIL' | 'ABORTED', passed: boolean, reason?: string | null, failedThresholds: Array<{ metric: string, expression: string, observed: string }>, extra: Record<string, any>, k6: any }} ScriptSummary
 * @typedef {{ name: string, summary: ScriptSummary }} Part
 * @typedef {{ script: string, result: 'PASS' | 'FAIL' | 'ABORTED', exitCode: number, lines: string[], merged: Record<string, unknown>, svg: string | null }} Merged
 *   svg: a capacity run's picture of the summed steps (null for other scripts, or summaries that are not one run)
 */

/** Generators whose starts lie further apart than this share of a step are noted: the target saw the summed rate for less of the step. */
const NOTE_START_SPREAD = 0.1;
/** ...and further apart than this, their steps hardly overlapped: they are not one run. */
const MAX_START_SPREAD = 0.5;

/**
 * @param {Part[]} parts
 * @returns {{ segments: Array<Segment & { name: string }>, coverage: number, problems: string[], notes: string[] }}
 */
function checkSegments(parts) {
  /** @type {string[]} */
  const problems = [];
  /** @type {string[]} */
  const notes = [];
  const segments = parts.map(function (p) {
    const s = p.summary.extra && p.summary.extra.segment;
    if (!s || typeof s.from !== 'number') problems.push(p.name + ' names no execution segment (written by an older script?)');
    return Object.assign({ name: p.name }, s || { segment: '0:1', from: 0, to: 1, share: 1, sequence: null });
  });
  const sorted = segments.slice().sort((a, b) => a.from - b.from);
  let coverage = 0;
  for (let i = 0; i < sorted.length; i++) {
    coverage += sorted[i].share;
    if (i > 0 && sorted[i].from < sorted[i - 1].to - 1e-9) {
      problems.push(
        sorted[i - 1].name +
          ' (' +
          sorted[i - 1].segment +
          ') and ' +
          sorted[i].name +
          ' (' +
          sorted[i].segment +
          ') overlap: the same share of the run was counted twice'
      );
    }
  }
  const sequences = Array.from(new Set(segments.map((s) => s.sequence || '')));
  if (sequences.length > 1) problems.push('the generators were given different --execution-segment-sequence values: ' + sequences.join(' | '));
  if (coverage < 1 - 1e-9 && problems.length === 0)
    notes.push('the segments cover ' + (coverage * 100).toFixed(1) + '% of the run: each step is judged against that share of its rate');
  return { segments: sorted, coverage: Math.min(1, coverage), problems: problems, notes: notes };
}

/**
 * @param {Part[]} parts
 * @param {number | null} stepS
 */
function startSpread(parts, stepS) {
  const starts = parts.map((p) => p.summary.extra && p.summary.extra.startedMs).filter((v) => typeof v === 'number');
  if (starts.length < 2) return null;
  const spreadS = (Math.max.apply(null, starts) - Math.min.apply(null, starts)) / 1000;
  const line = 'the generators started ' + spreadS.toFixed(1) + ' s apart';
  if (stepS !== null && spreadS > MAX_START_SPREAD * stepS)
    return {
      line:
        line + ', more than ' + MAX_START_SPREAD * 100 + '% of a ' + stepS + ' s step: their steps did not overlap enough to be summed; start them together',
      bad: true,
    };
  if (stepS !== null && spreadS > NOTE_START_SPREAD * stepS)
    return {
      line:
        line +
        ': the target saw the summed rate for ' +
        Math.round((1 - spreadS / stepS) * 100) +
        '% of each ' +
        stepS +
        ' s step (start them together, or hold each step longer)',
      bad: false,
    };
  return { line: line, bad: false };
}

/**
 * The sum of one step over every generator; null when none recorded it.
 * @param {Array<StepStats | null>} parts
 * @returns {StepStats | null}
 */
export function sumStepStats(parts) {
  const present = /** @type {StepStats[]} */ (parts.filter((p) => p !== null && p !== undefined));
  if (present.length === 0) return null;
  let count = 0;
  let failed = 0;
  /** @type {StepStats} */
  const sum = { count: 0, errorRate: 0, p95: 0, p99: 0, overP95: 0, overP99: 0, dropped: 0, limited: 0, vusMax: 0, iterationAvg: 0, requestAvg: 0 };
  let iterationTime = 0;
  let requestTime = 0;
  for (const p of present) {
    count += p.count;
    failed += p.errorRate * p.count;
    sum.p95 = Math.max(sum.p95, p.p95);
    sum.p99 = Math.max(sum.p99, p.p99);
    sum.overP95 = /** @type {number} */ (sum.overP95) + (p.overP95 || 0);
    sum.overP99 = /** @type {number} */ (sum.overP99) + (p.overP99 || 0);
    sum.dropped += p.dropped;
    sum.limited = /** @type {number} */ (sum.limited) + (p.limited || 0);
    sum.vusMax = /** @type {number} */ (sum.vusMax) + (p.vusMax || 0);
    iterationTime += (p.iterationAvg || 0) * p.count;
    requestTime += (p.requestAvg || 0) * p.count;
  }
  sum.count = count;
  sum.errorRate = count === 0 ? 0 : failed / count;
  sum.iterationAvg = count === 0 ? 0 : iterationTime / count;
  sum.requestAvg = count === 0 ? 0 : requestTime / count;
  return sum;
}

/** @param {unknown} a @param {unknown} b */
function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * @param {Part[]} parts
 * @param {number} coverage
 * @param {string[]} lines
 * @param {string[]} problems
 */
function mergeCapacity(parts, coverage, lines, problems) {
  const head = /** @type {Part} */ (parts[0]);
  const first = head.summary.extra;
  for (const p of parts.slice(1)) {
    const e = p.summary.extra;
    if (!same(e.rates, first.rates) || e.holdS !== first.holdS)
      problems.push(
        p.name +
          ' ran other steps (' +
          (e.rates || []).join(', ') +
          ' for ' +
          e.holdS +
          ' s) than ' +
          head.name +
          ' (' +
          (first.rates || []).join(', ') +
          ' for ' +
          first.holdS +
          ' s)'
      );
    if (!same(Object.assign({}, e.criteria, { share: 0, maxVUs: 0 }), Object.assign({}, first.criteria, { share: 0, maxVUs: 0 })))
      problems.push(p.name + ' judged other objectives than ' + head.name);
  }
  if (problems.length > 0) return null;
  const plan = stepPlan(first.rates, first.holdS);
  /** @type {Record<string, StepStats | null>} */
  const stats = {};
  for (const step of plan.steps) stats[step.name] = sumStepStats(parts.map((p) => (p.summary.extra.stepStats || {})[step.name] || null));
  const maxVUs = parts.reduce((n, p) => n + ((p.summary.extra.criteria && p.summary.extra.criteria.maxVUs) || 0), 0);
  const criteria = Object.assign({}, first.criteria, { share: coverage, maxVUs: maxVUs });
  const knee = judgeSteps(plan, (name) => stats[name] || null, criteria);
  for (const row of knee.rows) lines.push(stepLine(row));
  lines.push('highest sustained rate (all generators): ' + (knee.held === null ? 'none' : knee.held.rate + ' requests/s'));
  lines.push(
    'first broken rate (all generators): ' +
      (knee.broke === null ? 'none up to ' + first.rates[first.rates.length - 1] + ' requests/s' : knee.broke.rate + ' requests/s (' + knee.broke.why + ')')
  );
  lines.push(boundLine(knee, first.rates[first.rates.length - 1]));
  lines.push("p95 and p99 shown are the highest generator's; the objectives are judged on the summed count of slower requests");
  // What the script's thresholds ask of one generator, asked of the sum: a search, that its first
  // step meets the objectives; fixed rates, that every request together does.
  const judged = first.mode === 'rates' ? sumStepStats(plan.steps.map((s) => stats[s.name] || null)) : stats[plan.steps[0].name] || null;
  const holds = judged !== null && meetsObjectives(judged, criteria);
  const svg = capacitySvg({
    rows: knee.rows.filter((r) => !r.skipped),
    held: knee.held,
    broke: knee.broke,
    bound: knee.bound,
    title: 'load-merge of ' + parts.length + ' capacity.js generators against ' + first.baseUrl + ', each rate summed over them',
  });
  return { knee: knee, stats: stats, criteria: criteria, holds: holds, svg: svg };
}

/**
 * @param {Part[]} parts
 * @param {string[]} lines
 */
function mergeChecks(parts, lines) {
  let passes = 0;
  let fails = 0;
  let requests = 0;
  for (const p of parts) {
    const k6 = p.summary.k6 || {};
    const reqs = k6.metrics && k6.metrics.http_reqs ? k6.metrics.http_reqs.values.count : 0;
    requests += reqs || 0;
    /** @param {any} g */
    const walk = (g) => {
      if (!g) return;
      for (const c of g.checks || []) {
        passes += c.passes;
        fails += c.fails;
      }
      for (const sub of g.groups || []) walk(sub);
    };
    walk(k6.root_group);
  }
  lines.push('requests (all generators): ' + requests + '; checks: ' + passes + ' passed, ' + fails + ' failed');
  return { passes: passes, fails: fails, requests: requests };
}

/**
 * @param {Part[]} parts
 * @returns {Merged}
 */
export function mergeSummaries(parts) {
  const head = parts[0];
  if (head === undefined) throw new Error('no summary to merge');
  const script = head.summary.script;
  /** @type {string[]} */
  const problems = [];
  for (const p of parts)
    if (p.summary.script !== script) problems.push(p.name + ' is a ' + p.summary.script + '.js summary, ' + head.name + ' a ' + script + '.js one');
  if (script === 'rate-limit') problems.push('rate-limit.js runs on one process only: its summaries are not merged');
  const seg = checkSegments(parts);
  problems.push.apply(problems, seg.problems);
  /** @type {string[]} */
  const lines = ['merged ' + parts.length + ' ' + script + '.js summaries: ' + seg.segments.map((s) => s.name + ' (' + s.segment + ')').join(', ')];
  lines.push.apply(lines, seg.notes);
  const spread = startSpread(parts, script === 'capacity' ? head.summary.extra.holdS : null);
  if (spread !== null) {
    lines.push(spread.line);
    if (spread.bad) problems.push(spread.line);
  }
  for (const p of parts) {
    const result = p.summary.result || (p.summary.passed ? 'PASS' : 'FAIL');
    lines.push(p.name + ': ' + result + (p.summary.reason ? ' (' + p.summary.reason + ')' : ''));
  }
  /** @type {Record<string, unknown>} */
  const merged = {};
  let holds = true;
  /** @type {string | null} */
  let svg = null;
  if (problems.length === 0 && script === 'capacity') {
    const c = mergeCapacity(parts, seg.coverage, lines, problems);
    if (c !== null) {
      Object.assign(merged, {
        steps: c.knee.rows,
        highestSustained: c.knee.held,
        firstBroken: c.knee.broke,
        bound: c.knee.bound,
        stepStats: c.stats,
        criteria: c.criteria,
      });
      holds = c.holds;
      svg = c.svg;
    }
  } else if (problems.length === 0) {
    merged.checks = mergeChecks(parts, lines);
  }
  const aborted = parts.filter((p) => p.summary.result === 'ABORTED');
  const failed = parts.filter((p) => !(p.summary.result ? p.summary.result === 'PASS' : p.summary.passed));
  /** @type {Merged['result']} */
  let result = 'PASS';
  if (problems.length > 0 || aborted.length > 0) result = 'ABORTED';
  else if (failed.length > 0 || !holds) result = 'FAIL';
  for (const problem of problems) lines.unshift('CANNOT MERGE: ' + problem);
  lines.push(
    'result: ' +
      result +
      (result === 'PASS'
        ? ' (every generator passed, and the sum holds)'
        : result === 'ABORTED'
          ? ' (' + (problems.length > 0 ? 'the summaries do not make one run' : aborted.map((p) => p.name).join(', ') + ' stopped') + ')'
          : ' (' + (failed.length > 0 ? failed.map((p) => p.name).join(', ') + ' failed' : 'the summed steps did not hold') + ')')
  );
  return {
    script: script,
    result: result,
    exitCode: result === 'PASS' ? 0 : 1,
    lines: lines,
    merged: Object.assign({ script: script, result: result, generators: seg.segments, problems: problems }, merged),
    svg: svg,
  };
}
