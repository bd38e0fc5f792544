/** @param {string} kind */
export function violationKey(kind: string): string;
/** @param {string} event */
export function eventMetric(event: string): string;
/**
 * The samples one outcome of the rules adds, in order.
 * @param {{ violations: Array<{ kind: string }>, events: string[] }} outcome
 * @returns {Sample[]}
 */
export function outcomeSamples(outcome: {
    violations: Array<{
        kind: string;
    }>;
    events: string[];
}): Sample[];
/**
 * A zero sample for every kind and event, so that k6 evaluates each threshold even when nothing
 * happened.
 * @returns {Sample[]}
 */
export function zeroSamples(): Sample[];
/**
 * @param {Kind} kind
 * @param {number} n
 * @param {boolean} strict
 */
export function violationLine(kind: Kind, n: number, strict: boolean): string;
/**
 * The judge of one scenario: the window rules with the script's tolerances.
 * @param {{ expectedLimit: number | null, clockSkewSeconds: number }} options
 */
export function createJudge(options: {
    expectedLimit: number | null;
    clockSkewSeconds: number;
}): {
    tolerances: import("../../spec/rules/snapshot.js").Tolerances & {
        clockSkewSeconds: number;
    };
    /**
     * Judges the responses to one batch (a single request is a batch of one).
     * @param {RecordedResponse[]} responses
     * @returns {{ snapshots: Snapshot[], outcome: Outcome, samples: Sample[] }}
     */
    observe: (responses: RecordedResponse[]) => {
        snapshots: Snapshot[];
        outcome: Outcome;
        samples: Sample[];
    };
};
/**
 * The report rate-limit.js prints from its counters: what was sent and seen, every rule broken, the
 * ban scenario's findings, and why k6 warned about its one VU.
 * @param {(metric: string) => number} count a counter's total in the summary (0 when absent)
 * @param {{ strict: boolean, ban: boolean }} options
 * @returns {string[]}
 */
export function reportLines(count: (metric: string) => number, options: {
    strict: boolean;
    ban: boolean;
}): string[];
export const VIOLATIONS_METRIC: "ratelimit_violations";
/**
 * @typedef {keyof typeof RULES} Kind
 * @typedef {{ metric: string, value: number, tags: Record<string, string> }} Sample
 * @typedef {import('../../spec/rules/snapshot.js').RecordedResponse} RecordedResponse
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('../../judge/rules/window-rules.js').Outcome} Outcome
 */
/** @type {Kind[]} */
export const KINDS: Kind[];
export type Kind = keyof typeof RULES;
export type Sample = {
    metric: string;
    value: number;
    tags: Record<string, string>;
};
export type RecordedResponse = import("../../spec/rules/snapshot.js").RecordedResponse;
export type Snapshot = import("../../spec/rules/snapshot.js").Snapshot;
export type Outcome = import("../../judge/rules/window-rules.js").Outcome;
import { RULES } from '../../judge/rules/rules.js';
