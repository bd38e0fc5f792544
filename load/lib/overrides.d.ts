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
export function optionSeconds(value: unknown): number | null;
/**
 * The scenario k6 runs instead of the script's when given its own options, or null when the
 * script's own scenarios run (none of them is called `default`).
 * @param {{ scenarios?: Record<string, any> | null } | null | undefined} options exec.test.options
 * @returns {Override | null}
 */
export function k6Override(options: {
    scenarios?: Record<string, any> | null;
} | null | undefined): Override | null;
/**
 * What k6's own options look like in a command line, for messages: `--vus 2 --duration 5s`.
 * @param {Override} o
 * @returns {string}
 */
export function overrideFlags(o: Override): string;
/**
 * Why rate-limit.js cannot run under k6's own scenario, or null when it can: it counts every request
 * of the key from one VU, and BAN=1 needs a second scenario of its own.
 * @param {Override} o
 * @param {{ ban: boolean, maxClients: number }} script
 * @returns {string | null}
 */
export function rateLimitOverrideRefusal(o: Override, script: {
    ban: boolean;
    maxClients: number;
}): string | null;
/**
 * How long rate-limit.js's client runs: DURATION, or k6's own --duration; with --iterations, the
 * time that many wake-ups take at the offered rate (each sends a request or a burst).
 * @param {Override | null} o
 * @param {{ durationS: number, clients: number, offeredPerMinute: number }} run
 * @returns {{ durationS: number, said: import('./key-limit.js').RunLength | undefined }}
 */
export function runLength(o: Override | null, run: {
    durationS: number;
    clients: number;
    offeredPerMinute: number;
}): {
    durationS: number;
    said: import("./key-limit.js").RunLength | undefined;
};
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
export function overrideReport(o: Override, run: WholeRun, objective: Objective): string[];
/**
 * the scenario k6 derived from its own options
 */
export type Override = {
    /**
     * constant-vus (--duration), shared-iterations (--iterations), ramping-vus (--stages)
     */
    executor: string;
    /**
     * the most VUs it runs
     */
    vus: number;
    /**
     * how long it runs, null when a count of iterations ends it
     */
    durationS: number | null;
    /**
     * how many iterations it runs in all, null when a duration ends it
     */
    iterations: number | null;
};
/**
 * what a run of k6's own scenario achieved, from its summary
 */
export type WholeRun = {
    /**
     * requests a second
     */
    ratePerS: number;
    /**
     * share of failed requests
     */
    errorRate: number;
    p95Ms: number;
    p99Ms: number;
};
export type Objective = {
    p95Ms: number;
    p99Ms: number;
    maxErrorRate: number;
};
