// A passenger: someone else's read riding on the script call every request makes to Redis before its
// handler, so state other instances move on is read as of that moment for free. The counters run its
// Lua first and know nothing of it (the pet caches' version, server/pets/shared-version.ts); the
// limiter notes its numbers on the request.
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
