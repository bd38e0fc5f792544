// @ts-check
// capacity.js's plan of the search for the knee: which rates one run holds, and one scenario per
// step so that k6 aggregates every step on its own. Reading the results is knee.js's.

/**
 * @typedef {{ name: string, rate: number, startS: number, endS: number }} Step
 * @typedef {{ steps: Step[], totalS: number }} StepPlan
 * @typedef {{ executor: 'constant-arrival-rate', exec: string, rate: number, timeUnit: string, duration: string, startTime: string, preAllocatedVUs: number, maxVUs: number, gracefulStop: string }} StepScenario
 */

/** Each step is a scenario named `step-<rate>`. */
const STEP_PREFIX = 'step-';

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
 * The name of a metric restricted to one step's scenario (`http_reqs{scenario:step-800}`): the
 * per-step aggregates capacity.js keeps with always-true thresholds and judges in handleSummary.
 * @param {string} metric
 * @param {string} step a step's name, `step-<rate>`
 * @returns {string}
 */
export function stepMetric(metric, step) {
  return metric + '{scenario:' + step + '}';
}

/**
 * Whether a metric name is one of those per-step aggregates (hidden from the text summary).
 * @param {string} name
 * @returns {boolean}
 */
export function isStepMetric(name) {
  return name.indexOf('{scenario:' + STEP_PREFIX) >= 0;
}

/**
 * The first pass of the search: from `start`, each rate `factor` times the last, up to `max`.
 * Rates are whole requests per second and always rise: a factor too small to move a small rate
 * by rounding (4 x 1.1) moves it by one instead.
 * @param {number} start
 * @param {number} max
 * @param {number} factor
 * @returns {number[]}
 */
export function doublingRates(start, max, factor) {
  if (!(start >= 1) || Math.floor(start) !== start) throw new Error('START_RATE must be a positive integer');
  if (!(max >= start)) throw new Error('MAX_RATE must be at least START_RATE');
  if (!(factor > 1)) throw new Error('FACTOR must be above 1');
  const rates = [start];
  for (;;) {
    const last = rates[rates.length - 1];
    const next = Math.max(last + 1, Math.round(last * factor));
    if (next > max) break;
    rates.push(next);
  }
  return rates;
}

/**
 * "800,1600" (a rate that held, one that broke) into [800, 1600].
 * @param {string} text
 * @returns {number[]}
 */
export function parseBetween(text) {
  const rates = parseRates(text);
  if (rates.length !== 2) throw new Error('BETWEEN takes two rates, the highest that held and the first that broke: ' + text);
  return rates;
}

/**
 * A pass that narrows the knee: from the rate that held to the one that broke in `steps` equal
 * climbs, both ends measured again in the same run. STEPS=2 is one bisection.
 * @param {number} held
 * @param {number} broke
 * @param {number} steps
 * @returns {number[]}
 */
export function refineRates(held, broke, steps) {
  if (!(steps >= 1) || Math.floor(steps) !== steps) throw new Error('STEPS must be a positive integer');
  /** @type {number[]} */
  const rates = [];
  for (let i = 0; i <= steps; i++) {
    const r = Math.round(held + ((broke - held) * i) / steps);
    if (rates.length === 0 || r > rates[rates.length - 1]) rates.push(r);
  }
  return rates;
}

/**
 * A BETWEEN run's rates after a first step at `start` when that is lower: knee.js needs the
 * server's time at a low rate, and the rate that held may already have slowed the server.
 * @param {number[]} rates
 * @param {number} start
 * @returns {number[]}
 */
export function withBaseline(rates, start) {
  return rates.length > 0 && start < rates[0] ? [start].concat(rates) : rates.slice();
}

/**
 * @param {number[]} rates
 * @param {number} holdS
 * @returns {StepPlan}
 */
export function stepPlan(rates, holdS) {
  if (rates.length === 0) throw new Error('at least one rate is needed');
  if (holdS < 1) throw new Error('HOLD must be at least 1 s');
  /** @type {Step[]} */
  const steps = [];
  for (let i = 0; i < rates.length; i++) steps.push({ name: STEP_PREFIX + rates[i], rate: rates[i], startS: i * holdS, endS: (i + 1) * holdS });
  return { steps: steps, totalS: rates.length * holdS };
}

/**
 * One constant-arrival-rate scenario per step: k6 tags every sample with its scenario, so each
 * step's requests, latencies and dropped iterations are aggregated apart.
 * @param {StepPlan} plan
 * @param {{ exec: string, maxVUs: number, headroomMs?: number }} options headroomMs: the request time the
 *   pre-allocated VUs cover at the step's rate (default 100 ms)
 * @returns {Record<string, StepScenario>}
 */
export function stepScenarios(plan, options) {
  /** @type {Record<string, StepScenario>} */
  const scenarios = {};
  for (let i = 0; i < plan.steps.length; i++) {
    const s = plan.steps[i];
    scenarios[s.name] = {
      executor: 'constant-arrival-rate',
      exec: options.exec,
      rate: s.rate,
      timeUnit: '1s',
      duration: s.endS - s.startS + 's',
      startTime: s.startS + 's',
      // Enough for requests as slow as the p95 objective from the first second: k6 adds VUs up to
      // maxVUs when they run long, but starting one mid-step drops iterations, which would then be
      // the generator's doing, not the target's.
      preAllocatedVUs: Math.min(options.maxVUs, Math.max(2, Math.ceil((s.rate * (options.headroomMs === undefined ? 100 : options.headroomMs)) / 1000))),
      maxVUs: options.maxVUs,
      gracefulStop: '5s',
    };
  }
  return scenarios;
}
