/**
 * @typedef {{ name: string, rate: number, startS: number, endS: number }} Phase
 * @typedef {{ startRate: number, stages: Array<{ target: number, duration: string }>, phases: Phase[], totalS: number }} CapacityPlan
 */
/**
 * "25,50,100" into [25, 50, 100]: positive integers, strictly rising.
 * @param {string} text
 * @returns {number[]}
 */
export function parseRates(text: string): number[];
/**
 * @param {number[]} rates requests per second, rising
 * @param {number} rampS seconds to move from one rate to the next
 * @param {number} holdS seconds each rate is held
 * @returns {CapacityPlan}
 */
export function capacityPlan(rates: number[], rampS: number, holdS: number): CapacityPlan;
/**
 * The phase a request belongs to, from the seconds since the scenario started.
 * @param {CapacityPlan} plan
 * @param {number} elapsedS
 * @returns {string}
 */
export function phaseAt(plan: CapacityPlan, elapsedS: number): string;
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
export function judgeCapacity(plan: CapacityPlan, statsOf: (name: string) => PhaseStats | null, criteria: Criteria): {
    rows: PhaseVerdict[];
    best: PhaseVerdict | null;
};
export type Phase = {
    name: string;
    rate: number;
    startS: number;
    endS: number;
};
export type CapacityPlan = {
    startRate: number;
    stages: Array<{
        target: number;
        duration: string;
    }>;
    phases: Phase[];
    totalS: number;
};
export type PhaseStats = {
    count: number;
    errorRate: number;
    p95: number;
    p99: number;
};
export type Criteria = {
    maxErrorRate: number;
    p95Ms: number;
    p99Ms: number;
    minAchieved: number;
};
export type PhaseVerdict = {
    name: string;
    rate: number;
    achieved: number;
    errorRate: number;
    p95: number;
    p99: number;
    ok: boolean;
    why: string;
};
