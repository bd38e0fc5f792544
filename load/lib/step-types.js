// @ts-check
// The shapes of a capacity step that knee.js and blame.js both read. Types only, in a module of their
// own so that blame.js need not import knee.js back; k6 never loads this file, only JSDoc names it.

/**
 * @typedef {object} StepStats what k6 recorded of one step (of this generator's share, or summed over generators)
 * @property {number} count requests
 * @property {number} errorRate share of requests that failed (k6's http_req_failed)
 * @property {number} p95 ms (summed over generators: the highest generator's, an upper bound)
 * @property {number} p99 ms
 * @property {number} [overP95] requests slower than the p95 objective: when given, the objective is judged on it (exact across generators)
 * @property {number} [overP99] requests slower than the p99 objective
 * @property {number} dropped iterations k6 could not start on time
 * @property {number} [limited] responses that said the key binds (key-limit.js)
 * @property {number} [vusMax] the most VUs busy at once
 * @property {number} [iterationAvg] ms an iteration took, the request included
 * @property {number} [requestAvg] ms a request took
 * @typedef {{ maxErrorRate: number, p95Ms: number, p99Ms: number, minAchieved: number, maxDropped: number, maxVUs?: number, share?: number }} Criteria
 *   share: the part of each step's rate this run offers (its execution segment), 1 when alone
 * @typedef {'errors' | 'latency' | 'slowdown' | 'key' | 'cpu' | 'vus' | 'dropped' | 'no-requests'} Cause the evidence the bound rests on
 */

export {};
