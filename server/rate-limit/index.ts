export * from './policy.ts';
export * from './store.ts';
export * from './decision.ts';
export { MemoryStore, type MemoryStoreOptions, type NowSource } from './memory-store.ts';
export { RedisStore, type RedisStoreOptions, type RedisStatus } from './redis-store.ts';
export { FailoverStore, type FailoverEvent, type FailoverOptions, type SharedStore } from './failover-store.ts';
export { clientAddress, FORWARDING_HEADERS, ipPartitionId, isLoopback, trustedRanges, type ForwardingHeader, type TrustProxy } from './client-ip.ts';
export { createLimiter, refusal, RATE_LIMIT_PLUGIN, type Limiter, type LimiterOptions, type Refusal } from './limiter.ts';
export { openLimiterStore, redisStore, type OpenStoreOptions, type StoreLog } from './open-store.ts';
