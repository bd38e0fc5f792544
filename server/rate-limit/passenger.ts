// A passenger: someone else's read that rides on the shared counters' round trip. Every request
// already makes one script call to Redis before its handler runs; state that other instances move
// on, and that a request must see as of that moment, is read in the same call for free. The
// counters know nothing of what a passenger reads (the pet caches' version is the one there is,
// server/pets/shared-version.ts): they run its Lua first and hand its numbers to every decision of
// that call, and the limiter notes them on the request.
import type { Request } from '@hapi/hapi';

export interface Passenger {
  /** Lua defining `local function passenger(key)`, which returns a table of integers. */
  readonly lua: string;
  /** The key `passenger` is called with. */
  readonly key: string;
}

/** A script of a passenger's own (its writes) on the counters' connection: one round trip per call. */
export type RedisScript = (keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<unknown>;

/** What shared counters offer a passenger: their connection, and a seat on every decision's call. */
export interface SharedRedis {
  /** Prepended to every key of the deployment; a passenger's keys go under it too, so an admin reset reaches them. */
  readonly prefix: string;
  /** From now on every decision's call runs `passenger` first; its numbers come back as `carried`. One passenger per counters. */
  carry(passenger: Passenger): void;
  script(lua: string): RedisScript;
}

declare module '@hapi/hapi' {
  interface PluginsStates {
    /** What the passenger read on this request's decision, before its handler ran. */
    'rate-limit-carried'?: readonly number[];
  }
}

/** Undefined when no decision of this request asked Redis (limiting off, exempt, or Redis away). */
export const carriedOf = (request: Request): readonly number[] | undefined => request.plugins['rate-limit-carried'];

export function noteCarried(request: Request, carried: readonly number[] | undefined): void {
  if (carried) request.plugins['rate-limit-carried'] = carried;
}
