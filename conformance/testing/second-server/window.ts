// What the limiter needs of a per-key or per-address window, whatever its algorithm (fixed-window.ts,
// sliding-window.ts), and how any window is written into X-RateLimit-* and the IETF fields.
import type { RateLimitPolicy, RateLimitState } from '../../../spec/rules/structured-fields.js';

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
   * RateLimit, in the order of `policies`: `r` what is left, `t` the seconds from now until the
   * window next lets a request in (while banned: until the ban ends), rounded up so that waiting `t`
   * never lands before it; X-RateLimit-Reset names the same moment, rounded up to a Unix second.
   */
  states: readonly RateLimitState[];
}

export interface Window {
  /** Its name in RateLimit-Policy and RateLimit. */
  readonly name: string;
  readonly limit: number;
  readonly lengthMs: number;
  /** Forgets what has expired by `nowMs`. */
  roll(nowMs: number): void;
  readonly exhausted: boolean;
  readonly remaining: number;
  /** The moment the window next frees room: a fixed window's end, or when a sliding log's oldest slot expires. */
  readonly endMs: number;
  /** Counts one admitted request, admitted at `nowMs`. */
  take(nowMs: number): void;
  /** A ban takes over: what the window must forget of the requests it punishes. */
  close(): void;
  /**
   * The state as it is now, and a way to write exactly that back later: the stale read of a store
   * read and written a few ms apart, for the racy build.
   */
  read(): () => void;
}

/** What every window shares: its name, limit and length, and its room as the requests it holds against the limit. */
export abstract class CountingWindow {
  readonly name: string;
  readonly limit: number;
  readonly lengthMs: number;

  constructor(name: string, limit: number, lengthMs: number) {
    this.name = name;
    this.limit = limit;
    this.lengthMs = lengthMs;
  }

  /** The admitted requests that count against the limit now. */
  protected abstract get held(): number;

  get exhausted(): boolean {
    return this.held >= this.limit;
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.held);
  }
}

/** Up to the next whole second, so that an HTTP-date or Unix seconds can name the moment exactly. */
export const ceilSecond = (ms: number) => Math.ceil(ms / 1000) * 1000;

/** Whole seconds from `nowMs` until `atMs`, rounded up: waiting that long never lands before it. */
export const secondsUntil = (atMs: number, nowMs: number) => Math.max(0, Math.ceil((atMs - nowMs) / 1000));

export function headersOf(window: Window): RateHeaders {
  return { limit: window.limit, remaining: window.remaining, reset: ceilSecond(window.endMs) / 1000 };
}

export function policiesOf(windows: readonly Window[]): RateLimitPolicy[] {
  return windows.map((w) => ({ name: w.name, quota: w.limit, window: w.lengthMs / 1000 }));
}

/** The fields of windows that have been rolled to `nowMs`, each as it stands then. */
export function fieldsOf(windows: readonly Window[], nowMs: number): RateFields {
  return {
    policies: policiesOf(windows),
    states: windows.map((w) => ({ name: w.name, remaining: w.remaining, reset: secondsUntil(w.endMs, nowMs) })),
  };
}
