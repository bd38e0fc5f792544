// Fail open: while Redis cannot answer, each instance limits on its own with memory counters, so the
// API keeps serving. The memory counters hold what Redis last said of each partition, so each
// instance goes on from the shared count, not from zero; when Redis is back, each adds what it
// admitted alone to the shared counts (rebuilding those Redis lost) before Redis decides again. So
// N instances never admit more than N times a limit in a window (server/README.md, Decisions).
import type { ConsumeRequest, ConsumeResult, Counters } from './counters.ts';
import type { LocalBan, LocalCount, MemoryCounters } from './memory-counters.ts';
import type { SharedRedis } from './passenger.ts';
import type { RedisStatus } from './redis-counters.ts';

export type FailoverEvent = { type: 'fallback'; error: Error | undefined } | { type: 'recovered' };

/** What the failover counters need of their shared counters (the Redis counters, or a fake in tests). */
export interface SharedCounters extends Counters {
  readonly ready: boolean;
  onStatus(listener: (status: RedisStatus, error?: Error) => void): void;
  /** Adds counts kept alone to the shared ones, raising any found below what was last read, and holds the bans given (rebuild.lua). */
  addLocalCounts(counts: readonly LocalCount[], bans: readonly LocalBan[]): Promise<void>;
}

export interface FailoverOptions {
  /**
   * After a failed command, how long decisions stay in memory before the shared counters are tried
   * again. A Redis that hangs (connected, not answering) would otherwise cost every request the
   * full command timeout.
   */
  retryAfterFailureMs?: number;
  /** Monotonic milliseconds, for that pause only; injectable for tests. */
  monotonicNow?: () => number;
  onEvent?: (event: FailoverEvent) => void;
}

export class FailoverCounters<Primary extends SharedCounters = SharedCounters> implements Counters {
  readonly primary: Primary;
  readonly fallback: MemoryCounters;
  readonly #onEvent: (event: FailoverEvent) => void;
  readonly #retryAfterFailureMs: number;
  readonly #now: () => number;
  #degraded = false;
  #retryAt = 0;
  /** The counts kept alone on their way to the shared counters; decisions wait for them. */
  #rebuilding: Promise<void> | undefined;

  constructor(primary: Primary, fallback: MemoryCounters, options: FailoverOptions = {}) {
    this.primary = primary;
    this.fallback = fallback;
    this.#onEvent = options.onEvent ?? (() => {});
    this.#retryAfterFailureMs = options.retryAfterFailureMs ?? 1_000;
    this.#now = options.monotonicNow ?? (() => performance.now());
    primary.onStatus((status, error) => {
      if (status === 'ready') {
        this.#retryAt = 0;
        // At once, not at the next request: an idle instance's counts are owed too.
        if (this.#degraded)
          this.#rebuild().then(
            () => this.#recovered(),
            (error: unknown) => this.#failed(error),
          );
      } else {
        this.#degrade(error);
      }
    });
  }

  /** True while decisions are taken by this instance alone. */
  get degraded(): boolean {
    return this.#degraded || !this.primary.ready;
  }

  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    const [result] = await this.consumeAll([request]);
    return result!;
  }

  async consumeAll(requests: readonly ConsumeRequest[]): Promise<ConsumeResult[]> {
    if (this.primary.ready && this.#now() >= this.#retryAt) {
      try {
        if (this.#degraded) await this.#rebuild();
        const results = await this.primary.consumeAll(requests);
        this.#recovered();
        for (let i = 0; i < results.length; i++) this.fallback.observe(requests[i]!.partition, results[i]!.windows, results[i]!.banMs);
        return results;
      } catch (error) {
        this.#failed(error);
      }
    } else {
      this.#degrade(undefined);
    }
    return this.fallback.consumeAllNow(requests);
  }

  /** The shared counters' connection; the fallback decides until it is there. */
  connect(): Promise<boolean> {
    return this.primary.connect();
  }

  /** The shared counters' Redis: while it is away the fallback decides, and nothing rides (no `carried`). */
  sharedRedis(): SharedRedis | undefined {
    return this.primary.sharedRedis();
  }

  async reset(): Promise<void> {
    await this.fallback.reset();
    await this.primary.reset();
  }

  async advance(ms: number): Promise<void> {
    await this.fallback.advance(ms);
    await this.primary.advance(ms);
  }

  async close(): Promise<void> {
    await this.primary.close();
    await this.fallback.close();
  }

  /** One hand-over at a time, shared by every decision that waits for it; what fails is owed again. */
  #rebuild(): Promise<void> {
    if (this.#rebuilding) return this.#rebuilding;
    const counts = this.fallback.takeLocalCounts();
    const bans = this.fallback.localBans();
    if (counts.length === 0 && bans.length === 0) return Promise.resolve();
    const rebuilding = this.primary.addLocalCounts(counts, bans).then(
      () => {
        this.#rebuilding = undefined;
      },
      (error: unknown) => {
        this.#rebuilding = undefined;
        this.fallback.returnLocalCounts(counts);
        throw error;
      },
    );
    this.#rebuilding = rebuilding;
    return rebuilding;
  }

  #failed(error: unknown): void {
    this.#retryAt = this.#now() + this.#retryAfterFailureMs;
    this.#degrade(error as Error);
  }

  #degrade(error: Error | undefined): void {
    if (this.#degraded) return;
    this.#degraded = true;
    this.#onEvent({ type: 'fallback', error });
  }

  #recovered(): void {
    if (!this.#degraded) return;
    this.#degraded = false;
    this.#onEvent({ type: 'recovered' });
  }
}
