// @ts-check
// The stepped arrival-rate plan of capacity.js and the reading of its results: each step ramps
// to a rate and holds it; requests are tagged with the phase they started in, so k6 aggregates
// every hold across all VUs and handleSummary can tell which rates the target sustained.
// Pure JavaScript.

/**
 * @typedef {{ name: string, rate: number, startS: number, endS: number }} Phase
 * @typedef {{ startRate: number, stages: Array<{ target: number, duration: string }>, phases: Phase[], totalS: number }} CapacityPlan
 */

/**
 * "25,50,100" into [25, 50, 100]: positive integers, strictly rising.
 * @param {string} text
 * @returns {number[]}
 */
export function parseRates(text) {
  const parts = String(text).split(',');
  /** @type {number[]} */
  const rates = [];
  for (let i = 0; i < parts.length; i++) {
    const t = parts[i].trim();
    if (!/^\d+$/.test(t) || Number(t) < 1) throw new Error('RATES: "' + t + '" is not a positive integer rate');
    const r = Number(t);
    if (rates.length > 0 && r <= rates[rates.length - 1]) throw new Error('RATES must rise strictly: ' + text);
    rates.push(r);
  }
  return rates;
}

/**
 * @param {number[]} rates requests per second, rising
 * @param {number} rampS seconds to move from one rate to the next
 * @param {number} holdS seconds each rate is held
 * @returns {CapacityPlan}
 */
export function capacityPlan(rates, rampS, holdS) {
  if (rates.length === 0) throw new Error('at least one rate is needed');
  if (holdS < 1) throw new Error('HOLD must be at least 1 s');
  /** @type {Array<{ target: number, duration: string }>} */
  const stages = [];
  /** @type {Phase[]} */
  const phases = [];
  let t = 0;
  for (let i = 0; i < rates.length; i++) {
    if (i > 0 && rampS > 0) {
      stages.push({ target: rates[i], duration: rampS + 's' });
      phases.push({ name: 'ramp-' + rates[i], rate: rates[i], startS: t, endS: t + rampS });
      t += rampS;
    }
    stages.push({ target: rates[i], duration: holdS + 's' });
    phases.push({ name: 'hold-' + rates[i], rate: rates[i], startS: t, endS: t + holdS });
    t += holdS;
  }
  return { startRate: rates[0], stages: stages, phases: phases, totalS: t };
}

/**
 * The phase a request belongs to, from the seconds since the scenario started.
 * @param {CapacityPlan} plan
 * @param {number} elapsedS
 * @returns {string}
 */
export function phaseAt(plan, elapsedS) {
  for (let i = 0; i < plan.phases.length; i++) {
    const p = plan.phases[i];
    if (elapsedS >= p.startS && elapsedS < p.endS) return p.name;
  }
  return 'after';
}

/**
 * @typedef {{ count: number, errorRate: number, p95: number, p99: number }} PhaseStats
 * @typedef {{ maxErrorRate: number, p95Ms: number, p99Ms: number, minAchieved: number }} Criteria
 * @typedef {{ name: string, rate: number, achieved: number, errorRate: number, p95: number, p99: number, ok: boolean, why: string }} PhaseVerdict
 */

/**
 * Judges every hold phase and picks the highest rate held within the criteria. A rate counts as
 * sustained only if every lower hold was sustained too: a recovery after a collapse is not capacity.
 * @param {CapacityPlan} plan
 * @param {(name: string) => PhaseStats | null} statsOf
 * @param {Criteria} criteria
 * @returns {{ rows: PhaseVerdict[], best: PhaseVerdict | null }}
 */
export function judgeCapacity(plan, statsOf, criteria) {
  /** @type {PhaseVerdict[]} */
  const rows = [];
  /** @type {PhaseVerdict | null} */
  let best = null;
  let broken = false;
  for (let i = 0; i < plan.phases.length; i++) {
    const p = plan.phases[i];
    if (p.name.indexOf('hold-') !== 0) continue;
    const s = statsOf(p.name);
    const seconds = p.endS - p.startS;
    const count = s === null ? 0 : s.count;
    const achieved = count / seconds;
    /** @type {string[]} */
    const why = [];
    if (s === null || count === 0) why.push('no requests');
    else {
      if (achieved < criteria.minAchieved * p.rate) why.push('achieved ' + achieved.toFixed(1) + '/s of ' + p.rate + '/s');
      if (s.errorRate > criteria.maxErrorRate) why.push('errors ' + (s.errorRate * 100).toFixed(2) + '%');
      if (s.p95 > criteria.p95Ms) why.push('p95 ' + s.p95.toFixed(1) + ' ms');
      if (s.p99 > criteria.p99Ms) why.push('p99 ' + s.p99.toFixed(1) + ' ms');
    }
    const row = {
      name: p.name,
      rate: p.rate,
      achieved: achieved,
      errorRate: s === null ? 0 : s.errorRate,
      p95: s === null ? 0 : s.p95,
      p99: s === null ? 0 : s.p99,
      ok: why.length === 0,
      why: why.join(', '),
    };
    rows.push(row);
    if (!row.ok) broken = true;
    else if (!broken) best = row;
  }
  return { rows: rows, best: best };
}
