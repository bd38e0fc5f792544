/**
 * The k6 command that runs `run` again: its segment, every variable of `names` it was given (blank
 * ones are unset), then `change`, whose values replace them (null removes one).
 * @param {Run} run
 * @param {string[]} names
 * @param {Record<string, string | null>} [change]
 * @returns {string}
 */
export function rerunCommand(run: Run, names: string[], change?: Record<string, string | null>): string;
/**
 * The report's last line: the knee once it is narrow enough, else what to run next, as a command.
 * @param {NextPass} next
 * @param {Knee} knee
 * @param {Search} search
 * @param {Run} run
 * @returns {string}
 */
export function nextLine(next: NextPass, knee: Knee, search: Search, run: Run): string;
/**
 * The path to give k6 to run a script again, from a stack trace taken in the script (k6 v0.47 tells
 * a script nothing else of where it was loaded from: no import.meta): relative to the working
 * directory (PWD, which k6 hands scripts in __ENV) when the script is below it, else absolute; so
 * the installed package's runs name node_modules/adoption-store-kit/load/capacity.js, not a
 * load/capacity.js that is not there. `fallback` when the trace names no local file.
 * @param {string | undefined} stack `new Error().stack` in the script's init code
 * @param {string | undefined} pwd __ENV.PWD
 * @param {string} fallback
 * @returns {string}
 */
export function scriptPathFrom(stack: string | undefined, pwd: string | undefined, fallback: string): string;
/**
 * @typedef {import('./knee.js').Knee} Knee
 * @typedef {import('./knee.js').NextPass} NextPass
 * @typedef {import('./segments.js').Segment} Segment
 * @typedef {Record<string, string | undefined>} Env
 * @typedef {{ script: string, env: Env, segment: Segment | null }} Run what a run was given: the script's path, its environment, its execution segment
 * @typedef {{ mode: 'rates' | 'refine' | 'search', rates: number[], startRate: number, steps: number, resolution: number, maxVUs: number, loadKey: string }} Search
 *   what the run searched: its mode and rates, and the settings the advice changes
 */
/** Every variable capacity.js reads, in the order a command repeats them. */
export const CAPACITY_VARIABLES: string[];
export type Knee = import("./knee.js").Knee;
export type NextPass = import("./knee.js").NextPass;
export type Segment = import("./segments.js").Segment;
export type Env = Record<string, string | undefined>;
/**
 * what a run was given: the script's path, its environment, its execution segment
 */
export type Run = {
    script: string;
    env: Env;
    segment: Segment | null;
};
/**
 * what the run searched: its mode and rates, and the settings the advice changes
 */
export type Search = {
    mode: "rates" | "refine" | "search";
    rates: number[];
    startRate: number;
    steps: number;
    resolution: number;
    maxVUs: number;
    loadKey: string;
};
