// The one contract both limiter stores implement. A store owns the counters and decides
// atomically; it knows nothing of HTTP. Time inside a store is relative (milliseconds until a
// window or ban ends), so a store shared by several instances never compares their clocks.
import { KitError } from '../../lib/errors.ts';
import type { BanSpec, WindowSpec } from './policy.ts';
import type { PetsVersion, PetsVersionSource } from '../store/pet-cache.ts';

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
  /** The pets' version read in the same round trip, when the store shares it (server/store/pet-cache.ts). */
  readonly petsVersion?: PetsVersion | undefined;
}

/** An answer now, or a promise of one: see `LimiterStore.consumeAll`. */
export type Maybe<T> = T | Promise<T>;

export interface LimiterStore {
  /** Atomic: a refused or banned request changes no window counter. */
  consume(request: ConsumeRequest): Promise<ConsumeResult>;
  /**
   * Several partitions for one request (an address probe, then its key), decided in order as one
   * atomic step that stops at the first one not admitting. One result per partition decided.
   * A store that can answer synchronously does (the memory store): a hook that needs no promise
   * costs hapi less (npm run bench).
   */
  consumeAll(requests: readonly ConsumeRequest[]): Maybe<ConsumeResult[]>;
  /**
   * Resolves true once the store can decide, false when it cannot yet (a shared store that is not
   * there: it keeps trying, and decisions fall back meanwhile). A store in this process is ready at once.
   */
  connect(): Promise<boolean>;
  /**
   * From now on every decision also reads the pets' version named `name`, and its results carry it
   * (server/store/pet-cache.ts); the returned source moves that version on. Undefined for a store
   * that no other instance shares: there is no one to tell.
   */
  sharePetsVersion(name: string): PetsVersionSource | undefined;
  /** Forget every window, refusal count and ban (admin reset). */
  reset(): Promise<void>;
  /**
   * Move the store's own time forward by `ms` (admin clock). Stores that read the server's
   * clock already moved with it and do nothing here.
   */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Thrown (or rejected with) when a store cannot answer; the failover store catches it. */
export class StoreUnavailableError extends KitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('store_unavailable', message, options);
  }
}
