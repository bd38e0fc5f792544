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
 * The steps of one run: each rate held `holdS` seconds, one after another.
 * @param {number[]} rates
 * @param {number} holdS
 * @returns {StepPlan}
 */
export function stepPlan(rates: number[], holdS: number): StepPlan;
/**
 * One constant-arrival-rate scenario per step: k6 tags every sample with its scenario, so each
 * step's requests, latencies and dropped iterations are aggregated apart. VUs of steps that do not
 * overlap are shared by k6.
 * @param {StepPlan} plan
 * @param {{ exec: string, maxVUs: number }} options
 * @returns {Record<string, StepScenario>}
 */
export function stepScenarios(plan: StepPlan, options: {
    exec: string;
    maxVUs: number;
}): Record<string, StepScenario>;
/**
 * Judges every step and finds the knee: the highest rate held within the criteria with every
 * lower step held too, and the first rate that broke. A step that holds after the first break is
 * reported but does not count: a recovery after a collapse is not capacity.
 * @param {StepPlan} plan
 * @param {(name: string) => StepStats | null} statsOf
 * @param {Criteria} criteria
 * @returns {Knee}
 */
export function judgeSteps(plan: StepPlan, statsOf: (name: string) => StepStats | null, criteria: Criteria): Knee;
/**
 * What the next run should do: narrow the knee while the gap between the rate that held and the
 * one that broke is wider than `resolution` (a share of the rate that held).
 * @param {Knee} knee
 * @param {number} resolution
 * @returns {NextPass}
 */
export function nextPass(knee: Knee, resolution: number): NextPass;
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
export type StepStats = {
    count: number;
    errorRate: number;
    p95: number;
    p99: number;
    dropped: number;
};
export type Criteria = {
    maxErrorRate: number;
    p95Ms: number;
    p99Ms: number;
    minAchieved: number;
    maxDropped: number;
};
export type StepVerdict = {
    name: string;
    rate: number;
    achieved: number;
    errorRate: number;
    p95: number;
    p99: number;
    dropped: number;
    ok: boolean;
    why: string;
    afterKnee: boolean;
};
export type Knee = {
    rows: StepVerdict[];
    held: StepVerdict | null;
    broke: StepVerdict | null;
};
export type NextPass = {
    kind: "found" | "refine" | "raise-max" | "lower-start";
    between?: number[];
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
