// The ban rule of a key (key_banned) and an address (ip_blocked) alike, as server/README.md's
// Decisions state it ("How refusals count towards a ban"). consume.lua restates it in Lua: change
// both together, since ban.test.ts holds both to the cases of ban-cases.ts.
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
