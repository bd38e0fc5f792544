// @ts-check
// The shapes the timeline picture draws, shared by its modules; timeline-svg.js re-exports them.

/**
 * @typedef {{ kind: string, level: 'must' | 'should', detail: string }} TimelineViolation
 * @typedef {object} TimelinePoint one request
 * @property {number} atMs when it was sent
 * @property {number} status 0 when no response came
 * @property {number | null} [limit] X-RateLimit-Limit
 * @property {number | null} [remaining] X-RateLimit-Remaining
 * @property {number | null} [resetAtMs] the moment X-RateLimit-Reset names, on the same clock as atMs
 * @property {number | null} [retryAfterMs] the wait a refusal's Retry-After names
 * @property {boolean} [ban] this refusal announced a ban lasting retryAfterMs
 * @property {boolean} [injected] a fault injected in the server's place (--faults), not the limiter's answer
 * @property {TimelineViolation[]} [violations] the rules broken by this response
 */

export {};
