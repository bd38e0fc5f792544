// @ts-check
// How many requests rate-limit.js sends on each wake-up: a rate learned at run time (which a
// scenario's static rate cannot be), a hold after a 429 as the specification asks of clients, and
// bursts within the Remaining last seen plus one (load/README.md, Decisions).
import { isRefusalStatus, retryWaitMs } from '../../spec/rules/snapshot.js';

/**
 * @typedef {object} Answer what the pacer learns from one response
 * @property {number} status
 * @property {number | null} waitMs how long its Retry-After asks to wait (spec/rules retryWaitMs), null when it names no wait
 * @property {number | null} [remaining] its X-RateLimit-Remaining
 * @property {number | null} [resetInMs] how long after it its X-RateLimit-Reset comes (server clock)
 */

/**
 * @param {{ perSecond: number, honourRetryAfter: boolean, startMs: number, maxBackoffSeconds?: number }} options
 *   honourRetryAfter: the client that judges the window (waits Retry-After, sends bursts within
 *   Remaining); false: the ban scenario's, which keeps sending
 */
export function createPacer(options) {
  let perSecond = options.perSecond;
  let since = options.startMs;
  let sentSince = 0;
  let holdUntil = 0;
  let refusedRetries = 0;
  let retrying = false;
  let stopped = false;
  /** What the last answers said remains, and until when (client clock); null when not known. */
  let left = /** @type {number | null} */ (null);
  let leftUntilMs = Infinity;
  const maxBackoff = options.maxBackoffSeconds === undefined ? 300 : options.maxBackoffSeconds;

  /**
   * @param {Answer[]} responses
   * @param {number} nowMs
   */
  function learnRemaining(responses, nowMs) {
    /** @type {number | null} */
    let least = null;
    let until = Infinity;
    for (let i = 0; i < responses.length; i++) {
      const r = responses[i];
      if (r.status === 0 || r.remaining === undefined || r.remaining === null) continue;
      if (least === null || r.remaining < least) least = r.remaining;
      if (r.resetInMs !== undefined && r.resetInMs !== null) until = Math.min(until, nowMs + r.resetInMs);
    }
    if (least === null) return;
    left = least;
    leftUntilMs = until;
  }

  return {
    /** @param {number} value requests per second */
    setRate: function (value) {
      perSecond = value;
    },
    /**
     * Requests to send now, at once: `max`, or fewer when the last answers said fewer remain (then
     * that many plus one), or just one when nothing is known (a window may have reset since);
     * none until that many are due. The ban scenario sends whatever is due, up to `max`.
     * @param {number} nowMs
     * @param {number} max
     */
    allowance: function (nowMs, max) {
      if (stopped || nowMs < holdUntil) return 0;
      const due = Math.floor((perSecond * (nowMs - since)) / 1000) + 1 - sentSince;
      if (!options.honourRetryAfter) return Math.max(0, Math.min(max, due));
      const known = left !== null && nowMs < leftUntilMs ? left + 1 : 1;
      const burst = Math.max(1, Math.min(max, known));
      return due >= burst ? burst : 0;
    },
    /** @param {number} count */
    sent: function (count) {
      sentSince += count;
    },
    /**
     * @param {Answer[]} responses
     * @param {number} nowMs
     * @returns {number} seconds the pacer now holds off for (0 when it does not)
     */
    after: function (responses, nowMs) {
      learnRemaining(responses, nowMs);
      let wait = 0;
      let refused = false;
      let admitted = false;
      for (let i = 0; i < responses.length; i++) {
        const r = responses[i];
        if (isRefusalStatus(r.status)) {
          refused = true;
          // Without a usable wait (or with 0) it waits a second rather than hammering.
          const seconds = r.waitMs === null || r.waitMs < 1000 ? 1 : r.waitMs / 1000;
          if (seconds > wait) wait = seconds;
        } else if (r.status >= 200 && r.status < 300) {
          admitted = true;
        }
      }
      if (admitted) {
        refusedRetries = 0;
        retrying = false;
      }
      if (!refused || !options.honourRetryAfter) return 0;
      if (retrying && !admitted) {
        refusedRetries += 1;
        wait = Math.max(wait, Math.min(maxBackoff, Math.pow(2, refusedRetries)));
      }
      retrying = true;
      holdUntil = nowMs + wait * 1000;
      // The schedule restarts at the end of the hold: no burst to catch up on what was not sent.
      since = holdUntil;
      sentSince = 0;
      return wait;
    },
    stop: function () {
      stopped = true;
    },
    holding: function (/** @type {number} */ nowMs) {
      return nowMs < holdUntil;
    },
  };
}

