// The rate limits, read off an injected clock and never off timers. Each key has a minute and a
// day window, both fixed and started by the key's first request in them (not aligned to the
// clock); requests without a valid key share a window per client address. A key that keeps
// sending while refused is banned for a while. Every decision also describes each window the caller
// is counted in, for the IETF RateLimit-Policy and RateLimit fields.
import { PLAN_LIMITS } from '../../../spec/rules/contract.js';
import type { RateLimitPolicy, RateLimitState } from '../../../spec/rules/structured-fields.js';
import type { Clock, Plan } from './options.ts';

export const ADDRESS_LIMIT_PER_MINUTE = 600;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * 60_000;

export interface RateHeaders {
  limit: number;
  remaining: number;
  /** Unix seconds. */
  reset: number;
}

/** draft-ietf-httpapi-ratelimit-headers: every window the caller is counted in, and how each stands. */
export interface RateFields {
  /** RateLimit-Policy: `q` the window's limit, `w` its length in seconds. */
  policies: readonly RateLimitPolicy[];
  /**
   * RateLimit, in the order of `policies`: `r` what is left, `t` the seconds from now until that
   * window ends (while banned: until the ban ends), rounded up so that waiting `t` never lands
   * before it; X-RateLimit-Reset names the same end, rounded up to a Unix second.
   */
  states: readonly RateLimitState[];
}

export type Decision =
  | { verdict: 'admitted'; headers: RateHeaders; fields: RateFields }
  | { verdict: 'limited'; headers: RateHeaders; fields: RateFields; retryAtMs: number; window: 'minute' | 'day' | 'address' }
  | { verdict: 'banned'; headers: RateHeaders; fields: RateFields; retryAtMs: number };

/** Up to the next whole second, so that an HTTP-date or Unix seconds can name the moment exactly. */
const ceilSecond = (ms: number) => Math.ceil(ms / 1000) * 1000;

/** Whole seconds from `nowMs` until `atMs`, rounded up: waiting that long never lands before it. */
const secondsUntil = (atMs: number, nowMs: number) => Math.max(0, Math.ceil((atMs - nowMs) / 1000));

class FixedWindow {
  /** Its name in RateLimit-Policy and RateLimit. */
  readonly name: string;
  readonly limit: number;
  readonly #lengthMs: number;
  #startMs: number | undefined;
  #count = 0;

  constructor(name: string, limit: number, lengthMs: number) {
    this.name = name;
    this.limit = limit;
    this.#lengthMs = lengthMs;
  }

