// Fail open: while Redis cannot answer, each instance limits on its own with memory counters,
// so the API keeps serving (each instance then admits up to the full limit on its own). When
// Redis is back, decisions go back to it.
import type { ConsumeRequest, ConsumeResult, Counters } from './counters.ts';
import type { MemoryCounters } from './memory-counters.ts';
import type { SharedRedis } from './passenger.ts';
import type { RedisStatus } from './redis-counters.ts';

export type FailoverEvent = { type: 'fallback'; error: Error | undefined } | { type: 'recovered' };

/** What the failover counters need of their shared counters (the Redis counters, or a fake in tests). */
export interface SharedCounters extends Counters {
  readonly ready: boolean;
  onStatus(listener: (status: RedisStatus, error?: Error) => void): void;
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

  constructor(primary: Primary, fallback: MemoryCounters, options: FailoverOptions = {}) {
    this.primary = primary;
    this.fallback = fallback;
    this.#onEvent = options.onEvent ?? (() => {});
    this.#retryAfterFailureMs = options.retryAfterFailureMs ?? 1_000;
    this.#now = options.monotonicNow ?? (() => performance.now());
    primary.onStatus((status, error) => {
      if (status === 'ready') {
        this.#retryAt = 0;
        this.#recovered();
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
        const results = await this.primary.consumeAll(requests);
        this.#recovered();
        return results;
      } catch (error) {
        this.#retryAt = this.#now() + this.#retryAfterFailureMs;
        this.#degrade(error as Error);
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
