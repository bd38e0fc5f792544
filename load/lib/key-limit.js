// @ts-check
// The key's limit as the load scripts meet it: capacity.js must stay below it (a limit answering is
// the target's limiter, not the server breaking), rate-limit.js must reach it.
import { DEFAULT_TOLERANCES, readSnapshot, retryWaitMs } from '../../spec/rules/snapshot.js';
import { MAX_CLIENTS } from './config.js';

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
 * @param {number} rate the step's whole rate (requests per second over every generator: they all spend one key)
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

/** The window the plans' limits count in: their limits are per minute. */
export const WINDOW_S = 60;

/**
 * @typedef {object} ReachPlan what rate-limit.js knows once setup's first request has answered
 * @property {number} limit the key's X-RateLimit-Limit
 * @property {number | null} remaining that answer's X-RateLimit-Remaining
 * @property {number | null} expectedLimit PLAN's or LIMIT's, null when the limit is learned
 * @property {number} offeredPerMinute what the run can offer: the pacer's rate, within the scenario's
 * @property {number} overdrive OVERDRIVE
 * @property {number} clients CLIENTS
 * @property {number} durationS DURATION
 * @property {boolean} crossWindows CROSS_WINDOWS
 * @property {number} latencyMs that answer's round trip
 * @property {RunLength} [length] how the run's length was given, when not by DURATION
 * @typedef {{ option: '--duration' } | { option: '--iterations', iterations: number }} RunLength k6's own
 *   options, which replace the script's scenario: its length then comes from them
 * @typedef {{ certain: boolean, problem: string, change: string }} Shortfall why the run will (certain)
 *   or may not see the key's limit answer, and what to change
 */

/**
 * The run's length as it was asked for: `DURATION=150 s`, `--duration 5s`, `--iterations 4 (4 s at 60 a minute)`.
 * @param {ReachPlan} plan
 */
function lengthSaid(plan) {
  const l = plan.length;
  if (l === undefined) return 'DURATION=' + plan.durationS + ' s';
  if (l.option === '--duration') return '--duration ' + plan.durationS + 's';
  return '--iterations ' + l.iterations + ' (' + plan.durationS + ' s at ' + plan.offeredPerMinute + ' a minute)';
}

/**
 * What to raise for a run of at least `seconds`.
 * @param {ReachPlan} plan
 * @param {number} seconds
 */
function raiseLength(plan, seconds) {
  const l = plan.length;
  if (l === undefined) return 'raise DURATION to at least ' + seconds + 's';
  if (l.option === '--duration') return 'raise --duration to at least ' + seconds + 's';
  return 'raise --iterations to at least ' + Math.ceil((seconds * plan.offeredPerMinute) / 60) + ', or give --duration instead';
}

/**
 * What keeps rate-limit.js, as set up, from seeing the key's limit. Answers too slow for one VU are
 * only likely (a first request also pays for the connection); a limit other than PLAN's is the
 * target's fault (limit_mismatch), never certain.
 * @param {ReachPlan} plan
 * @returns {Shortfall[]}
 */
export function limitShortfalls(plan) {
  /** @type {Shortfall[]} */
  const found = [];
  const ours = plan.expectedLimit === null || plan.expectedLimit === plan.limit;
  const offered = plan.offeredPerMinute;
  const enough = Math.ceil(plan.limit * plan.overdrive);
  if (offered < plan.limit) {
    found.push({
      certain: ours,
      problem: 'it offers ' + offered + " requests a minute, below the key's Limit of " + plan.limit + ': no window can fill',
      change: ours
        ? 'raise RATE to ' + enough + ' (it caps the rate offered to a learned limit), or set LIMIT=' + plan.limit
        : "the key's Limit is not the expected " +
          plan.expectedLimit +
          ' (limit_mismatch); if ' +
          plan.limit +
          ' is right for this key, set LIMIT=' +
          plan.limit,
    });
  } else {
    // Filling the window in progress needs what it has left and one more, to see the refusal; a
    // window that resets meanwhile only needs more.
    const needed = (plan.remaining === null ? plan.limit : plan.remaining) + 1;
    // The first goes at once, the others one by one at the offered rate.
    const fastestS = ((needed - 1) * 60) / offered;
    const fillS = Math.ceil((needed * 60) / offered) + 1;
    if (plan.durationS < fastestS) {
      found.push({
        certain: ours,
        problem: lengthSaid(plan) + ' is too short to send the ' + needed + ' requests that fill the window and bring its 429 at ' + offered + ' a minute',
        change: raiseLength(plan, fillS) + (plan.crossWindows ? ' (150s, the default, also crosses windows)' : ''),
      });
    }
    const perVu = Math.floor((plan.clients * 60000) / Math.max(1, plan.latencyMs));
    if (perVu < plan.limit) {
      const clients = Math.ceil((enough * plan.latencyMs) / 60000);
      found.push({
        certain: false,
        problem:
          'the first answer took ' +
          Math.round(plan.latencyMs) +
          ' ms: at that pace its one VU sends at most ' +
          perVu +
          ' requests a minute' +
          (plan.clients > 1 ? ' in bursts of ' + plan.clients : '') +
          ', below the Limit of ' +
          plan.limit,
        change:
          clients <= MAX_CLIENTS
            ? 'set CLIENTS=' + clients + ' (requests at once)'
            : 'run k6 nearer the target: even ' + MAX_CLIENTS + ' at once would not reach it',
      });
    }
  }
  if (plan.crossWindows && plan.durationS <= WINDOW_S) {
    found.push({
      certain: true,
      problem: 'a whole ' + WINDOW_S + ' s window cannot be seen in ' + lengthSaid(plan) + ', so ratelimit_window_verified cannot be reached',
      change:
        (plan.length === undefined ? 'raise DURATION (150s by default)' : raiseLength(plan, 150)) + ', or set CROSS_WINDOWS=0 for a check within one window',
    });
  }
  return found;
}

