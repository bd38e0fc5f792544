// The shared store: one Lua script decides, so instances behind a load balancer count together
// and exactly. The decisions asked for in one event-loop turn of this instance share one script
// call (one round trip, one script run in Redis): the script decides them one after the other, as
// separate calls in that order would, so coalescing changes no count. Every expiry lives in Redis
// (PEXPIRE/PTTL); an instance's clock is only used to turn "ends in N ms" into the Reset header.
//
// The same call reads the pets' version when asked to (`sharePetsVersion`), which the pet caches of
// every instance rely on (server/store/pet-cache.ts): the round trip every request makes anyway.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { PetsVersion, PetsVersionSource } from '../store/pet-cache.ts';
import type { ConsumeRequest, ConsumeResult, LimiterStore, Outcome, WindowUsage } from './store.ts';
import { StoreUnavailableError } from './store.ts';
import { roundTrips } from '../round-trips.ts';

const lua = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');
const VERSION_LUA = lua('./pets-version.lua');
const CONSUME_LUA = `${VERSION_LUA}\n${lua('./consume.lua')}`;
const BUMP_LUA = `${VERSION_LUA}\n${lua('./bump.lua')}`;
const ADVANCE_LUA = lua('./advance.lua');
const OUTCOMES: readonly Outcome[] = ['admitted', 'refused', 'banned'];
const SCAN_BATCH = 500;
/** Decisions coalesced into one script call, at most: bounds the script's run (Redis runs nothing else meanwhile). */
export const MAX_COALESCED = 256;

interface PendingDecision {
  requests: readonly ConsumeRequest[];
  resolve: (results: ConsumeResult[]) => void;
  reject: (error: unknown) => void;
}

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
  #pending: PendingDecision[] = [];
  #flushScheduled = false;
  #versionKey: string | undefined;
  readonly #versionSource: PetsVersionSource = { bump: (kind) => this.bumpPetsVersion(kind) };

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
    this.#redis.defineCommand('adoptionPetsBump', { lua: BUMP_LUA });
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

  /** Every decision from now on also reads the pets' version kept under `name`, beside the limiter's keys. */
  sharePetsVersion(name: string): PetsVersionSource {
    this.#versionKey = `${this.prefix}{pets}:${name}`;
    return this.#versionSource;
  }

  /** Moves the pets' version on after a create or a reset was committed; resolves with the new one. */
  async bumpPetsVersion(kind: 'create' | 'reset'): Promise<PetsVersion> {
    if (!this.#versionKey) throw new StoreUnavailableError('the pets version is not shared through this store');
    const reply = await this.#call('adoptionPetsBump', 1, [this.#versionKey, kind]);
    if (!Array.isArray(reply) || reply.length !== 2) throw new StoreUnavailableError(`unexpected reply from the version script: ${JSON.stringify(reply)}`);
    return { version: Number(reply[0]), epoch: Number(reply[1]) };
  }

  /** Decided together with the other decisions asked for in this event-loop turn, in one script call. */
  consumeAll(requests: readonly ConsumeRequest[]): Promise<ConsumeResult[]> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ requests, resolve, reject });
      if (this.#pending.length >= MAX_COALESCED) this.#flush();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        // After the I/O callbacks of this turn: every request whose bytes arrived in it joins.
        setImmediate(() => {
          this.#flushScheduled = false;
          this.#flush();
        });
      }
    });
  }

  #flush(): void {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    this.#decide(batch).then(
      (results) => batch.forEach((pending, i) => pending.resolve(results[i]!)),
      (error: unknown) => {
        for (const pending of batch) pending.reject(error);
      },
    );
  }

  async #decide(batch: readonly PendingDecision[]): Promise<ConsumeResult[][]> {
    const versionKey = this.#versionKey;
    const keys: string[] = versionKey ? [versionKey] : [];
    const args: Array<string | number> = [batch.length, versionKey ? 1 : 0];
    for (const { requests } of batch) {
      args.push(requests.length);
      for (const request of requests) {
        const names = this.keysFor(request.partition);
        const ban = request.ban;
        keys.push(names.ban, names.refusals);
        for (const w of request.windows) keys.push(names.window(w.name));
        args.push(request.cost, ban ? ban.threshold : 0, ban ? ban.periodMs : 1, ban ? ban.durationMs : 1, request.windows.length);
        for (const w of request.windows) args.push(w.limit, w.windowMs);
      }
    }
    const reply = await this.#call('adoptionLimiterConsume', keys.length, [...keys, ...args]);
    const bad = () => new StoreUnavailableError(`unexpected reply from the limiter script: ${JSON.stringify(reply)}`);
    if (!Array.isArray(reply)) throw bad();
    const numbers = reply.map(Number);
    let at = 0;
    let petsVersion: PetsVersion | undefined;
    if (versionKey) {
      petsVersion = { version: numbers[0]!, epoch: numbers[1]! };
      at = 2;
    }
    const all: ConsumeResult[][] = [];
    for (const { requests } of batch) {
      const decided = numbers[at++];
      if (decided === undefined || decided < 1 || decided > requests.length) throw bad();
      const results: ConsumeResult[] = [];
      for (let p = 0; p < decided; p++) {
        const request = requests[p]!;
        const outcome = OUTCOMES[numbers[at]!];
        if (!outcome || numbers.length < at + 2 + 2 * request.windows.length) throw bad();
        const windows: WindowUsage[] = request.windows.map((spec, i) => ({ spec, used: numbers[at + 2 + 2 * i]!, resetMs: numbers[at + 3 + 2 * i]! }));
        results.push(petsVersion ? { outcome, windows, banMs: numbers[at + 1]!, petsVersion } : { outcome, windows, banMs: numbers[at + 1]! });
        at += 2 + 2 * request.windows.length;
        if (outcome !== 'admitted' && p < decided - 1) throw bad();
      }
      all.push(results);
    }
    if (at !== numbers.length) throw bad();
    return all;
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
