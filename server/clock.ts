/**
 * The last instant the server can print: an IMF-fixdate (Sunset, HTTP dates) and an ISO 8601 string
 * (admin and client reports) have a four-digit year, and X-RateLimit-Reset counts whole seconds.
 */
export const LAST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/** How long a clock moved as far as it may go still runs in real time with every date printable. */
export const RUNNING_MARGIN_MS = 366 * 86_400_000;

/**
 * The latest the clock may be moved to: every instant the server derives from it (a window's reset,
 * a ban's end) lies at most `longestSpanMs` after it, and must still be printable after a year of
 * real time (RUNNING_MARGIN_MS) has passed on a moved system clock.
 */
export function latestClockMs(longestSpanMs: number): number {
  return LAST_INSTANT_MS - longestSpanMs - RUNNING_MARGIN_MS;
}

/** Epoch milliseconds. Everything time-dependent reads the clock it is given, never Date.now(). */
export interface Clock {
  now(): number;
  /** Moves the clock forward; the admin API and tests use it instead of waiting. */
  advance?(ms: number): void;
}

/** The real time, plus an offset the admin API can move forward. */
export class SystemClock implements Clock {
  #offsetMs = 0;

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  advance(ms: number): void {
    this.#offsetMs += ms;
  }
}

/** A clock that only moves when told to: for tests. */
export class ManualClock implements Clock {
  #nowMs: number;

  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.#nowMs = startMs;
  }

  now(): number {
    return this.#nowMs;
  }

  advance(ms: number): void {
    this.#nowMs += ms;
  }

  set(ms: number): void {
    this.#nowMs = ms;
  }
}
