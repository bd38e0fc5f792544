// The in-process store: exact under concurrency because every decision runs synchronously on
// the event loop. Reads the server's clock, so moving that clock moves every window and ban.
import type { ConsumeRequest, ConsumeResult, LimiterStore, WindowUsage } from './store.ts';

export interface NowSource {
  now(): number;
}

export interface MemoryStoreOptions {
  /** How often (in clock time) idle partitions are swept away. */
  sweepIntervalMs?: number;
  /** Hard ceiling on tracked partitions; the oldest go first when it is reached. */
  maxPartitions?: number;
}

interface Counter {
  count: number;
  endsAt: number;
}

interface PartitionState {
  windows: Map<string, Counter>;
  refusals: Counter | null;
  bannedUntil: number;
}

export class MemoryStore implements LimiterStore {
  readonly kind = 'memory';
  readonly #clock: NowSource;
  readonly #sweepIntervalMs: number;
  readonly #maxPartitions: number;
  #partitions = new Map<string, PartitionState>();
  #nextSweepAt: number;

  constructor(clock: NowSource, options: MemoryStoreOptions = {}) {
    this.#clock = clock;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.#maxPartitions = options.maxPartitions ?? 100_000;
    this.#nextSweepAt = clock.now() + this.#sweepIntervalMs;
  }

  /** Partitions currently held (for tests and metrics). */
  get size(): number {
    return this.#partitions.size;
  }

  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    return this.consumeNow(request);
  }

  async consumeAll(requests: readonly ConsumeRequest[]): Promise<ConsumeResult[]> {
    return this.consumeAllNow(requests);
  }

  /** Synchronous, so nothing else runs between the partitions. */
  consumeAllNow(requests: readonly ConsumeRequest[]): ConsumeResult[] {
    const results: ConsumeResult[] = [];
    for (const request of requests) {
      const result = this.consumeNow(request);
      results.push(result);
      if (result.outcome !== 'admitted') break;
    }
    return results;
  }

  /** The synchronous core of `consume`, also used by the failover store. */
  consumeNow(request: ConsumeRequest): ConsumeResult {
    const now = this.#clock.now();
    if (now >= this.#nextSweepAt) this.sweep();
    // Created only when something must be remembered: a probe that is admitted leaves no trace.
    const existing = this.#partitions.get(request.partition);

    const usage: WindowUsage[] = request.windows.map((spec) => {
      const counter = existing?.windows.get(spec.name);
      if (!counter || counter.endsAt <= now) return { spec, used: 0, resetMs: spec.windowMs };
      return { spec, used: counter.count, resetMs: counter.endsAt - now };
    });

    if (existing && existing.bannedUntil > now) {
      return { outcome: 'banned', windows: usage, banMs: existing.bannedUntil - now };
    }

    const needed = Math.max(request.cost, 1);
    const refused = usage.some((u) => u.used + needed > u.spec.limit);
    if (refused) {
      const ban = request.ban;
      if (ban) {
        const state = existing ?? this.#create(request.partition);
        if (!state.refusals || state.refusals.endsAt <= now) state.refusals = { count: 0, endsAt: now + ban.periodMs };
        state.refusals.count += 1;
        if (state.refusals.count >= ban.threshold) {
          state.refusals = null;
          state.bannedUntil = now + ban.durationMs;
          return { outcome: 'banned', windows: usage, banMs: ban.durationMs };
        }
      }
      return { outcome: 'refused', windows: usage, banMs: 0 };
    }

    if (request.cost === 0) return { outcome: 'admitted', windows: usage, banMs: 0 };
    const state = existing ?? this.#create(request.partition);
    return {
      outcome: 'admitted',
      banMs: 0,
      windows: usage.map((u) => {
        let counter = state.windows.get(u.spec.name);
        if (!counter || counter.endsAt <= now) {
          counter = { count: 0, endsAt: now + u.spec.windowMs };
          state.windows.set(u.spec.name, counter);
        }
        counter.count += request.cost;
        return { spec: u.spec, used: counter.count, resetMs: counter.endsAt - now };
      }),
    };
  }

  /** Drop every partition whose windows, refusal count and ban have all ended. */
  sweep(): void {
    const now = this.#clock.now();
    this.#nextSweepAt = now + this.#sweepIntervalMs;
    for (const [id, state] of this.#partitions) {
      if (isIdle(state, now)) this.#partitions.delete(id);
    }
  }

  async reset(): Promise<void> {
    this.#partitions.clear();
  }

  async advance(_ms: number): Promise<void> {
    // Time here is the server's clock, which the caller has already moved.
    this.sweep();
  }

  async close(): Promise<void> {
    this.#partitions.clear();
  }

  #create(id: string): PartitionState {
    if (this.#partitions.size >= this.#maxPartitions) {
      this.sweep();
      // Map iteration is insertion order: the partition first seen longest ago makes room.
      if (this.#partitions.size >= this.#maxPartitions) {
        const oldest = this.#partitions.keys().next();
        if (!oldest.done) this.#partitions.delete(oldest.value);
      }
    }
    const state: PartitionState = { windows: new Map(), refusals: null, bannedUntil: 0 };
    this.#partitions.set(id, state);
    return state;
  }
}

function isIdle(state: PartitionState, now: number): boolean {
  if (state.bannedUntil > now) return false;
  if (state.refusals && state.refusals.endsAt > now) return false;
  for (const counter of state.windows.values()) if (counter.endsAt > now) return false;
  return true;
}
