// @ts-check
// k6's own --vus, --duration, --iterations (and --stages) replace a script's `scenarios` with one
// scenario, `default`, that runs the exported `default` function. What a script needs to know of
// that scenario, read from exec.test.options where k6 describes it.

/**
 * @typedef {object} Override the scenario k6 derived from its own options
 * @property {string} executor constant-vus (--duration), shared-iterations (--iterations), ramping-vus (--stages)
 * @property {number} vus the most VUs it runs
 * @property {number | null} durationS how long it runs, null when a count of iterations ends it
 * @property {number | null} iterations how many iterations it runs in all, null when a duration ends it
 */

/**
 * A duration as k6 writes it in its options (Go's form: "5s", "1m30s", "1h0m0s", "500ms") or a
 * number of milliseconds, in seconds.
 * @param {unknown} value
 * @returns {number | null}
 */
export function optionSeconds(value) {
  if (typeof value === 'number') return value / 1000;
  if (typeof value !== 'string' || value === '') return null;
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;
  /** @type {Record<string, number>} */
  const unit = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };
  let total = 0;
  let consumed = 0;
  let m;
  while ((m = re.exec(value)) !== null) {
    total += Number(m[1]) * unit[m[2]];
    consumed += m[0].length;
  }
  return consumed === value.length ? total : null;
}

/**
 * The scenario k6 runs instead of the script's when given its own options, or null when the
 * script's own scenarios run (none of them is called `default`).
 * @param {{ scenarios?: Record<string, any> | null } | null | undefined} options exec.test.options
 * @returns {Override | null}
 */
export function k6Override(options) {
  const scenarios = options && options.scenarios;
  if (!scenarios || !scenarios.default) return null;
  const s = scenarios.default;
  /** @type {Array<{ duration?: unknown, target?: number }>} */
  const stages = Array.isArray(s.stages) ? s.stages : [];
  let vus = typeof s.vus === 'number' && s.vus > 0 ? s.vus : typeof s.startVUs === 'number' ? s.startVUs : 1;
  let stagesS = 0;
  for (let i = 0; i < stages.length; i++) {
    vus = Math.max(vus, stages[i].target || 0);
    stagesS += optionSeconds(stages[i].duration) || 0;
  }
  const iterations = typeof s.iterations === 'number' ? s.iterations : null;
  const durationS = iterations !== null ? null : stages.length > 0 ? stagesS : optionSeconds(s.duration);
  return { executor: String(s.executor), vus: Math.max(1, vus), durationS: durationS, iterations: iterations };
}

/**
 * What k6's own options look like in a command line, for messages: `--vus 2 --duration 5s`.
 * @param {Override} o
 * @returns {string}
 */
export function overrideFlags(o) {
  const parts = ['--vus ' + o.vus];
  if (o.iterations !== null) parts.push('--iterations ' + o.iterations);
  else if (o.durationS !== null) parts.push('--duration ' + o.durationS + 's');
  return parts.join(' ');
}

/**
 * Why rate-limit.js cannot run under k6's own scenario, or null when it can: it counts every request
 * of the key from one VU, and BAN=1 needs a second scenario of its own.
 * @param {Override} o
 * @param {{ ban: boolean, maxClients: number }} script
 * @returns {string | null}
 */
export function rateLimitOverrideRefusal(o, script) {
  if (o.vus > 1) {
    return (
      'rate-limit.js judges each window by counting every request of the key from ONE VU; ' +
      overrideFlags(o) +
      ' would split them between ' +
      o.vus +
      ' VUs, each seeing part of each window. Give --vus 1 (or none), and CLIENTS=' +
      Math.min(o.vus, script.maxClients) +
      ' for that many concurrent clients on the key'
    );
  }
  if (script.ban)
    return (
      'BAN=1 runs a second scenario, and k6 runs only `default` when given ' + overrideFlags(o) + ': drop them (DURATION and BAN_DURATION set the lengths)'
    );
  return null;
}

/**
 * How long rate-limit.js's client runs: DURATION, or k6's own --duration; with --iterations, the
 * time that many wake-ups take at the offered rate (each sends a request or a burst).
 * @param {Override | null} o
 * @param {{ durationS: number, clients: number, offeredPerMinute: number }} run
 * @returns {{ durationS: number, said: import('./key-limit.js').RunLength | undefined }}
 */
export function runLength(o, run) {
  if (o === null) return { durationS: run.durationS, said: undefined };
  if (o.iterations !== null) {
    return { durationS: Math.floor((o.iterations * run.clients * 60) / run.offeredPerMinute), said: { option: '--iterations', iterations: o.iterations } };
  }
  return { durationS: o.durationS === null ? run.durationS : o.durationS, said: { option: '--duration' } };
}

/**
 * @typedef {object} WholeRun what a run of k6's own scenario achieved, from its summary
 * @property {number} ratePerS requests a second
 * @property {number} errorRate share of failed requests
 * @property {number} p95Ms
 * @property {number} p99Ms
 * @typedef {{ p95Ms: number, p99Ms: number, maxErrorRate: number }} Objective
 */

/**
 * capacity.js's report when k6's own options replaced its search: what the VUs achieved, against
 * the objective a step is held to, and how to search instead.
 * @param {Override} o
 * @param {WholeRun} run
 * @param {Objective} objective
 * @returns {string[]}
 */
export function overrideReport(o, run, objective) {
  /** @type {string[]} */
  const broken = [];
  if (run.errorRate > objective.maxErrorRate) broken.push('errors ' + pct(run.errorRate) + ' over ' + pct(objective.maxErrorRate));
  if (run.p95Ms >= objective.p95Ms) broken.push('p95 ' + run.p95Ms.toFixed(1) + ' ms over ' + objective.p95Ms + ' ms');
  if (run.p99Ms >= objective.p99Ms) broken.push('p99 ' + run.p99Ms.toFixed(1) + ' ms over ' + objective.p99Ms + ' ms');
  return [
    "k6's " + overrideFlags(o) + ' replaced the search: no steps, no knee; ' + o.vus + (o.vus === 1 ? ' VU' : ' VUs') + ' sent requests back to back',
    'achieved ' +
      run.ratePerS.toFixed(1) +
      ' requests/s, errors ' +
      pct(run.errorRate) +
      ', p95 ' +
      run.p95Ms.toFixed(1) +
      ' ms, p99 ' +
      run.p99Ms.toFixed(1) +
      ' ms: ' +
      (broken.length === 0 ? 'within the objective a step is held to' : 'a step would break: ' + broken.join(', ')),
    'next: search for the knee by running it without --vus, --duration and --iterations',
  ];
}

/** @param {number} share */
function pct(share) {
  return (share * 100).toFixed(2) + '%';
}
