// @ts-check
// capacity.js's reading of its steps: each judged against the objectives, what bound it, the knee
// and what to run next. merge.js reads several generators' steps with the same functions.
import { boundText } from '../../spec/rules/capacity-svg.js';
import { fasterBase, shortfallOf, slowdownOf } from './blame.js';
import { stepMetric } from './phases.js';

/**
 * @typedef {import('./phases.js').StepPlan} StepPlan
 * @typedef {import('./step-types.js').StepStats} StepStats
 * @typedef {import('./step-types.js').Criteria} Criteria
 * @typedef {import('../../spec/rules/capacity-svg.js').Bound} Bound what stopped a step: the server's knee, the key's limit, or the generator's ceiling
 * @typedef {import('./step-types.js').Cause} Cause
 * @typedef {{ name: string, rate: number, offered: number, achieved: number, errorRate: number, p95: number, p99: number, requestMs: number | null, slowdown: number | null, dropped: number, ok: boolean, why: string, afterKnee: boolean, skipped: boolean, bound: Bound | null, cause: Cause | null, k6: string }} StepVerdict
 *   rate: the step's whole rate; offered: this run's share of it; requestMs: the mean request time;
 *   slowdown: requestMs over the fastest lower step's (null on the first step, or without times)
 * @typedef {{ rows: StepVerdict[], held: StepVerdict | null, broke: StepVerdict | null, bound: Bound | null }} Knee
 * @typedef {{ kind: 'found' | 'refine' | 'raise-max' | 'lower-start' | 'key' | 'generator', between?: number[], cause?: Cause | null }} NextPass
 *   cause: what the generator ran out of, when it bound the search
 */

/**
 * The most VUs busy in a step. k6 counts the active VUs of the whole run, and a step's last
 * iterations run on into the next one (gracefulStop): a count above the step's own maximum says so
 * rather than claim more VUs than a step may have.
 * @param {number} busy
 * @param {number | undefined} maxVUs
 */
export function vusText(busy, maxVUs) {
  if (!maxVUs) return 'VUs busy at most ' + busy;
  if (busy <= maxVUs) return 'VUs busy at most ' + busy + ' of ' + maxVUs;
  return 'VUs busy at most ' + busy + ' with the step before still ending (' + maxVUs + ' a step)';
}

/**
 * What k6 itself used on a step, so that "the generator could not keep up" is told apart from
 * "the target slowed down": VUs busy, dropped iterations, and the time an iteration spent around
 * its request (script and scheduling), with the request time's growth since the fastest lower step.
 * @param {StepStats} s
 * @param {Criteria} criteria
 * @param {import('./blame.js').Baseline | null} base
 */
function generatorUse(s, criteria, base) {
  const parts = [];
  if (s.vusMax !== undefined) parts.push(vusText(s.vusMax, criteria.maxVUs));
  parts.push(s.dropped + ' dropped');
  if (s.iterationAvg !== undefined && s.requestAvg !== undefined) {
    const growth = slowdownOf(s, base);
    parts.push(
      'iteration ' +
        s.iterationAvg.toFixed(1) +
        ' ms for a ' +
        s.requestAvg.toFixed(1) +
        ' ms request' +
        (growth === null || base === null ? '' : ' (x' + growth.toFixed(1) + ' since ' + base.rate + '/s)')
    );
  }
  return 'k6: ' + parts.join(', ');
}

/**
 * Whether a step's (or several steps' summed) statistics meet the error and latency objectives:
 * what capacity.js's thresholds ask of the first step of a search, or of every request at fixed rates.
 * @param {StepStats} s
 * @param {Criteria} criteria
 */
export function meetsObjectives(s, criteria) {
  if (s.errorRate > criteria.maxErrorRate) return false;
  const slow95 = s.overP95 === undefined ? s.p95 > criteria.p95Ms : s.overP95 > 0.05 * s.count;
  const slow99 = s.overP99 === undefined ? s.p99 > criteria.p99Ms : s.overP99 > 0.01 * s.count;
  return !slow95 && !slow99;
}

