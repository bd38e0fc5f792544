/**
 * what k6 recorded of one step (of this generator's share, or summed over generators)
 */
export type StepStats = {
    /**
     * requests
     */
    count: number;
    /**
     * share of requests that failed (k6's http_req_failed)
     */
    errorRate: number;
    /**
     * ms (summed over generators: the highest generator's, an upper bound)
     */
    p95: number;
    /**
     * ms
     */
    p99: number;
    /**
     * requests slower than the p95 objective: when given, the objective is judged on it (exact across generators)
     */
    overP95?: number | undefined;
    /**
     * requests slower than the p99 objective
     */
    overP99?: number | undefined;
    /**
     * iterations k6 could not start on time
     */
    dropped: number;
    /**
     * responses that said the key binds (key-limit.js)
     */
    limited?: number | undefined;
    /**
     * the most VUs busy at once
     */
    vusMax?: number | undefined;
    /**
     * ms an iteration took, the request included
     */
    iterationAvg?: number | undefined;
    /**
     * ms a request took
     */
    requestAvg?: number | undefined;
};
/**
 * share: the part of each step's rate this run offers (its execution segment), 1 when alone
 */
export type Criteria = {
    maxErrorRate: number;
    p95Ms: number;
    p99Ms: number;
    minAchieved: number;
    maxDropped: number;
    maxVUs?: number;
    share?: number;
};
/**
 * the evidence the bound rests on
 */
export type Cause = "errors" | "latency" | "slowdown" | "key" | "cpu" | "vus" | "dropped" | "no-requests";
