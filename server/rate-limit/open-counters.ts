// The one place that picks the limiter's counters: in memory when this instance counts alone, in
// Redis behind a memory fallback when instances share their counts. Everything else holds
// `Counters` and asks the contract (counters.ts), never which class it got.
import type { Clock } from '../clock.ts';
import type { ResolvedRateLimitOptions } from '../options.ts';
import type { Counters } from './counters.ts';
import { FailoverCounters } from './failover-counters.ts';
import { MemoryCounters } from './memory-counters.ts';
import { RedisCounters } from './redis-counters.ts';

/** What the counters have to say about their shared connection; tagged rate-limit and redis in the server's log. */
export type CountersLog = (level: 'warn' | 'info', message: string) => void;

export interface OpenCountersOptions {
  rateLimit: ResolvedRateLimitOptions;
  /** Share the counts through this Redis; without it, this instance counts alone in memory. */
  redisUrl?: string | undefined;
  clock: Clock;
  log: CountersLog;
}

/**
 * Counters on the Redis the options name, not connected yet (`connect()`), with no fallback: for an
 * instance that limits nothing but still moves the pets' version on through that Redis (server.ts).
 */
export function redisCounters(rateLimit: ResolvedRateLimitOptions, url: string): Counters {
  return onRedis(rateLimit, url);
}

function onRedis(rateLimit: ResolvedRateLimitOptions, url: string): RedisCounters {
  return new RedisCounters({
    url,
    prefix: rateLimit.redisPrefix,
    commandTimeoutMs: rateLimit.redisCommandTimeoutMs,
    connectTimeoutMs: rateLimit.redisConnectTimeoutMs,
  });
}

export function openCounters({ rateLimit, redisUrl, clock, log }: OpenCountersOptions): Counters {
  if (!redisUrl) return new MemoryCounters(clock);
  return new FailoverCounters(onRedis(rateLimit, redisUrl), new MemoryCounters(clock), {
    onEvent(event) {
      if (event.type === 'fallback') {
        log('warn', `Redis unavailable (${event.error?.message ?? 'not connected'}): limiting per instance in memory until it returns`);
      } else {
        log('info', 'Redis is back: limits are shared again');
      }
    },
  });
}
