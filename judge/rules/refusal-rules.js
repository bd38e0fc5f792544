// @ts-check
// What follows a 429: the episode of refusals until a request is admitted again, a retry sent before
// Retry-After had passed (served, it breaks a rule; refused, it provokes), the readmission once every
// Retry-After has passed, and a ban announced, enforced and lifted (README.md, Decisions). Where the
// specification is silent the rules hold every reading of readings.js: Retry-After rounded up, to the
// nearest second or truncated; a ban answered 429 or 403, after any number of refusals, of any length.
import { retryAtSeconds, retryWaitMs, slackSeconds } from '../../spec/rules/snapshot.js';

/**
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('../../spec/rules/snapshot.js').Tolerances} Tolerances
 * @typedef {object} Episode the refusals since the last admitted request
 * @property {number} startMs when its first 429 arrived (client clock)
 * @property {number | null} dueMs when every Retry-After announced so far has passed (client clock)
 * @property {number | null} baseline the later of the first 429's Retry-After and Reset (server seconds)
 * @property {boolean} provoked the key was refused again: the client retried before a Retry-After had
 *   passed, or another of its requests came after a refusal in the server's order (concurrent
 *   requests the server refused one after the other, before the client had seen any 429)
 * @property {number | null} banDueMs when the announced ban ends (client clock)
 * @property {number | null} roundedFromMs the wait that a refusal within its rounding second followed (client clock)
 * @property {boolean} banOpen a ban was seen by its status (403 after a 429) without naming its end
 * @property {number} status the status of the refusal that began it
 * @property {unknown} ref the 429 that began it
 */

/**
 * Whether a refusal announces a ban the episode earned: the key was refused again after its first 429,
 * and this Retry-After reaches past the end of the window that 429 named.
 * @param {Episode} e @param {Snapshot} s @param {number} slack
 */
function earnedBan(e, s, slack) {
  const at = retryAtSeconds(s);
  return s.refused && e.provoked && e.baseline !== null && at !== null && at > e.baseline + slack;
}

/** @param {Snapshot} s */
const namesNoWait = (s) => s.retryAfter.form === 'missing';

/**
 * @param {import('./judgement.js').Recorder} rec
 * @param {Tolerances} tol
 */
