// Every option of the reference server, its schema and its default, in one module: createServer
// validates the options once, where they enter, and every plugin trusts the validated object.
// What can only be checked against the contract (plans of the keys, seed pets) is checked once
// the contract is read, in keys.ts and fixtures.ts.
import { isIP } from 'node:net';
import Joi from 'joi';
import { UsageError } from '../lib/errors.ts';
import { DEFAULT_SPEC_PATH } from '../lib/openapi.ts';
import type { Clock } from './clock.ts';
import type { ApiKeyRecord } from './keys.ts';
import { FORWARDING_HEADERS, type ForwardingHeader } from './rate-limit/client-ip.ts';
import type { StorageOptions } from './store/pet-store.ts';
import type { Pet } from './types.ts';

export interface LoggerOptions {
  /** pino level; default 'info'. */
  level?: string;
  /** Where the JSON lines go; default stdout. */
  stream?: NodeJS.WritableStream;
}

export interface BanOptions {
  /** Refused requests that start a ban; 0 never bans. */
  threshold: number;
  /** ...counted within this many seconds. */
  periodSeconds: number;
  /** How long the ban lasts. */
  durationSeconds: number;
}

export interface RateLimitOptions {
  /** false turns every limit and rate-limit header off. */
  enabled?: boolean;
  /** Temporary ban of an API key after repeated refused requests. */
  ban?: Partial<BanOptions>;
  /**
   * Requests without a valid API key, counted per client address (IPv6: per /64). Loopback clients
   * (this machine) are never blocked and their valid keys never refused for it, unless `banLoopback`.
   */
  ip?: { perMinute?: number; ban?: Partial<BanOptions>; banLoopback?: boolean };
  /** Prefix of every Redis key (with redisUrl); instances that should count together share it. */
  redisPrefix?: string;
  /** A Redis command slower than this falls back to the instance's own memory limiter. */
  redisCommandTimeoutMs?: number;
  /** How long start() waits for Redis before serving with the memory fallback. */
  redisConnectTimeoutMs?: number;
}

export interface ServerOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default 3000. */
  port?: number;
  /** The OpenAPI description the server enforces. Default: the kit's spec/openapi.yaml. */
  specPath?: string;
  /** Where pets are kept: memory, a JSON file, or PostgreSQL (shared by many instances). Default: in memory. */
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
  /** Longest time to receive a request's headers; then 408 and the connection is closed. Default 10000. */
  headersTimeoutMs?: number;
  /** Longest time to receive a whole request, body included; then 408 and close. Default 10000. */
  requestTimeoutMs?: number;
  /**
   * Longest a store read or write may take before the request is answered 503 storage_unavailable
   * (PostgreSQL: its statement_timeout and the wait for a connection), and /healthz's bound. Default 5000.
   */
  storageTimeoutMs?: number;
  /** Plan limits, bans and the per-address limit. Default: on. */
  rateLimit?: RateLimitOptions;
  /** Share rate-limit state through this Redis (redis://...). Default: none, per-instance memory. */
  redisUrl?: string;
  /** Enables the admin API under /__admin for this bearer token. Default: none (admin API off). */
  adminToken?: string;
  /**
   * Behind reverse proxies: how many there are, or their addresses and CIDR ranges, so that the
   * client's address is read from Forwarded / X-Forwarded-For as far as they wrote it. Default
   * false: the socket peer is the client.
   */
  trustProxy?: false | number | string[];
  /**
   * The header the trusted proxies write the client's address in: 'x-forwarded-for' (nginx's
   * `$proxy_add_x_forwarded_for`, most load balancers) or 'forwarded' (RFC 7239). The other header
   * is ignored, since a proxy passes it through as the client wrote it. Default 'x-forwarded-for'.
   */
  trustProxyHeader?: ForwardingHeader;
  /** Holds every API answer this long, like json-server's --delay; the admin API is not held. Default 0. */
  delayMs?: number;
  /** Fault injection for client testing (`Prefer: code=<documented status>, example=<name>, delay=<ms>`, /__admin/faults). Default false. */
  faults?: boolean;
}

/** An IP address or CIDR range, as net.BlockList takes it. */
function cidr(value: string): string {
  const [address = '', bits, extra] = value.split('/');
  const family = isIP(address);
  const max = family === 6 ? 128 : 32;
  if (!family || extra !== undefined || (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > max)))
    throw new Error(`"${value}" is not an IP address or CIDR range`);
  return value;
}

/** The longest ban: a year. A longer one is a mistake, and would push every date it feeds out of range. */
export const MAX_BAN_SECONDS = 365 * 86_400;

/** The longest an answer is held: by --delay, or by a request's `Prefer: delay=` with --faults. */
export const MAX_DELAY_MS = 60_000;

const banSchema = (threshold: number, periodSeconds: number, durationSeconds: number) =>
  Joi.object({
    threshold: Joi.number().integer().min(0).default(threshold),
    periodSeconds: Joi.number().integer().min(1).max(MAX_BAN_SECONDS).default(periodSeconds),
    durationSeconds: Joi.number().integer().min(1).max(MAX_BAN_SECONDS).default(durationSeconds),
  }).default();

const rateLimitSchema = Joi.object({
  enabled: Joi.boolean().default(true),
  ban: banSchema(20, 60, 600),
  ip: Joi.object({
    perMinute: Joi.number().integer().min(1).default(30),
    ban: banSchema(20, 60, 600),
    banLoopback: Joi.boolean().default(false),
  }).default(),
  redisPrefix: Joi.string().min(1).default('adoption-store:rate-limit:'),
  redisCommandTimeoutMs: Joi.number().integer().min(1).default(2_000),
  redisConnectTimeoutMs: Joi.number().integer().min(1).default(2_000),
}).default();

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const DEFAULT_LOG_LEVEL = 'info';

