// The one contract the limiter's window counters implement (in memory, in Redis, or Redis behind a
// memory fallback). Counters decide atomically and know nothing of HTTP. Time inside them is
// relative (milliseconds until a window or ban ends), so counters shared by several instances never
// compare their clocks. ("Store" is the pet store's word, server/store/.)
import { KitError } from '../../lib/errors.ts';
import type { SharedRedis } from './passenger.ts';
import type { BanSpec, WindowSpec } from './policy.ts';

export interface ConsumeRequest {
  /** Partition id, e.g. `key:<hash>` or `ip:203.0.113.7`. */
  readonly partition: string;
  readonly windows: readonly WindowSpec[];
  readonly ban: BanSpec | null;
  /**
   * 1 counts the request. 0 only asks whether one more request would be admitted, without
   * counting it; a "no" still counts as a refusal towards the ban.
   */
  readonly cost: 0 | 1;
}

export interface WindowUsage {
  readonly spec: WindowSpec;
  /** Requests counted in the current window, this one included when it was admitted. */
  readonly used: number;
  /** Milliseconds until this window ends; a window not yet started reports its full length. */
  readonly resetMs: number;
}

export type Outcome = 'admitted' | 'refused' | 'banned';

export interface ConsumeResult {
  readonly outcome: Outcome;
  readonly windows: readonly WindowUsage[];
  /** Milliseconds left on the ban when `outcome` is `banned`, else 0. */
  readonly banMs: number;
  /** What a passenger read in the same round trip (passenger.ts), when one rides; the same array for every result of that trip. */
  readonly carried?: readonly number[] | undefined;
}

/** An answer now, or a promise of one: see `Counters.consumeAll`. */
export type Maybe<T> = T | Promise<T>;

export interface Counters {
  /** Atomic: a refused or banned request changes no window counter. */
  consume(request: ConsumeRequest): Promise<ConsumeResult>;
  /**
   * A request's partitions (an address probe, then its key) in order, as one atomic step that stops at
   * the first not admitting; one result per partition decided. In memory the answer is synchronous: a
   * hook that needs no promise costs hapi less (npm run bench).
   */
  consumeAll(requests: readonly ConsumeRequest[]): Maybe<ConsumeResult[]>;
  /**
   * Resolves true once the counters can decide, false when they cannot yet (shared counters that
   * are not there: they keep trying, and decisions fall back meanwhile). In-process counters are ready at once.
   */
  connect(): Promise<boolean>;
  /**
   * The Redis these counters are shared through, for a read that must ride on their round trip
   * (passenger.ts). Undefined for counters no other instance reads: there is no one to tell.
   */
  sharedRedis(): SharedRedis | undefined;
  /** Forget every window, refusal count and ban (admin reset). */
  reset(): Promise<void>;
  /**
   * Move the counters' own time forward by `ms` (admin clock). Counters that read the server's
   * clock already moved with it and do nothing here.
   */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Thrown (or rejected with) when shared counters cannot answer; the failover counters catch it. */
export class CountersUnavailableError extends KitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('counters_unavailable', message, options);
  }
}