/**
 * What the pacer learns from one response, as the window rules read it.
 * @param {import('../../spec/rules/snapshot.js').Snapshot} s
 * @param {import('../../spec/rules/snapshot.js').Tolerances} tolerances
 * @returns {Answer}
 */
export function answerOf(s, tolerances) {
  return { status: s.status, waitMs: retryWaitMs(s, tolerances), remaining: s.remaining, resetInMs: s.reset === null ? null : s.reset * 1000 - s.serverNowMs };
}

/**
 * What the pacer learns from a batch's answers.
 * @param {import('../../spec/rules/snapshot.js').Snapshot[]} snapshots
 * @param {import('../../spec/rules/snapshot.js').Tolerances} tolerances
 * @returns {Answer[]}
 */
export function answersOf(snapshots, tolerances) {
  return snapshots.map(function (s) {
    return answerOf(s, tolerances);
  });
}

/**
 * When rate-limit.js probes a ban it has provoked, client clock in ms (load/README.md). The first
 * waits for the window the ban began in to end, so that a refusal is the ban's, not that window's.
 * @param {{ detectedMs: number, banDueMs: number, windowEndMs: number | null, slackMs: number }} ban
 * @returns {{ times: number[], pastReset: boolean }}
 */
export function banProbeTimes(ban) {
  const length = ban.banDueMs - ban.detectedMs;
  const third = ban.detectedMs + length / 3;
  const twoThirds = ban.detectedMs + (2 * length) / 3;
  const lift = ban.banDueMs + ban.slackMs + 1000;
  const afterReset = ban.windowEndMs === null ? null : ban.windowEndMs + ban.slackMs + 1000;
  /** @type {number[]} */
  const times = [];
  const pastReset = afterReset !== null && afterReset < ban.banDueMs - ban.slackMs - 1000;
  if (pastReset) {
    times.push(Math.max(afterReset, third));
    if (twoThirds > times[0] + 1000 && twoThirds < ban.banDueMs - ban.slackMs) times.push(twoThirds);
  } else {
    times.push(third, twoThirds);
  }
  times.push(lift);
  return { times: times.map(Math.round), pastReset: pastReset };
}

/**
 * What rate-limit.js's ban scenario does with a batch's answers: follows the end of the window it is
 * in until a ban is announced, then plans the ban's probes (banProbeTimes) and says when they go.
 * @param {{ answered: Answer[], detected: boolean, nowMs: number, windowEndMs: number | null, slackMs: number, scenarioEndMs: number, banDurationS: number }} batch
 *   `answered`: the batch's answers, all received at `nowMs`; `detected`: the batch announced the ban;
 *   `scenarioEndMs`: when the ban scenario ends
 * @returns {{ windowEndMs: number | null, probes: number[] | null, said: string | null, warning: string | null }}
 */
export function banProbePlan(batch) {
  const now = batch.nowMs;
  let windowEndMs = batch.windowEndMs;
  let banDueMs = 0;
  for (let i = 0; i < batch.answered.length; i++) {
    const a = batch.answered[i];
    if (batch.detected && isRefusalStatus(a.status) && a.waitMs !== null) banDueMs = Math.max(banDueMs, now + a.waitMs);
    if (!batch.detected && a.resetInMs !== undefined && a.resetInMs !== null) windowEndMs = now + a.resetInMs;
  }
  if (!batch.detected || banDueMs === 0) return { windowEndMs: windowEndMs, probes: null, said: null, warning: null };
  const plan = banProbeTimes({ detectedMs: now, banDueMs: banDueMs, windowEndMs: windowEndMs, slackMs: batch.slackMs });
  const offsets = plan.times.map(function (t) {
    return '+' + Math.round((t - now) / 1000) + ' s';
  });
  return {
    windowEndMs: windowEndMs,
    probes: plan.times,
    said:
      'ban announced for ' +
      Math.round((banDueMs - now) / 1000) +
      ' s; probes at ' +
      offsets.join(', ') +
      (plan.pastReset ? '' : ' (the ban ends with its window: no boundary to cross while it lasts)'),
    warning:
      plan.times[plan.times.length - 1] > batch.scenarioEndMs
        ? 'the ban outlasts the ban scenario (BAN_DURATION=' + batch.banDurationS + ' s): raise BAN_DURATION to see it lift'
        : null,
  };
}