const serverOptionsSchema = Joi.object<ServerOptions>({
  host: Joi.string().default('127.0.0.1'),
  port: Joi.number().integer().min(0).max(65535).default(3000),
  specPath: Joi.string().min(1).default(DEFAULT_SPEC_PATH),
  storage: Joi.alternatives()
    .try(
      Joi.object({ type: Joi.string().valid('memory').required() }),
      Joi.object({ type: Joi.string().valid('file').required(), path: Joi.string().min(1).required() }),
      Joi.object({
        type: Joi.string().valid('postgres').required(),
        url: Joi.string()
          .uri({ scheme: ['postgres', 'postgresql'] })
          .required(),
        schema: Joi.string().min(1).max(63),
      }),
    )
    .default({ type: 'memory' }),
  logger: Joi.alternatives()
    .try(
      Joi.boolean(),
      Joi.object({
        level: Joi.string()
          .valid(...LOG_LEVELS)
          .default(DEFAULT_LOG_LEVEL),
        stream: Joi.object(),
      }),
    )
    .default(false),
  clock: Joi.object({ now: Joi.function().required(), advance: Joi.function() }).unknown(true),
  // Checked against the contract's plans and schemas once it is read (keys.ts, fixtures.ts).
  apiKeys: Joi.array().min(1),
  seedPets: Joi.array(),
  cors: Joi.boolean().default(true),
  maxBodyBytes: Joi.number()
    .integer()
    .min(64)
    .max(10 * 1024 * 1024)
    .default(16 * 1024),
  headersTimeoutMs: Joi.number().integer().min(100).default(10_000),
  requestTimeoutMs: Joi.number().integer().min(Joi.ref('headersTimeoutMs')).default(10_000),
  storageTimeoutMs: Joi.number().integer().min(100).max(600_000).default(5_000),
  rateLimit: rateLimitSchema,
  redisUrl: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  adminToken: Joi.string().min(8),
  trustProxy: Joi.alternatives()
    .try(Joi.boolean().valid(false), Joi.number().integer().min(1).max(20), Joi.array().items(Joi.string().custom(cidr, 'IP address or CIDR range')).min(1))
    .default(false),
  trustProxyHeader: Joi.string()
    .valid(...FORWARDING_HEADERS)
    .default('x-forwarded-for'),
  faults: Joi.boolean().default(false),
  delayMs: Joi.number().integer().min(0).max(MAX_DELAY_MS).default(0),
});

export type ResolvedRateLimitOptions = Required<Omit<RateLimitOptions, 'ban' | 'ip'>> & {
  ban: BanOptions;
  ip: { perMinute: number; ban: BanOptions; banLoopback: boolean };
};

export type ResolvedOptions = Omit<ServerOptions, 'rateLimit' | 'logger'> &
  Required<
    Pick<
      ServerOptions,
      | 'host'
      | 'port'
      | 'specPath'
      | 'storage'
      | 'cors'
      | 'maxBodyBytes'
      | 'headersTimeoutMs'
      | 'requestTimeoutMs'
      | 'storageTimeoutMs'
      | 'trustProxy'
      | 'trustProxyHeader'
      | 'faults'
      | 'delayMs'
    >
  > & {
    rateLimit: ResolvedRateLimitOptions;
    logger: false | { level: string; stream?: NodeJS.WritableStream };
  };

/** Options the server cannot use; `path` is the option's place, e.g. ['rateLimit', 'ban', 'threshold']. */
export class InvalidOptionsError extends UsageError {
  readonly path: readonly (string | number)[];
  constructor(message: string, path: readonly (string | number)[]) {
    super(message);
    this.path = path;
  }
}

/** The default of the option at a dotted path ('rateLimit.ban.threshold'), as the schema above holds it. */
export function optionDefault(path: string): string | number | boolean | undefined {
  const described = serverOptionsSchema.extract(path).describe() as { flags?: { default?: unknown } };
  const value = described.flags?.default;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** The names of createServer's options, top level, as the schema above holds them. */
export function optionNames(): string[] {
  return Object.keys((serverOptionsSchema.describe() as { keys?: Record<string, unknown> }).keys ?? {});
}

export function resolveOptions(options: ServerOptions): ResolvedOptions {
  // Instances (clock, streams) must pass through untouched, not be cloned by joi.
  const { error, value } = serverOptionsSchema.validate(options, { nonEnumerables: false });
  if (error) {
    const detail = error.details[0];
    throw new InvalidOptionsError(`Invalid server options: ${detail?.message ?? error.message}`, detail?.path ?? []);
  }
  const resolved = value as ServerOptions & { rateLimit: ResolvedRateLimitOptions };
  const logger =
    resolved.logger === true
      ? { level: DEFAULT_LOG_LEVEL }
      : resolved.logger === false || resolved.logger === undefined
        ? false
        : { level: resolved.logger.level ?? DEFAULT_LOG_LEVEL, ...(resolved.logger.stream ? { stream: resolved.logger.stream } : {}) };
  // The clock and the log stream are the caller's own instances: a clone would not move with them.
  return {
    ...resolved,
    logger: logger && typeof options.logger === 'object' && options.logger.stream ? { ...logger, stream: options.logger.stream } : logger,
    ...(options.clock ? { clock: options.clock } : {}),
  } as ResolvedOptions;
}
