// The in-process counters: exact because every decision runs synchronously on the event loop; they
// read the server's clock, so moving it moves every window and ban. Memory stays bounded under a flood
// (three capped lists: keys, address blocks, other addresses; server/README.md, Decisions), and a
// sweep examines at most `sweepBudget` entries per call, so none stalls a request.
import { banLeft, countRefusal, type BanState } from './ban.ts';
import type { ConsumeRequest, ConsumeResult, Counters, WindowUsage } from './counters.ts';
import { PartitionList, type ListedPartition } from './partition-list.ts';

export interface NowSource {
  now(): number;
}

export interface MemoryCountersOptions {
  /** How often (in clock time) a pass over the partitions starts to drop idle partitions. */
  sweepIntervalMs?: number;
  /** Ceiling on partitions of requests without a key; the one whose window started longest ago makes room. */
  maxPartitions?: number;
  /** Ceiling on address blocks kept apart from the address churn; past it a new block is kept with the other addresses. */
  maxBlocks?: number;
  /** Ceiling on key partitions; only another key's partition takes a key's place. */
  maxKeyPartitions?: number;
  /** Entries a sweep pass examines per decision, at most. */
  sweepBudget?: number;
}

/** Work done by sweeps and evictions, counted in entries: what the cost tests and metrics read. */
export interface MemoryCountersStats {
  /** Entries looked at by sweep passes. */
  examined: number;
  /** Live partitions dropped to stay under a ceiling. */
  evicted: number;
  /** Idle partitions dropped by sweeps. */
  reclaimed: number;
}

/** One window's counter. A partition has one or two, so an array beats a Map in memory and time. */
interface Counter {
  readonly name: string;
  count: number;
  endsAt: number;
  /** Of `count`, what this instance admitted itself since the shared counters last told it theirs (`observe`). */
  local: number;
}

/** A ban this instance knows of (the shared counters', or its own while they were away), for them to hold again. */
export interface LocalBan {
  readonly partition: string;
  /** Milliseconds left of the ban. */
  readonly remainingMs: number;
}

/**
 * A window's count as this instance knows it, for shared counters to rebuild theirs from after an
 * outage (failover-counters.ts): `seen` is what they last said, `local` what was admitted here since.
 */
export interface LocalCount {
  readonly partition: string;
  readonly window: string;
  readonly seen: number;
  readonly local: number;
  /** Milliseconds left in this instance's window. */
  readonly remainingMs: number;
  /** When that window ends on the server's clock: a count given back goes only to the same window. */
  readonly endsAt: number;
}

interface PartitionState extends ListedPartition, BanState {
  windows: Counter[];
}

type Partitions = PartitionList<PartitionState>;

const isKeyPartition = (id: string) => id.startsWith('key:');

export class MemoryCounters implements Counters {
  readonly #clock: NowSource;
  readonly #sweepIntervalMs: number;
  readonly #maxPartitions: number;
  readonly #maxBlocks: number;
  readonly #maxKeyPartitions: number;
  readonly #sweepBudget: number;
  readonly #keys: Partitions = new PartitionList();
  readonly #blocks: Partitions = new PartitionList();
  readonly #addresses: Partitions = new PartitionList();
  readonly #stats: MemoryCountersStats = { examined: 0, evicted: 0, reclaimed: 0 };
  #nextSweepAt: number;

  constructor(clock: NowSource, options: MemoryCountersOptions = {}) {
    this.#clock = clock;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.#maxPartitions = options.maxPartitions ?? 100_000;
    this.#maxBlocks = options.maxBlocks ?? 100_000;
    this.#maxKeyPartitions = options.maxKeyPartitions ?? 100_000;
    this.#sweepBudget = options.sweepBudget ?? 1_024;
    this.#nextSweepAt = clock.now() + this.#sweepIntervalMs;
  }

  /** Partitions currently held (for tests and metrics). */
  get size(): number {
    return this.#keys.size + this.#blocks.size + this.#addresses.size;
  }

  /** Address blocks currently kept apart from the address churn. */
  get blocks(): number {
    return this.#blocks.size;
  }

  get stats(): Readonly<MemoryCountersStats> {
    return { ...this.#stats };
  }

  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    return this.consumeNow(request);
  }

  consumeAll(requests: readonly ConsumeRequest[]): ConsumeResult[] {
    return this.consumeAllNow(requests);
  }

  async connect(): Promise<boolean> {
    return true;
  }