/**
 * Judges every step and finds the knee. A step that holds after the first break is reported but
 * does not count: a recovery after a collapse is not capacity.
 * @param {StepPlan} plan
 * @param {(name: string) => StepStats | null} statsOf
 * @param {Criteria} criteria
 * @returns {Knee}
 */
export function judgeSteps(plan, statsOf, criteria) {
  const share = criteria.share === undefined ? 1 : criteria.share;
  /** @type {StepVerdict[]} */
  const rows = [];
  /** @type {StepVerdict | null} */
  let held = null;
  /** @type {StepVerdict | null} */
  let broke = null;
  /** @type {import('./blame.js').Baseline | null} */
  let base = null;
  for (let i = 0; i < plan.steps.length; i++) {
    const step = plan.steps[i];
    const s = statsOf(step.name);
    const seconds = step.endS - step.startS;
    const count = s === null ? 0 : s.count;
    const offered = step.rate * share;
    const achieved = count / seconds;
    const dropped = s === null ? 0 : s.dropped;
    const skipped = count === 0 && broke !== null && !(s !== null && s.limited !== undefined && s.limited > 0);
    /** @type {Bound | null} */
    let bound = null;
    /** @type {Cause | null} */
    let cause = null;
    /** @type {string[]} */
    const why = [];
    if (s !== null && s.limited !== undefined && s.limited > 0) {
      why.push('the key binds (' + s.limited + ' response(s) said so)');
      bound = 'key';
      cause = 'key';
    } else if (skipped) why.push('not run: the search had stopped');
    else if (s === null || count === 0) {
      why.push('no requests');
      bound = 'generator';
      cause = 'no-requests';
    } else {
      if (s.errorRate > criteria.maxErrorRate) why.push('errors ' + (s.errorRate * 100).toFixed(2) + '%');
      const slow95 = s.overP95 === undefined ? s.p95 > criteria.p95Ms : s.overP95 > 0.05 * count;
      const slow99 = s.overP99 === undefined ? s.p99 > criteria.p99Ms : s.overP99 > 0.01 * count;
      if (slow95) why.push('p95 ' + s.p95.toFixed(1) + ' ms' + (s.overP95 === undefined ? '' : ' (' + s.overP95 + ' over ' + criteria.p95Ms + ' ms)'));
      if (slow99) why.push('p99 ' + s.p99.toFixed(1) + ' ms' + (s.overP99 === undefined ? '' : ' (' + s.overP99 + ' over ' + criteria.p99Ms + ' ms)'));
      if (why.length > 0) {
        bound = 'server';
        cause = s.errorRate > criteria.maxErrorRate ? 'errors' : 'latency';
      }
      const short = dropped > criteria.maxDropped * offered * seconds || achieved < criteria.minAchieved * offered;
      if (dropped > criteria.maxDropped * offered * seconds) why.push(dropped + ' iterations dropped');
      if (achieved < criteria.minAchieved * offered) why.push('achieved ' + achieved.toFixed(1) + '/s of ' + offered.toFixed(share === 1 ? 0 : 1) + '/s');
      if (short && bound === null) {
        const shortfall = shortfallOf(s, criteria, base);
        bound = shortfall.bound;
        cause = shortfall.cause;
        why.push(shortfall.why);
      }
    }
    const requestMs = s !== null && s.count > 0 && s.requestAvg !== undefined && s.requestAvg > 0 ? s.requestAvg : null;
    /** @type {StepVerdict} */
    const row = {
      name: step.name,
      rate: step.rate,
      offered: offered,
      achieved: achieved,
      errorRate: s === null ? 0 : s.errorRate,
      p95: s === null ? 0 : s.p95,
      p99: s === null ? 0 : s.p99,
      requestMs: requestMs,
      slowdown: s === null ? null : slowdownOf(s, base),
      dropped: dropped,
      ok: why.length === 0,
      why: why.join(', '),
      afterKnee: broke !== null,
      skipped: skipped,
      bound: bound,
      cause: cause,
      k6: s === null ? 'k6: no samples' : generatorUse(s, criteria, base),
    };
    rows.push(row);
    if (!row.ok && broke === null) broke = row;
    else if (row.ok && broke === null) held = row;
    base = fasterBase(base, step.rate, s);
  }
  return { rows: rows, held: held, broke: broke, bound: broke === null ? null : broke.bound };
}

