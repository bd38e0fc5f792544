// The one place that picks a limiter store: the memory store when this instance counts alone, the
// Redis store behind a memory fallback when instances share their counts. Everything else holds
// a `LimiterStore` and asks the contract (store.ts), never which class it got.
import type { Clock } from '../clock.ts';
import type { ResolvedRateLimitOptions } from '../options.ts';
import { FailoverStore } from './failover-store.ts';
import { MemoryStore } from './memory-store.ts';
import { RedisStore } from './redis-store.ts';
import type { LimiterStore } from './store.ts';

/** What a store has to say about its shared connection; tagged rate-limit and redis in the server's log. */
export type StoreLog = (level: 'warn' | 'info', message: string) => void;

export interface OpenStoreOptions {
  rateLimit: ResolvedRateLimitOptions;
  /** Share the counts through this Redis; without it, this instance counts alone in memory. */
  redisUrl?: string | undefined;
  clock: Clock;
  log: StoreLog;
}

/**
 * A store on the Redis the options name, not connected yet (`connect()`), with no fallback: for an
 * instance that limits nothing but still moves the pets' version on (server.ts).
 */
export function redisStore(rateLimit: ResolvedRateLimitOptions, url: string): LimiterStore {
  return onRedis(rateLimit, url);
}

function onRedis(rateLimit: ResolvedRateLimitOptions, url: string): RedisStore {
  return new RedisStore({
    url,
    prefix: rateLimit.redisPrefix,
    commandTimeoutMs: rateLimit.redisCommandTimeoutMs,
    connectTimeoutMs: rateLimit.redisConnectTimeoutMs,
  });
}

export function openLimiterStore({ rateLimit, redisUrl, clock, log }: OpenStoreOptions): LimiterStore {
  if (!redisUrl) return new MemoryStore(clock);
  return new FailoverStore(onRedis(rateLimit, redisUrl), new MemoryStore(clock), {
    onEvent(event) {
      if (event.type === 'fallback') {
        log('warn', `Redis unavailable (${event.error?.message ?? 'not connected'}): limiting per instance in memory until it returns`);
      } else {
        log('info', 'Redis is back: limits are shared again');
      }
    },
  });
}
