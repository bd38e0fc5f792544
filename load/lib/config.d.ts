/**
 * @param {Env} env
 * @param {string} name
 * @param {string} fallback
 */
export function stringEnv(env: Env, name: string, fallback: string): string;
/**
 * @param {Env} env
 * @param {string} name
 * @param {number} fallback
 * @param {{ min?: number, max?: number, integer?: boolean }} [rules]
 */
export function numberEnv(env: Env, name: string, fallback: number, rules?: {
    min?: number;
    max?: number;
    integer?: boolean;
}): number;
/**
 * "1", "true", "yes", "on" are true; "0", "false", "no", "off" false.
 * @param {Env} env
 * @param {string} name
 * @param {boolean} fallback
 */
export function boolEnv(env: Env, name: string, fallback: boolean): boolean;
/**
 * A k6-style duration ("90s", "2m30s", "1h", or plain seconds) in whole seconds.
 * @param {string} text
 * @returns {number}
 */
export function parseDuration(text: string): number;
/**
 * @param {Env} env
 * @param {string} name
 * @param {string} fallback
 * @returns {number} seconds
 */
export function durationEnv(env: Env, name: string, fallback: string): number;
/**
 * How many requests rate-limit.js sends at once, as that many concurrent clients sharing the key
 * would: CLIENTS, or BATCH, its older name (both must agree when both are set); 1 when neither is.
 * @param {Env} env
 * @returns {number}
 */
export function clientsEnv(env: Env): number;
/**
 * The base address, without a trailing slash; it already ends with the version segment.
 * @param {Env} env
 */
export function baseUrl(env: Env): string;
/**
 * The per-minute limit the caller expects: LIMIT wins, then PLAN's row of the contract's plan
 * table; null when it is to be learned from X-RateLimit-Limit (or the plan's limits are per key).
 * @param {Env} env
 * @returns {{ plan: string | null, limit: number | null }}
 */
export function expectedLimit(env: Env): {
    plan: string | null;
    limit: number | null;
};
/**
 * Where handleSummary writes its JSON: SUMMARY_JSON, else <script>-summary.json in SUMMARY_DIR or
 * the working directory, the execution segment in the name so that generators sharing a folder keep
 * apart (load/README.md, Decisions).
 * @param {Env} env
 * @param {string} script
 * @param {string | null} [segment] the execution segment, null or "0:1" for the whole run
 */
export function summaryPath(env: Env, script: string, segment?: string | null): string;
/** The reference server started with `npm start`. */
export const DEFAULT_BASE_URL: string;
/** The most requests rate-limit.js sends at once: what its tests drive through the window rules. */
export const MAX_CLIENTS: 128;
export type Env = Record<string, string | undefined>;