/**
 * What the next run should do: nothing more when the key or the generator bound the search (a
 * narrower search would measure them again); else narrow the knee while the gap between the rate
 * that held and the one that broke is wider than `resolution` (a share of the rate that held).
 * @param {Knee} knee
 * @param {number} resolution
 * @returns {NextPass}
 */
export function nextPass(knee, resolution) {
  if (knee.broke === null) return { kind: 'raise-max' };
  if (knee.bound === 'key') return { kind: 'key' };
  if (knee.bound === 'generator') return { kind: 'generator', cause: knee.broke.cause };
  if (knee.held === null) return { kind: 'lower-start' };
  if ((knee.broke.rate - knee.held.rate) / knee.held.rate <= resolution) return { kind: 'found' };
  return { kind: 'refine', between: [knee.held.rate, knee.broke.rate] };
}

/**
 * The report's line on what the search found, in the words of the picture's heading.
 * @param {Knee} knee
 * @param {number} maxRate the highest rate of the run
 */
export function boundLine(knee, maxRate) {
  return 'bound found: ' + boundText(knee.bound, knee.held === null ? null : knee.held.rate, knee.broke === null ? null : knee.broke.rate, maxRate);
}

/**
 * The aggregates capacity.js keeps for every step, [metric, statistic]: k6 aggregates a metric per
 * step only when a threshold names the step's sub-metric, so each gets an always-true threshold
 * (thresholds.js's stepThresholds) and handleSummary reads them back (stepStats). One list for both.
 */
export const STEP_AGGREGATES = [
  ['http_reqs', 'count'],
  ['http_req_failed', 'rate'],
  ['http_req_duration', 'p(95)'],
  ['http_req_duration', 'p(99)'],
  ['http_req_duration', 'avg'],
  ['dropped_iterations', 'count'],
  ['iteration_duration', 'avg'],
  ['capacity_over_p95', 'count'],
  ['capacity_over_p99', 'count'],
  ['capacity_key_limited', 'count'],
  ['capacity_vus_busy', 'max'],
];

/**
 * One step's statistics, read from the summary; null when k6 recorded no request in it.
 * @param {(metric: string, stat: string) => number | undefined} valueOf
 * @param {string} name the step's name
 * @returns {StepStats | null}
 */
export function stepStats(valueOf, name) {
  /** @param {string} metric @param {string} stat */
  const v = (metric, stat) => {
    const x = valueOf(stepMetric(metric, name), stat);
    return x === undefined || x === null ? 0 : x;
  };
  const count = valueOf(stepMetric('http_reqs', name), 'count');
  // A step stopped by the key before its first request still says so.
  if (count === undefined && v('capacity_key_limited', 'count') === 0) return null;
  return {
    count: count === undefined ? 0 : count,
    errorRate: v('http_req_failed', 'rate'),
    p95: v('http_req_duration', 'p(95)'),
    p99: v('http_req_duration', 'p(99)'),
    overP95: v('capacity_over_p95', 'count'),
    overP99: v('capacity_over_p99', 'count'),
    dropped: v('dropped_iterations', 'count'),
    limited: v('capacity_key_limited', 'count'),
    vusMax: v('capacity_vus_busy', 'max'),
    iterationAvg: v('iteration_duration', 'avg'),
    requestAvg: v('http_req_duration', 'avg'),
  };
}

/**
 * @param {StepVerdict} r
 */