export function createRefusalRules(rec, tol) {
  const rule = rec.rule;
  const event = rec.event;
  /** @type {Episode | null} */
  let episode = null;
  let banSeen = false;
  /** @type {Snapshot | null} the refusal just excused by the rounding of Retry-After */
  let rounded = null;

  return {
    /**
     * The rules about a request sent during an episode: retries before Retry-After, readmission
     * after it, a ban's enforcement and lifting.
     * @param {Snapshot} s
     * @returns {{ paused: boolean, early: boolean }} paused: inside an announced ban, where the
     *   window's numbers may describe the ban instead; early: sent before Retry-After had passed
     */
    judgeRetry: function (s) {
      const e = episode;
      if (e === null || s.sentAtMs < e.startMs) return { paused: false, early: false };
      // The check that promises a Retry-After on every refusal repeated after a 429: without one a
      // client cannot know when to retry, whatever the status (a ban answered 403 too).
      if (s.refused)
        rule(
          'refusal_without_retry_after',
          s,
          namesNoWait(s),
          () => 'a ' + s.status + ' repeated after a 429: it carries no Retry-After, so a client cannot tell when to retry',
          e.ref
        );
      const slackMs = slackSeconds(s, tol) * 1000;
      const banned = e.banDueMs !== null;
      // A ban whose end no Retry-After named (readings ban.status-403, ban.length): nothing says when
      // it lifts, until an answer of it does.
      if (e.banOpen && !banned && !s.admitted) {
        const wait = retryWaitMs(s, tol);
        if (wait !== null) {
          e.banOpen = false;
          e.banDueMs = s.receivedAtMs + wait;
        }
        return { paused: true, early: false };
      }
      if (e.dueMs !== null && s.sentAtMs >= e.dueMs) {
        const dueMs = e.dueMs;
        // Readings retry_after.truncated and retry_after.nearest: whole seconds that fall short of the
        // moment they stand for by less than one. A refusal within that second that asks for no more
        // than it breaks no rule; one later, or asking for longer, does.
        const wait = retryWaitMs(s, tol);
        const roundingMs = tol.roundingSeconds * 1000;
        const from = e.roundedFromMs === null ? dueMs : e.roundedFromMs;
        if (!s.admitted && s.sentAtMs < from + roundingMs && (wait === null || wait <= roundingMs)) {
          // The second is counted from the wait last announced, not from the short waits within it.
          e.roundedFromMs = from;
          rounded = s;
          rec.note(
            'refused ' +
              (s.sentAtMs - dueMs) +
              ' ms after Retry-After had passed: within the rounding second (Retry-After truncated or rounded to the nearest second)'
          );
          return { paused: banned, early: false };
        }
        // Reading ban.threshold: a ban the episode's repeated refusals earned may begin at a refusal that
        // still answered with the window's wait, and be announced by the first request after it.
        if (!banned && earnedBan(e, s, slackMs / 1000)) return { paused: false, early: false };
        const detail = () => 'sent ' + Math.round((s.sentAtMs - dueMs) / 1000) + ' s after every Retry-After had passed, and refused';
        rule('not_readmitted', s, !s.admitted, detail, e.ref);
        if (banned) rule('ban_not_lifted', s, !s.admitted, detail, e.ref);
        if (banned && s.admitted) event('ban_lifted');
        return { paused: banned && !s.admitted, early: false };
      }
      if (banned && s.sentAtMs < /** @type {number} */ (e.banDueMs) - slackMs) {
        const banDueMs = /** @type {number} */ (e.banDueMs);
        rule('ban_not_enforced', s, s.admitted, () => 'admitted ' + Math.round((banDueMs - s.sentAtMs) / 1000) + ' s before the announced ban ends', e.ref);
        if (!s.admitted) event('ban_confirmed');
        // Refused after the window it began in had ended: the ban outlived the window, it is no 429 of that window.
        if (!s.admitted && e.baseline !== null && s.serverNow > e.baseline + slackMs / 1000) event('ban_held_past_reset');
        return { paused: true, early: true };
      }
      // Admitted within the rounding of the ban's end: the ban has ended, its headers describe the window.
      if (banned) return { paused: !s.admitted, early: false };
      if (e.dueMs === null || s.sentAtMs >= e.dueMs - slackMs) return { paused: false, early: false };
      const dueMs = e.dueMs;
      e.provoked = true;
      rule(
        'served_before_retry_after',
        s,
        s.admitted,
        () => 'admitted ' + Math.round((dueMs - s.sentAtMs) / 1000) + ' s before the Retry-After of an earlier 429 had passed',
        e.ref
      );
      return { paused: false, early: true };
    },

    /**
     * A 429 whose Retry-After reaches past the episode's first Reset, after the client retried too
     * early, announces a ban; without such retries it is a Retry-After that does not match Reset.
     * @param {Snapshot} s
     * @returns {boolean} a ban was announced
     */
    judgeRetryAfter: function (s) {
      const e = episode;
      // Reading ban.status-403: a 403 after a 429 of the same episode is a ban, named by its status,
      // whatever its length; its Retry-After names its end, which readmission then judges.
      if (e !== null && e.status === 429 && s.status === 403 && e.banDueMs === null) {
        if (!e.banOpen) {
          banSeen = true;
          event('ban_detected');
          rec.note('temporary ban detected: 403 after a 429, ' + (s.retryAfterRaw === undefined ? 'without Retry-After' : 'Retry-After ' + s.retryAfterRaw));
        }
        const wait = retryWaitMs(s, tol);
        if (wait === null) e.banOpen = true;
        else {
          e.banOpen = false;
          e.banDueMs = s.receivedAtMs + wait;
        }
        return true;
      }
      const at = retryAtSeconds(s);
      if (at === null) return false;
      const slack = slackSeconds(s, tol);
      if (e !== null && earnedBan(e, s, slack)) {
        const banDueMs = s.receivedAtMs + /** @type {number} */ (retryWaitMs(s, tol));
        // Another answer of a ban already announced (concurrent requests refused in it).
        if (e.banDueMs !== null && banDueMs <= e.banDueMs + slack * 1000) return true;
        e.banDueMs = banDueMs;
        banSeen = true;
        event('ban_detected');
        rec.note(
          'temporary ban detected: 429 with Retry-After ' + s.retryAfterRaw + ', ' + (at - /** @type {number} */ (e.baseline)) + ' s beyond the window reset'
        );
        return true;
      }
      const reset = /** @type {number} */ (s.reset);
      rule(
        'retry_after_early',
        s,
        at < reset - slack,
        () => 'Retry-After ' + s.retryAfterRaw + ' at ' + s.serverNow + ' ends ' + (reset - at) + ' s before Reset ' + reset
      );
      rule(
        'retry_after_late',
        s,
        at > reset + slack,
        () => 'Retry-After ' + s.retryAfterRaw + ' at ' + s.serverNow + ' ends ' + (at - reset) + ' s after Reset ' + reset + ', and no ban was provoked'
      );
      return false;
    },

    /**
     * An admitted request ends the episode; a refusal begins or extends it.
     * @param {Snapshot} s
     */
    follow: function (s) {
      if (s.admitted) {
        episode = null;
        return;
      }
      const wait = retryWaitMs(s, tol);
      const due = wait === null ? null : s.receivedAtMs + wait;
      if (episode === null)
        episode = {
          startMs: s.receivedAtMs,
          dueMs: due,
          roundedFromMs: null,
          baseline: null,
          provoked: false,
          banDueMs: null,
          banOpen: false,
          status: s.status,
          ref: s.ref,
        };
      else episode.provoked = true;
      if (due !== null && (episode.dueMs === null || due > episode.dueMs)) {
        episode.dueMs = due;
        // A longer wait announced anew (a ban): its own rounding second counts from its end.
        if (rounded !== s) episode.roundedFromMs = null;
      }
      rounded = null;
      const at = retryAtSeconds(s);
      if (episode.baseline === null && at !== null) episode.baseline = s.reset === null ? at : Math.max(at, s.reset);
    },

    /** When a client may retry: every Retry-After of the current refusals has passed (client clock); null when admitted or unknown. */
    retryDueMs: function () {
      return episode === null ? null : episode.dueMs;
    },

    /** Whether a ban was ever announced. */
    banSeen: function () {
      return banSeen;
    },
  };
}
