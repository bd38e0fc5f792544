// @ts-check
// When capacity.js measures the key instead of the server. A 429 (or a 403 ban) during a capacity
// step is the target's limiter answering, not the server breaking; and a window whose Remaining
// will run out within HORIZON_S seconds at the step's rate is about to answer so. Either way the
// search stops at once (a key refused again and again gets banned) and the step is reported as
// limited by the key, with the headers that said so. The rate is the whole step's, not one
// generator's share: every generator spends the same key. Pure JavaScript.
import { DEFAULT_TOLERANCES, readSnapshot, retryWaitMs } from '../../spec/rules/snapshot.js';

/** How close to running out a window may come before the search stops: two seconds of traffic. */
export const HORIZON_S = 2;

/** The gauges through which the VU that saw the limit hands its headers to handleSummary. */
export const KEY_LIMIT_METRICS = {
  rate: 'capacity_key_limited_rate',
  status: 'capacity_key_limited_status',
  limit: 'capacity_key_limit',
  remaining: 'capacity_key_remaining',
  resetInS: 'capacity_key_reset_in',
  retryAfterS: 'capacity_key_retry_after',
};

/**
 * @typedef {{ rate: number, status: number, limit: number | null, remaining: number | null, resetInS: number | null, retryAfterS: number | null }} KeyLimit
 * @typedef {import('../../spec/rules/snapshot.js').RecordedResponse} RecordedResponse
 */

/**
 * Whether this response says the key binds at `rate` requests per second; null when it does not.
 * @param {RecordedResponse} response
 * @param {number} rate the step's whole rate (requests per second over every generator)
 * @param {number} [horizonS]
 * @returns {KeyLimit | null}
 */
export function keyLimit(response, rate, horizonS) {
  const s = readSnapshot(response);
  const resetInS = s.reset === null ? null : s.reset - s.serverNow;
  const base = { rate: rate, status: s.status, limit: s.limit, remaining: s.remaining, resetInS: resetInS, retryAfterS: null };
  if (s.refused) {
    const wait = retryWaitMs(s, DEFAULT_TOLERANCES);
    return Object.assign(base, { retryAfterS: wait === null ? null : Math.round(wait / 1000) });
  }
  if (!s.admitted || s.remaining === null || resetInS === null) return null;
  // A Reset in the past or beyond a day is not a live window (a mock's example value): no forecast.
  if (!(resetInS > 0 && resetInS <= 86400)) return null;
  const horizon = Math.min(horizonS === undefined ? HORIZON_S : horizonS, resetInS);
  return s.remaining < rate * horizon ? base : null;
}

/**
 * The line that reports it.
 * @param {KeyLimit} k
 */
export function keyLimitLine(k) {
  /** @param {number | null} v */
  const shown = (v) => (v === null ? 'none' : String(v));
  if (k.status === 429 || k.status === 403) {
    return (
      'limited by the key at ' +
      k.rate +
      '/s: ' +
      k.status +
      ' with X-RateLimit-Limit ' +
      shown(k.limit) +
      ', Retry-After ' +
      (k.retryAfterS === null ? 'none' : k.retryAfterS + ' s')
    );
  }
  return (
    'limited by the key at ' +
    k.rate +
    '/s: X-RateLimit-Limit ' +
    shown(k.limit) +
    ', X-RateLimit-Remaining ' +
    shown(k.remaining) +
    ' with the window resetting in ' +
    shown(k.resetInS) +
    ' s would run out within ' +
    HORIZON_S +
    ' s (stopped before any 429)'
  );
}

/**
 * The gauge samples that carry a KeyLimit to handleSummary (-1 stands for a missing header).
 * @param {KeyLimit} k
 * @returns {Array<{ metric: string, value: number }>}
 */
export function keyLimitSamples(k) {
  /** @param {number | null} v */
  const n = (v) => (v === null ? -1 : v);
  return [
    { metric: KEY_LIMIT_METRICS.rate, value: k.rate },
    { metric: KEY_LIMIT_METRICS.status, value: k.status },
    { metric: KEY_LIMIT_METRICS.limit, value: n(k.limit) },
    { metric: KEY_LIMIT_METRICS.remaining, value: n(k.remaining) },
    { metric: KEY_LIMIT_METRICS.resetInS, value: n(k.resetInS) },
    { metric: KEY_LIMIT_METRICS.retryAfterS, value: n(k.retryAfterS) },
  ];
}

/**
 * The KeyLimit a run recorded, read back from the summary's gauges; null when none was.
 * @param {(metric: string) => number | undefined} gauge the last value of a gauge
 * @returns {KeyLimit | null}
 */
export function keyLimitFromGauges(gauge) {
  const rate = gauge(KEY_LIMIT_METRICS.rate);
  if (rate === undefined || !(rate > 0)) return null;
  /** @param {string} name */
  const v = (name) => {
    const x = gauge(name);
    return x === undefined || x < 0 ? null : x;
  };
  return {
    rate: rate,
    status: v(KEY_LIMIT_METRICS.status) || 0,
    limit: v(KEY_LIMIT_METRICS.limit),
    remaining: v(KEY_LIMIT_METRICS.remaining),
    resetInS: v(KEY_LIMIT_METRICS.resetInS),
    retryAfterS: v(KEY_LIMIT_METRICS.retryAfterS),
  };
}