/**
 * @typedef {object} RunPlan what rate-limit.js is set up to do, as setup tells it
 * @property {string} baseUrl BASE_URL
 * @property {number} limit the key's X-RateLimit-Limit
 * @property {number | null} expectedLimit PLAN's or LIMIT's, null when the limit is learned
 * @property {number} offeredPerMinute what the run offers
 * @property {number} durationS DURATION
 * @property {number} clients CLIENTS
 * @property {boolean} crossWindows CROSS_WINDOWS
 * @property {number | null} banS the ban scenario's length (BAN_DURATION), null without BAN
 * @property {boolean} strict STRICT
 */

/**
 * What setup says once it knows the key's limit: one line of what the run will do, and a warning
 * when CLIENTS is more than a burst may send (never past the Remaining last seen plus one).
 * @param {RunPlan} run
 * @returns {{ line: string, warnings: string[] }}
 */
export function runPlanLines(run) {
  const line =
    'rate-limit.js: ' +
    run.baseUrl +
    ', Limit ' +
    run.limit +
    (run.expectedLimit === null ? ' (learned)' : ' (expected ' + run.expectedLimit + ')') +
    ', offering ' +
    run.offeredPerMinute +
    ' requests/min for ' +
    run.durationS +
    ' s' +
    (run.clients > 1 ? ' in bursts of ' + run.clients + ' at once (CLIENTS), each within the Remaining last seen plus one' : '') +
    (run.crossWindows ? ', must cross at least one window boundary' : ', window boundary not required (CROSS_WINDOWS=0)') +
    (run.banS !== null ? ', then the ban scenario for up to ' + run.banS + ' s' : '') +
    (run.strict ? '; should-level rules fail the run (STRICT=1)' : '') +
    '. One VU makes every request, so k6 may warn "Insufficient VUs, reached 1 active VUs": expected, see the summary';
  /** @type {string[]} */
  const warnings = [];
  if (run.clients > run.limit + 1) {
    warnings.push(
      'CLIENTS=' +
        run.clients +
        ' but the key allows ' +
        run.limit +
        ' a minute: a burst never goes past the Remaining last seen plus one, so at most ' +
        (run.limit + 1) +
        ' requests go at once; use a key whose limit is above CLIENTS to see them all'
    );
  }
  return { line: line, warnings: warnings };
}

/**
 * The warning setup prints for a shortfall, with what to change.
 * @param {Shortfall} f
 */
export function shortfallLine(f) {
  return 'rate-limit.js ' + (f.certain ? 'cannot' : 'may not') + " reach the key's limit: " + f.problem + '; ' + f.change;
}

/**
 * Why the run stops at setup: the shortfalls that are certain; null when none is.
 * @param {Shortfall[]} shortfalls
 * @returns {string | null}
 */
export function unreachableReason(shortfalls) {
  const certain = shortfalls.filter(function (f) {
    return f.certain;
  });
  if (certain.length === 0) return null;
  return (
    "the run as set up cannot reach the key's limit, so its thresholds would fail whatever the target does: " +
    certain
      .map(function (f) {
        return f.problem + '; ' + f.change;
      })
      .join('. Also: ')
  );
}
