// express-rate-limit reads the process's clock (Date.now, new Date) and takes no clock of its own.
// To move its windows in tests without changing how it computes them, a thread that serves nothing
// else replaces its own global Date with one that tells a shared clock's time; the test's thread
// moves that clock. Worker threads have globals of their own, so no other code is affected.

/** A clock in shared memory (one Float64, epoch ms): written by the test's thread, read by the server's. */
export class SharedClock {
  readonly buffer: SharedArrayBuffer;
  readonly #ms: Float64Array;

  constructor(startMs: number | SharedArrayBuffer = Date.UTC(2026, 0, 1)) {
    this.buffer = typeof startMs === 'number' ? new SharedArrayBuffer(8) : startMs;
    this.#ms = new Float64Array(this.buffer);
    if (typeof startMs === 'number') this.#ms[0] = startMs;
  }

  now(): number {
    return this.#ms[0]!;
  }

  advance(ms: number): void {
    this.#ms[0] = this.#ms[0]! + ms;
  }

  set(ms: number): void {
    this.#ms[0] = ms;
  }
}

/**
 * Makes this thread's `Date.now()` and `new Date()` tell `now()`. Only for a thread of its own (a
 * worker that runs the library server and nothing else): every library in it then reads that time.
 */
export function installDateClock(now: () => number): void {
  const RealDate = globalThis.Date;
  class ClockDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(now());
      else super(...(args as [string | number | Date]));
    }

    static override now(): number {
      return now();
    }
  }
  globalThis.Date = ClockDate as DateConstructor;
}
