/**
 * "25,50,100" into [25, 50, 100]: positive integers, strictly rising.
 * @param {string} text
 * @returns {number[]}
 */
export function parseRates(text: string): number[];
/**
 * The name of a metric restricted to one step's scenario (`http_reqs{scenario:step-800}`): the
 * per-step aggregates capacity.js keeps with always-true thresholds and judges in handleSummary.
 * @param {string} metric
 * @param {string} step a step's name, `step-<rate>`
 * @returns {string}
 */
export function stepMetric(metric: string, step: string): string;
/**
 * Whether a metric name is one of those per-step aggregates (hidden from the text summary).
 * @param {string} name
 * @returns {boolean}
 */
export function isStepMetric(name: string): boolean;
/**
 * The first pass of the search: from `start`, each rate `factor` times the last, up to `max`.
 * Rates are whole requests per second and always rise: a factor too small to move a small rate
 * by rounding (4 x 1.1) moves it by one instead.
 * @param {number} start
 * @param {number} max
 * @param {number} factor
 * @returns {number[]}
 */
export function doublingRates(start: number, max: number, factor: number): number[];
/**
 * "800,1600" (a rate that held, one that broke) into [800, 1600].
 * @param {string} text
 * @returns {number[]}
 */
export function parseBetween(text: string): number[];
/**
 * A pass that narrows the knee: from the rate that held to the one that broke in `steps` equal
 * climbs, both ends measured again in the same run. STEPS=2 is one bisection.
 * @param {number} held
 * @param {number} broke
 * @param {number} steps
 * @returns {number[]}
 */
export function refineRates(held: number, broke: number, steps: number): number[];
/**
 * A BETWEEN run's rates after a first step at `start` when that is lower: knee.js needs the
 * server's time at a low rate, and the rate that held may already have slowed the server.
 * @param {number[]} rates
 * @param {number} start
 * @returns {number[]}
 */
export function withBaseline(rates: number[], start: number): number[];
/**
 * @param {number[]} rates
 * @param {number} holdS
 * @returns {StepPlan}
 */
export function stepPlan(rates: number[], holdS: number): StepPlan;
/**
 * One constant-arrival-rate scenario per step: k6 tags every sample with its scenario, so each
 * step's requests, latencies and dropped iterations are aggregated apart.
 * @param {StepPlan} plan
 * @param {{ exec: string, maxVUs: number, headroomMs?: number }} options headroomMs: the request time the
 *   pre-allocated VUs cover at the step's rate (default 100 ms)
 * @returns {Record<string, StepScenario>}
 */
export function stepScenarios(plan: StepPlan, options: {
    exec: string;
    maxVUs: number;
    headroomMs?: number;
}): Record<string, StepScenario>;
export type Step = {
    name: string;
    rate: number;
    startS: number;
    endS: number;
};
export type StepPlan = {
    steps: Step[];
    totalS: number;
};
export type StepScenario = {
    executor: "constant-arrival-rate";
    exec: string;
    rate: number;
    timeUnit: string;
    duration: string;
    startTime: string;
    preAllocatedVUs: number;
    maxVUs: number;
    gracefulStop: string;
};
