import Joi from 'joi';
import type { Clock } from './clock.ts';
import { apiKeyRecordsSchema, type ApiKeyRecord } from './keys.ts';
import { petsSchema } from './fixtures.ts';
import type { StorageOptions } from './store/pet-store.ts';
import { rateLimitOptionsSchema, type RateLimitOptions } from './plugins/rate-limit.ts';
import type { Pet } from './types.ts';

export interface LoggerOptions {
  /** pino level; default 'info'. */
  level?: string;
  /** Where the JSON lines go; default stdout. */
  stream?: NodeJS.WritableStream;
}

export interface ServerOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default 3000. */
  port?: number;
  /** Where pets are kept. Default: in memory. */
  storage?: StorageOptions;
  /** One JSON log line per request (pino). Default false (the CLI turns it on). */
  logger?: boolean | LoggerOptions;
  /** Time source for everything time-dependent. Default: the system clock, movable by the admin API. */
  clock?: Clock;
  /** The API keys. Default: fixtures/api-keys.json. */
  apiKeys?: ApiKeyRecord[];
  /** The pets a new store starts with. Default: fixtures/pets.json. */
  seedPets?: Pet[];
  /** CORS for browser clients (any origin; rate-limit, Link and Location headers exposed). Default true. */
  cors?: boolean;
  /** Largest accepted request body in bytes; larger ones get 413. Default 16384. */
  maxBodyBytes?: number;
  /** Plan limits, bans and the per-address limit; see the README's "Rate limits, bans and deprecation". Default: on. */
  rateLimit?: RateLimitOptions;
  /** Share rate-limit state through this Redis (redis://...). Default: none, per-instance memory. */
  redisUrl?: string;
  /** Enables the admin API under /__admin for this bearer token. Default: none (admin API off). */
  adminToken?: string;
}

export const serverOptionsSchema = Joi.object<ServerOptions>({
  host: Joi.string().default('127.0.0.1'),
  port: Joi.number().integer().min(0).max(65535).default(3000),
  storage: Joi.alternatives()
    .try(
      Joi.object({ type: Joi.string().valid('memory').required() }),
      Joi.object({ type: Joi.string().valid('file').required(), path: Joi.string().min(1).required() }),
    )
    .default({ type: 'memory' }),
  logger: Joi.alternatives()
    .try(Joi.boolean(), Joi.object({ level: Joi.string(), stream: Joi.object() }))
    .default(false),
  clock: Joi.object({ now: Joi.function().required(), advance: Joi.function() }).unknown(true),
  apiKeys: apiKeyRecordsSchema,
  seedPets: petsSchema,
  cors: Joi.boolean().default(true),
  maxBodyBytes: Joi.number()
    .integer()
    .min(64)
    .max(10 * 1024 * 1024)
    .default(16 * 1024),
  rateLimit: rateLimitOptionsSchema,
  redisUrl: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  adminToken: Joi.string().min(8),
});

export type ResolvedOptions = ServerOptions & Required<Pick<ServerOptions, 'host' | 'port' | 'storage' | 'logger' | 'cors' | 'maxBodyBytes' | 'rateLimit'>>;

export function resolveOptions(options: ServerOptions): ResolvedOptions {
  // Instances (clock, streams) must pass through untouched, not be cloned by joi.
  return Joi.attempt(options, serverOptionsSchema, 'Invalid server options:', { nonEnumerables: false }) as ResolvedOptions;
}