  /** No other instance reads these counters: nothing rides on them. */
  sharedRedis(): undefined {
    return undefined;
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

  /** The synchronous core of `consume`, also used by the failover counters. */
  consumeNow(request: ConsumeRequest): ConsumeResult {
    const now = this.#clock.now();
    this.#sweepStep(now);
    // Created only when something must be remembered: a probe that is admitted leaves no trace.
    const existing = this.#find(request.partition, now);

    const usage: WindowUsage[] = request.windows.map((spec) => {
      const counter = existing?.windows.find((c) => c.name === spec.name);
      if (!counter || counter.endsAt <= now) return { spec, used: 0, resetMs: spec.windowMs };
      return { spec, used: counter.count, resetMs: counter.endsAt - now };
    });

    const banMs = existing ? banLeft(existing, now) : 0;
    if (banMs > 0) return { outcome: 'banned', windows: usage, banMs };

    const needed = Math.max(request.cost, 1);
    const refused = usage.some((u) => u.used + needed > u.spec.limit);
    if (refused) {
      const ban = request.ban;
      if (ban) {
        const state = existing ?? this.#create(request.partition);
        if (countRefusal(state, ban, now)) {
          this.#block(state);
          return { outcome: 'banned', windows: usage, banMs: ban.durationMs };
        }
      }
      return { outcome: 'refused', windows: usage, banMs: 0 };
    }

    if (request.cost === 0) return { outcome: 'admitted', windows: usage, banMs: 0 };
    const state = existing ?? this.#create(request.partition);
    let restarted = false;
    const windows = usage.map((u) => {
      let counter = state.windows.find((c) => c.name === u.spec.name);
      if (!counter) {
        counter = { name: u.spec.name, count: 0, endsAt: now + u.spec.windowMs, local: 0 };
        state.windows.push(counter);
        restarted = true;
      } else if (counter.endsAt <= now) {
        counter.count = 0;
        counter.local = 0;
        counter.endsAt = now + u.spec.windowMs;
        restarted = true;
      }
      counter.count += request.cost;
      counter.local += request.cost;
      return { spec: u.spec, used: counter.count, resetMs: counter.endsAt - now };
    });
    if (restarted) this.#touch(state);
    return { outcome: 'admitted', banMs: 0, windows };
  }

  /**
   * What the shared counters said of a partition's windows: these counters take it as theirs, so that
   * while the shared ones are away this instance goes on from the shared count, not from zero.
   */
  observe(partition: string, windows: readonly WindowUsage[], banMs = 0): void {
    const now = this.#clock.now();
    let state = this.#find(partition, now);
    if (!state) {
      if (banMs <= 0 && !windows.some((w) => w.used > 0)) return;
      state = this.#create(partition);
    }
    if (banMs > 0 && state.bannedUntil < now + banMs) {
      state.bannedUntil = now + banMs;
      this.#block(state);
    }
    let restarted = false;
    for (const { spec, used, resetMs } of windows) {
      let counter = state.windows.find((c) => c.name === spec.name);
      if (!counter) {
        if (used === 0) continue;
        counter = { name: spec.name, count: 0, endsAt: 0, local: 0 };
        state.windows.push(counter);
      }
      if (counter.endsAt <= now) restarted = true;
      // A window the shared counters have not started is over here too: the next request starts it.
      counter.count = used;
      counter.endsAt = used > 0 ? now + resetMs : now;
      counter.local = 0;
    }
    if (restarted) this.#touch(state);
  }

  /**
   * Every open window's count, `local` then set to 0 (handed over): what shared counters that were away,
   * or lost their data, need to rebuild theirs. Bounded by the partition caps.
   */
  takeLocalCounts(): LocalCount[] {
    const now = this.#clock.now();
    const counts: LocalCount[] = [];
    for (const partitions of this.#lists()) {
      for (const state of partitions) {
        for (const counter of state.windows) {
          if (counter.endsAt <= now || counter.count === 0) continue;
          const { name: window, count, local, endsAt } = counter;
          counts.push({ partition: state.id, window, seen: count - local, local, remainingMs: endsAt - now, endsAt });
          counter.local = 0;
        }
      }
    }
    return counts;
  }

  /** Every ban still running, whoever decided it: what shared counters that lost their data need again. */
  localBans(): LocalBan[] {
    const now = this.#clock.now();
    const bans: LocalBan[] = [];
    for (const partitions of this.#lists()) {
      for (const state of partitions) if (state.bannedUntil > now) bans.push({ partition: state.id, remainingMs: state.bannedUntil - now });
    }
    return bans;
  }

  /** Counts taken that the shared counters did not get: owed again, to windows still the same. */
  returnLocalCounts(counts: readonly LocalCount[]): void {
    const now = this.#clock.now();
    for (const { partition, window, local, endsAt } of counts) {
      if (local === 0) continue;
      const counter = this.#find(partition, now)?.windows.find((c) => c.name === window);
      if (counter && counter.endsAt === endsAt) counter.local += local;
    }
  }

  /** Drop every partition whose windows, refusal count and ban have all ended (admin clock, tests). */
  sweep(): void {
    const now = this.#clock.now();
    this.#nextSweepAt = now + this.#sweepIntervalMs;
    for (const partitions of this.#lists()) {
      for (const state of partitions) {
        this.#stats.examined += 1;
        if (!isIdle(state, now)) continue;
        partitions.remove(state);
        this.#stats.reclaimed += 1;
      }
      partitions.endPass(); // this sweep covered everything a pass under way had left
    }
  }

  async reset(): Promise<void> {
    this.#clear();
  }

  async advance(_ms: number): Promise<void> {
    // Time here is the server's clock, which the caller has already moved.
    this.sweep();
  }

  async close(): Promise<void> {
    this.#clear();
  }

  #clear(): void {
    for (const partitions of this.#lists()) partitions.clear();
  }

  #lists(): Partitions[] {
    return [this.#addresses, this.#blocks, this.#keys];
  }

  #find(id: string, now: number): PartitionState | undefined {
    if (isKeyPartition(id)) return this.#keys.get(id);
    const blocked = this.#blocks.get(id);
    if (!blocked) return this.#addresses.get(id);
    if (blocked.bannedUntil > now) return blocked;
    // The block is over: what is left of the partition goes back among the addresses.
    this.#blocks.remove(blocked);
    if (isIdle(blocked, now)) return undefined;
    this.#insert(this.#addresses, this.#maxPartitions, blocked, now);
    return blocked;
  }