export function stepLine(r) {
  if (r.skipped) return 'not run ' + r.rate + '/s (the search had stopped)';
  const share = r.offered === r.rate ? '' : ' (this generator: ' + r.offered.toFixed(1) + '/s)';
  return (
    (r.ok ? 'held ' : 'MISSED ') +
    r.rate +
    '/s' +
    share +
    ': achieved ' +
    r.achieved.toFixed(1) +
    '/s, errors ' +
    (r.errorRate * 100).toFixed(2) +
    '%, p95 ' +
    r.p95.toFixed(1) +
    ' ms, p99 ' +
    r.p99.toFixed(1) +
    ' ms; ' +
    r.k6 +
    (r.ok ? '' : ' (' + r.why + ')') +
    (r.ok && r.afterKnee ? ' (after the first break: not counted)' : '')
  );
}

/**
 * What one VU must have seen of a step before it stops sending: requests enough, and half of them
 * failed or slower than P95_MS. A step that held had at most 1 % failed and 5 % slower, so no sample
 * of a held step comes near; only a target plainly overwhelmed does.
 */
export const OVERWHELMED = { minRequests: 50, share: 0.5 };

/**
 * Whether what one VU saw of a step shows the target overwhelmed (OVERWHELMED): capacity.js then
 * sends nothing more, and the steps after it are reported as not run. k6 v0.47 ends a run early only
 * by aborting it (exit 108) or on a failed threshold (99), and a search that found its knee is neither;
 * VUs share nothing, so each stops on what it saw.
 * @param {{ requests: number, slow: number, failed: number }} seen
 * @returns {boolean}
 */
export function overwhelmed(seen) {
  if (seen.requests < OVERWHELMED.minRequests) return false;
  return seen.failed / seen.requests >= OVERWHELMED.share || seen.slow / seen.requests >= OVERWHELMED.share;
}

/**
 * Whether the whole k6 process plainly missed a step's rate, from exec.instance's counters, the same
 * for every VU: watched over half the step at least (2 s at least), it completed under 90 % of the
 * iterations the rate asks (a step breaks under 95 %). The generator had no VU free (every one
 * waiting on a slow target, or MAX_VUS too low) or no CPU; a higher step can only miss more, so the
 * search sends nothing after it.
 * @param {{ perSecond: number, completed: number, spanS: number, holdS: number }} w the step's rate
 *   (this generator's share), iterations completed while watched, for how long, the step's length
 * @returns {boolean}
 */
export function missedRate(w) {
  if (w.spanS < Math.max(2, w.holdS / 2)) return false;
  return w.completed < 0.9 * w.perSecond * w.spanS;
}

/**
 * What the plan asked of this generator before `step` began: the iterations of the steps before it,
 * the last of them (its iterations and rate a second) and its name; null when `step` is the first.
 * @param {import('./phases.js').Step[]} steps
 * @param {string} step
 * @param {number} share this generator's share of each rate
 * @returns {{ expected: number, lastStep: number, lastRate: number, previous: string } | null}
 */
export function plannedBefore(steps, step, share) {
  let expected = 0;
  /** @type {{ expected: number, lastStep: number, lastRate: number, previous: string } | null} */
  let before = null;
  for (const s of steps) {
    if (s.name === step) break;
    const lastStep = s.rate * (s.endS - s.startS) * share;
    expected += lastStep;
    before = { expected: expected, lastStep: lastStep, lastRate: s.rate * share, previous: s.name };
  }
  return before;
}

/**
 * Whether the steps before this one, together, plainly missed their rates: a VU at its first
 * iteration of a step reads it from exec.instance's completed iterations against the plan (k6 gives
 * overlapping steps VUs of their own, which saw nothing of the step before). Each step that held lost
 * 5 % at most, `inFlight` iterations may still be running, and a busy generator may start its
 * iterations up to a second late; beyond that, 5 % more of the last step's iterations missing means
 * it completed under 90 %.
 * @param {{ expected: number, completed: number, lastStep: number, lastRate: number, inFlight: number }} w
 *   iterations the plan asked of this generator by now, those it completed, the last step's, its rate
 *   a second, the most in flight
 * @returns {boolean}
 */
export function behindPlan(w) {
  if (w.lastStep <= 0) return false;
  return w.expected - w.completed > 0.05 * w.expected + 0.05 * w.lastStep + w.inFlight + w.lastRate;
}
