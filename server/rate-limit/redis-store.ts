// The shared store: one Lua script per decision, so instances behind a load balancer count
// together and exactly. Every expiry lives in Redis (PEXPIRE/PTTL); an instance's clock is only
// used to turn "ends in N ms" into the Reset header.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { ConsumeRequest, ConsumeResult, LimiterStore, Outcome, WindowUsage } from './store.ts';
import { StoreUnavailableError } from './store.ts';
import { roundTrips } from '../round-trips.ts';

const CONSUME_LUA = readFileSync(new URL('./consume.lua', import.meta.url), 'utf8');
const ADVANCE_LUA = readFileSync(new URL('./advance.lua', import.meta.url), 'utf8');
const OUTCOMES: readonly Outcome[] = ['admitted', 'refused', 'banned'];
const SCAN_BATCH = 500;

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every key; tests and deployments sharing a Redis each use their own. */
  prefix: string;
  /** A command slower than this fails, and the caller falls back (Redis hung, not down). */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Upper bound of the pause between reconnection attempts. */
  maxReconnectDelayMs?: number;
}

export type RedisStatus = 'ready' | 'unavailable';

type ScriptCommand = (numKeys: number, ...args: Array<string | number>) => Promise<unknown>;

export class RedisStore implements LimiterStore {
  readonly prefix: string;
  readonly #redis: Redis;
  readonly #listeners = new Set<(status: RedisStatus, error?: Error) => void>();
  #lastError: Error | undefined;

  constructor(options: RedisStoreOptions) {
    this.prefix = options.prefix;
    const maxDelay = options.maxReconnectDelayMs ?? 1_000;
    this.#redis = new Redis(options.url, {
      lazyConnect: true,
      // Fail at once while disconnected instead of queueing: the caller has a fallback, and a
      // queued decision would arrive after its request was long answered.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 2_000,
      connectTimeout: options.connectTimeoutMs ?? 2_000,
      // Never give up: the store must come back by itself when Redis does.
      retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), maxDelay),
    });
    this.#redis.defineCommand('adoptionLimiterConsume', { lua: CONSUME_LUA });
    this.#redis.defineCommand('adoptionLimiterAdvance', { lua: ADVANCE_LUA });
    this.#redis.on('ready', () => this.#emit('ready'));
    this.#redis.on('error', (error: Error) => {
      this.#lastError = error;
    });
    this.#redis.on('close', () => this.#emit('unavailable', this.#lastError));
  }

  get ready(): boolean {
    return this.#redis.status === 'ready';
  }

  /** Connects; resolves false (and keeps retrying in the background) when Redis is not there. */
  async connect(): Promise<boolean> {
    if (this.#redis.status === 'ready') return true;
    try {
      if (this.#redis.status === 'wait') await this.#redis.connect();
      else await this.whenReady();
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves at the next 'ready'; rejects when the client is closed for good. */
  whenReady(): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onReady = () => {
        this.#redis.off('end', onEnd);
        resolve();
      };
      const onEnd = () => {
        this.#redis.off('ready', onReady);
        reject(new StoreUnavailableError('Redis connection closed'));
      };
      this.#redis.once('ready', onReady);
      this.#redis.once('end', onEnd);
    });
  }

  onStatus(listener: (status: RedisStatus, error?: Error) => void): void {
    this.#listeners.add(listener);
  }

  keysFor(partition: string) {
    // The hash tag keeps one partition's keys in one slot, should this ever run on a cluster.
    const base = `${this.prefix}{${partition}}`;
    return { ban: `${base}:ban`, refusals: `${base}:refused`, window: (name: string) => `${base}:w:${name}` };
  }

  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    const [result] = await this.consumeAll([request]);
    return result!;
  }

  async consumeAll(requests: readonly ConsumeRequest[]): Promise<ConsumeResult[]> {
    const keys: string[] = [];
    const args: Array<string | number> = [requests.length];
    for (const request of requests) {
      const names = this.keysFor(request.partition);
      const ban = request.ban;
      keys.push(names.ban, names.refusals, ...request.windows.map((w) => names.window(w.name)));
      args.push(
        request.cost,
        ban ? ban.threshold : 0,
        ban ? ban.periodMs : 1,
        ban ? ban.durationMs : 1,
        request.windows.length,
        ...request.windows.flatMap((w) => [w.limit, w.windowMs]),
      );
    }
    const reply = await this.#call('adoptionLimiterConsume', keys.length, [...keys, ...args]);
    if (!Array.isArray(reply)) throw new StoreUnavailableError(`unexpected reply from the limiter script: ${JSON.stringify(reply)}`);
    const numbers = reply.map(Number);
    const results: ConsumeResult[] = [];
    let at = 0;
    for (const request of requests) {
      if (at >= numbers.length) break;
      const outcome = OUTCOMES[numbers[at]!];
      if (!outcome || numbers.length < at + 2 + 2 * request.windows.length) {
        throw new StoreUnavailableError(`unexpected reply from the limiter script: ${JSON.stringify(reply)}`);
      }
      const windows: WindowUsage[] = request.windows.map((spec, i) => ({
        spec,
        used: numbers[at + 2 + 2 * i]!,
        resetMs: numbers[at + 3 + 2 * i]!,
      }));
      results.push({ outcome, windows, banMs: numbers[at + 1]! });
      at += 2 + 2 * request.windows.length;
      if (outcome !== 'admitted') break;
    }
    if (at !== numbers.length || results.length === 0) {
      throw new StoreUnavailableError(`unexpected reply from the limiter script: ${JSON.stringify(reply)}`);
    }
    return results;
  }

  async reset(): Promise<void> {
    for await (const keys of this.#scan()) await this.#redis.unlink(...keys);
  }

  async advance(ms: number): Promise<void> {
    if (ms <= 0) return;
    for await (const keys of this.#scan()) await this.#call('adoptionLimiterAdvance', keys.length, [...keys, ms]);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    try {
      if (this.#redis.status === 'ready') await this.#redis.quit();
      else this.#redis.disconnect();
    } catch {
      this.#redis.disconnect();
    }
  }

  async *#scan(): AsyncGenerator<string[]> {
    // Glob characters in the prefix are escaped so one deployment's reset cannot reach another's keys.
    const pattern = `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.#redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }

  async #call(name: string, numKeys: number, args: Array<string | number>): Promise<unknown> {
    const command = (this.#redis as unknown as Record<string, ScriptCommand>)[name];
    if (!command) throw new StoreUnavailableError(`script ${name} is not defined`);
    roundTrips.redis++;
    try {
      return await command.call(this.#redis, numKeys, ...args);
    } catch (error) {
      throw new StoreUnavailableError(`Redis: ${(error as Error).message}`, { cause: error });
    }
  }

  #emit(status: RedisStatus, error?: Error): void {
    for (const listener of this.#listeners) listener(status, error);
  }
}