  #create(id: string): PartitionState {
    const state: PartitionState = { id, prev: null, next: null, windows: [], refusals: null, bannedUntil: 0 };
    const now = this.#clock.now();
    if (isKeyPartition(id)) this.#insert(this.#keys, this.#maxKeyPartitions, state, now);
    else this.#insert(this.#addresses, this.#maxPartitions, state, now);
    return state;
  }

  /** A partition of requests without a key was just banned: keep it where address churn cannot reach it. */
  #block(state: PartitionState): void {
    if (isKeyPartition(state.id) || this.#blocks.get(state.id) === state) return;
    // A full block list is a flood of blocks that already paid for each one: the new block then
    // stays among the addresses, unprotected, rather than lift an older block early.
    if (this.#blocks.size >= this.#maxBlocks) return;
    this.#addresses.remove(state);
    this.#blocks.append(state);
  }

  /** A window started again: the partition moves to the end, keeping its list ordered by window start. */
  #touch(state: PartitionState): void {
    (isKeyPartition(state.id) ? this.#keys : this.#addresses).moveToEnd(state);
  }

  /** When full, the first entry (oldest window start) makes room, in O(1). */
  #insert(partitions: Partitions, max: number, state: PartitionState, now: number): void {
    const first = partitions.first();
    if (partitions.size >= max && first) {
      partitions.remove(first);
      if (isIdle(first, now)) this.#stats.reclaimed += 1;
      else this.#stats.evicted += 1;
    }
    partitions.append(state);
  }

  /** Starts a pass when one is due, then lets the pass examine at most `sweepBudget` entries. */
  #sweepStep(now: number): void {
    if (now >= this.#nextSweepAt) {
      this.#nextSweepAt = now + this.#sweepIntervalMs;
      for (const partitions of this.#lists()) partitions.startPass();
    }
    let budget = this.#sweepBudget;
    for (const partitions of this.#lists()) {
      if (budget === 0) return;
      if (!partitions.passing) continue;
      const { examined, removed } = partitions.passStep(budget, (state) => isIdle(state, now));
      budget -= examined;
      this.#stats.examined += examined;
      this.#stats.reclaimed += removed;
    }
  }
}

function isIdle(state: PartitionState, now: number): boolean {
  if (state.bannedUntil > now) return false;
  if (state.refusals && state.refusals.endsAt > now) return false;
  for (const counter of state.windows) if (counter.endsAt > now) return false;
  return true;
}