  /** Starts a new window when none is open at `nowMs`; true when it did. */
  roll(nowMs: number): boolean {
    if (this.#startMs !== undefined && nowMs < this.#startMs + this.#lengthMs) return false;
    this.#startMs = nowMs;
    this.#count = 0;
    return true;
  }

  close(): void {
    this.#startMs = undefined;
    this.#count = 0;
  }

  take(): void {
    this.#count++;
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.#count);
  }

  get endMs(): number {
    return (this.#startMs ?? 0) + this.#lengthMs;
  }

  get exhausted(): boolean {
    return this.#count >= this.limit;
  }

  headers(): RateHeaders {
    return { limit: this.limit, remaining: this.remaining, reset: ceilSecond(this.endMs) / 1000 };
  }

  policy(): RateLimitPolicy {
    return { name: this.name, quota: this.limit, window: this.#lengthMs / 1000 };
  }

  /** As it stands at `nowMs`, an open window. */
  state(nowMs: number): RateLimitState {
    return { name: this.name, remaining: this.remaining, reset: secondsUntil(this.endMs, nowMs) };
  }

  refusal(window: 'minute' | 'day' | 'address', fields: RateFields): Decision {
    const retryAtMs = ceilSecond(this.endMs);
    return { verdict: 'limited', headers: { limit: this.limit, remaining: 0, reset: retryAtMs / 1000 }, fields, retryAtMs, window };
  }
}

/** The fields of open windows, each as it stands at `nowMs`. */
function fieldsOf(windows: readonly FixedWindow[], nowMs: number): RateFields {
  return { policies: windows.map((w) => w.policy()), states: windows.map((w) => w.state(nowMs)) };
}

class KeyState {
  readonly minute: FixedWindow;
  readonly day: FixedWindow;
  refusedThisWindow = 0;
  bannedUntilMs: number | undefined;

  constructor(plan: Plan) {
    this.minute = new FixedWindow('minute', PLAN_LIMITS[plan].perMinute, MINUTE_MS);
    this.day = new FixedWindow('day', PLAN_LIMITS[plan].perDay, DAY_MS);
  }

  get windows(): readonly FixedWindow[] {
    return [this.minute, this.day];
  }
}

export interface LimiterOptions {
  clock: Clock;
  banAfter: number;
  banMs: number;
}

export class Limiter {
  readonly #options: LimiterOptions;
  readonly #keys = new Map<string, KeyState>();
  readonly #addresses = new Map<string, FixedWindow>();

  constructor(options: LimiterOptions) {
    this.#options = options;
  }

  forKey(key: string, plan: Plan): Decision {
    const now = this.#options.clock.now();
    let state = this.#keys.get(key);
    if (!state) this.#keys.set(key, (state = new KeyState(plan)));
    if (state.bannedUntilMs !== undefined) {
      if (now < state.bannedUntilMs) {
        const reset = state.bannedUntilMs / 1000;
        // While banned nothing is served, whatever the windows say: each has nothing left until the ban ends.
        const t = secondsUntil(state.bannedUntilMs, now);
        const fields = { policies: state.windows.map((w) => w.policy()), states: state.windows.map((w) => ({ name: w.name, remaining: 0, reset: t })) };
        return { verdict: 'banned', headers: { limit: state.minute.limit, remaining: 0, reset }, fields, retryAtMs: state.bannedUntilMs };
      }
      state.bannedUntilMs = undefined;
    }
    if (state.minute.roll(now)) state.refusedThisWindow = 0;
    state.day.roll(now);
    if (state.minute.exhausted || state.day.exhausted) {
      // When the day is spent, only its end lets the key in again, whatever the minute says.
      // Described before a ban closes the minute window: this 429 still speaks of it.
      const fields = fieldsOf(state.windows, now);
      const refusal = state.day.exhausted ? state.day.refusal('day', fields) : state.minute.refusal('minute', fields);
      if (++state.refusedThisWindow >= this.#options.banAfter) this.#ban(state, now);
      return refusal;
    }
    state.minute.take();
    state.day.take();
    // The window closer to refusing is the one worth announcing.
    const binding = state.day.remaining < state.minute.remaining ? state.day : state.minute;
    return { verdict: 'admitted', headers: binding.headers(), fields: fieldsOf(state.windows, now) };
  }

  forAddress(address: string): Decision {
    const now = this.#options.clock.now();
    let window = this.#addresses.get(address);
    if (!window) {
      if (this.#addresses.size >= 10_000) this.#forgetIdleAddresses(now);
      this.#addresses.set(address, (window = new FixedWindow('address-minute', ADDRESS_LIMIT_PER_MINUTE, MINUTE_MS)));
    }
    window.roll(now);
    if (window.exhausted) return window.refusal('address', fieldsOf([window], now));
    window.take();
    return { verdict: 'admitted', headers: window.headers(), fields: fieldsOf([window], now) };
  }

  #ban(state: KeyState, now: number): void {
    // A ban never ends before the window it punishes (the Reset already announced stays true), nor
    // while the day window still refuses: the first request after it is admitted.
    const dayEnd = state.day.exhausted ? state.day.endMs : 0;
    state.bannedUntilMs = ceilSecond(Math.max(now + this.#options.banMs, state.minute.endMs, dayEnd));
    // The minute window is served by the ban; the first request after it starts a fresh one.
    state.minute.close();
    state.refusedThisWindow = 0;
  }

  #forgetIdleAddresses(now: number): void {
    for (const [address, window] of this.#addresses) if (now >= window.endMs) this.#addresses.delete(address);
  }
}
