// The rate limits, read off an injected clock and never off timers: per key a minute window (fixed
// from the key's first request, or a sliding log) and a fixed day window; keyless requests per
// address. Every decision describes each window it counts in, for the IETF RateLimit fields.
import { PLAN_LIMITS } from '../../../spec/rules/contract.js';
import { FixedWindow } from './fixed-window.ts';
import type { Plan, ResolvedOptions } from './options.ts';
import { MovingWindow, SlidingLog } from './sliding-window.ts';
import { ceilSecond, fieldsOf, headersOf, policiesOf, secondsUntil, type RateFields, type RateHeaders, type Window } from './window.ts';

export type { RateFields, RateHeaders } from './window.ts';

export const ADDRESS_LIMIT_PER_MINUTE = 600;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * 60_000;

export type Decision =
  | { verdict: 'admitted'; headers: RateHeaders; fields: RateFields }
  | { verdict: 'limited'; headers: RateHeaders; fields: RateFields; retryAtMs: number; window: 'minute' | 'day' | 'address' }
  | { verdict: 'banned'; headers: RateHeaders; fields: RateFields; retryAtMs: number };

/** A 429 that lets in again when `window` next frees room, which Reset and Retry-After both name. */
function refusal(window: Window, which: 'minute' | 'day' | 'address', fields: RateFields): Decision {
  const retryAtMs = ceilSecond(window.endMs);
  return { verdict: 'limited', headers: { limit: window.limit, remaining: 0, reset: retryAtMs / 1000 }, fields, retryAtMs, window: which };
}

class KeyState {
  readonly minute: Window;
  readonly day: Window;
  /** 429s since the key's last admission. */
  refused = 0;
  bannedUntilMs: number | undefined;

  constructor(plan: Plan, window: ResolvedOptions['window']) {
    const Minute = window === 'sliding' ? SlidingLog : window === 'moving' ? MovingWindow : FixedWindow;
    this.minute = new Minute('minute', PLAN_LIMITS[plan].perMinute, MINUTE_MS);
    this.day = new FixedWindow('day', PLAN_LIMITS[plan].perDay, DAY_MS);
  }

  get windows(): readonly Window[] {
    return [this.minute, this.day];
  }
}

export type LimiterOptions = Pick<ResolvedOptions, 'clock' | 'banAfter' | 'banMs' | 'window' | 'remaining' | 'race'>;

export class Limiter {
  readonly #options: LimiterOptions;
  readonly #keys = new Map<string, KeyState>();
  readonly #addresses = new Map<string, FixedWindow>();

  constructor(options: LimiterOptions) {
    this.#options = options;
  }

  /** Decided synchronously when called; only the racy build answers after a gap. */
  async forKey(key: string, plan: Plan): Promise<Decision> {
    const now = this.#options.clock.now();
    let state = this.#keys.get(key);
    if (!state) this.#keys.set(key, (state = new KeyState(plan, this.#options.window)));
    if (state.bannedUntilMs !== undefined) {
      if (now < state.bannedUntilMs) {
        const reset = state.bannedUntilMs / 1000;
        // While banned nothing is served, whatever the windows say: each has nothing left until the ban ends.
        const t = secondsUntil(state.bannedUntilMs, now);
        const fields = { policies: policiesOf(state.windows), states: state.windows.map((w) => ({ name: w.name, remaining: 0, reset: t })) };
        return { verdict: 'banned', headers: { limit: state.minute.limit, remaining: 0, reset }, fields, retryAtMs: state.bannedUntilMs };
      }
      state.bannedUntilMs = undefined;
    }
    state.minute.roll(now);
    state.day.roll(now);
    if (state.minute.exhausted || state.day.exhausted) {
      // When the day is spent, only its end lets the key in again, whatever the minute says.
      // Described before a ban closes the minute window: this 429 still speaks of it.
      const fields = fieldsOf(state.windows, now);
      const refused = state.day.exhausted ? refusal(state.day, 'day', fields) : refusal(state.minute, 'minute', fields);
      if (++state.refused >= this.#options.banAfter) this.#ban(state, now);
      return refused;
    }
    if (this.#options.race.limiter) {
      // The bug on purpose: the count was read above, and what is written after the gap is that
      // count plus one, whatever concurrent requests wrote meanwhile.
      const writeBack = state.minute.read();
      await this.#options.race.gap();
      writeBack();
    }
    const admitted = this.#admit(state, now);
    if (this.#options.remaining === 'decision') return admitted;
    // Remaining as of the answer: read once the answer is built, after whatever was counted meanwhile.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const later = Math.max(now, this.#options.clock.now());
    state.minute.roll(later);
    state.day.roll(later);
    return { verdict: 'admitted', headers: headersOf(this.#binding(state)), fields: fieldsOf(state.windows, later) };
  }

  /** The window closer to refusing is the one worth announcing. */
  #binding(state: KeyState): Window {
    return state.day.remaining < state.minute.remaining ? state.day : state.minute;
  }

  forAddress(address: string): Decision {
    const now = this.#options.clock.now();
    let window = this.#addresses.get(address);
    if (!window) {
      if (this.#addresses.size >= 10_000) this.#forgetIdleAddresses(now);
      this.#addresses.set(address, (window = new FixedWindow('address-minute', ADDRESS_LIMIT_PER_MINUTE, MINUTE_MS)));
    }
    window.roll(now);
    if (window.exhausted) return refusal(window, 'address', fieldsOf([window], now));
    window.take();
    return { verdict: 'admitted', headers: headersOf(window), fields: fieldsOf([window], now) };
  }

  #admit(state: KeyState, now: number): Decision {
    state.minute.take(now);
    state.day.take(now);
    // One rule for both algorithms: a sliding log has no beginnings to restart the count at, and a
    // fresh fixed window admits its first request, so "in one window" is "since the last admission".
    state.refused = 0;
    return { verdict: 'admitted', headers: headersOf(this.#binding(state)), fields: fieldsOf(state.windows, now) };
  }

  #ban(state: KeyState, now: number): void {
    // A ban never ends before the minute window next frees room (the Reset already announced stays
    // true), nor while the day window still refuses: the first request after it is admitted.
    const dayEnd = state.day.exhausted ? state.day.endMs : 0;
    state.bannedUntilMs = ceilSecond(Math.max(now + this.#options.banMs, state.minute.endMs, dayEnd));
    state.minute.close();
    state.refused = 0;
  }

  #forgetIdleAddresses(now: number): void {
    for (const [address, window] of this.#addresses) if (now >= window.endMs) this.#addresses.delete(address);
  }
}
