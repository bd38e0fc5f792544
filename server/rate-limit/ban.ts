// The ban rule, the same for an API key (429 key_banned) and for an address (429 ip_blocked):
//
//   - a refusal is a request its partition refuses: a window has no room for it (a probe of cost 0
//     included: it asks for room for one more);
//   - refusals are counted in a period of `periodMs` that starts at the first one; when that period
//     ends, the next refusal starts a new count from 1 (a fixed period, not a sliding one);
//   - the refusal that brings the count to `threshold` bans the partition for `durationMs` from
//     that moment; it is answered `banned`, and the count starts over;
//   - while the ban lasts, every request is answered `banned` with the time left; it is counted
//     neither in a window nor as a refusal, and it does not extend the ban;
//   - the ban lifts at its end exactly; the windows stand as they were, so a window still full
//     refuses (a first refusal again) and a window that ended admits afresh;
//   - an admitted request leaves the refusal count as it is.
//
// The memory counters apply it with the functions below; consume.lua states it again in Lua, and
// ban.test.ts holds both to the cases of ban-cases.ts.
import type { BanSpec } from './policy.ts';

/** What a partition remembers for the rule; absolute times on the clock of whoever keeps it. */
export interface BanState {
  /** Refusals counted in the current period, and when that period ends; null: none counted. */
  refusals: { count: number; endsAt: number } | null;
  /** When the ban ends; not banned once it is reached. */
  bannedUntil: number;
}

/** Milliseconds left on the ban at `now`, 0 when not banned. */
export function banLeft(state: BanState, now: number): number {
  return state.bannedUntil > now ? state.bannedUntil - now : 0;
}

/** Counts a refusal at `now`; true when it starts a ban (of `ban.durationMs` from `now`). */
export function countRefusal(state: BanState, ban: BanSpec, now: number): boolean {
  if (!state.refusals || state.refusals.endsAt <= now) state.refusals = { count: 0, endsAt: now + ban.periodMs };
  state.refusals.count += 1;
  if (state.refusals.count < ban.threshold) return false;
  state.refusals = null;
  state.bannedUntil = now + ban.durationMs;
  return true;
}
