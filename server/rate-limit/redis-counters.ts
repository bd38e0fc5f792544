// The shared counters: one Lua script decides, so instances count together, exactly. One event-loop
// turn's decisions share one script call, decided in order as separate calls would be, so coalescing
// changes no count. Expiry lives in Redis; this clock only turns "ends in N ms" into the Reset header.
// A passenger (passenger.ts) may ride that call: the round trip every request makes anyway.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { ConsumeRequest, ConsumeResult, Counters, Outcome, WindowUsage } from './counters.ts';
import type { LocalBan, LocalCount } from './memory-counters.ts';
import { CountersUnavailableError } from './counters.ts';
import type { Passenger, RedisScript, SharedRedis } from './passenger.ts';
import { roundTrips } from '../round-trips.ts';

const lua = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');
const CONSUME_LUA = lua('./consume.lua');
const ADVANCE_LUA = lua('./advance.lua');
const REBUILD_LUA = lua('./rebuild.lua');
/** Windows per call of the rebuild script: bounds each run (Redis runs nothing else meanwhile). */
const REBUILD_BATCH = 500;
const CONSUME = 'adoptionLimiterConsume';
const CONSUME_CARRYING = 'adoptionLimiterConsumeCarrying';
const OUTCOMES: readonly Outcome[] = ['admitted', 'refused', 'banned'];
const SCAN_BATCH = 500;
/** Decisions coalesced into one script call, at most: bounds the script's run (Redis runs nothing else meanwhile). */
export const MAX_COALESCED = 256;

interface PendingDecision {
  requests: readonly ConsumeRequest[];
  resolve: (results: ConsumeResult[]) => void;
  reject: (error: unknown) => void;
}

export interface RedisCountersOptions {
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

export class RedisCounters implements Counters, SharedRedis {
  readonly prefix: string;
  readonly #redis: Redis;
  readonly #listeners = new Set<(status: RedisStatus, error?: Error) => void>();
  #lastError: Error | undefined;
  #pending: PendingDecision[] = [];
  #flushScheduled = false;
  #passenger: Passenger | undefined;
  #scripts = 0;

  constructor(options: RedisCountersOptions) {
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
      // Never give up: the counters must come back by themselves when Redis does.
      retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), maxDelay),
    });
    this.#redis.defineCommand(CONSUME, { lua: CONSUME_LUA });
    this.#redis.defineCommand('adoptionLimiterAdvance', { lua: ADVANCE_LUA });
    this.#redis.defineCommand('adoptionLimiterRebuild', { lua: REBUILD_LUA });
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
        reject(new CountersUnavailableError('Redis connection closed'));
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

  sharedRedis(): SharedRedis {
    return this;
  }

  /** Every decision from now on runs `passenger` first, in the same script call (see consume.lua). */
  carry(passenger: Passenger): void {
    if (this.#passenger && this.#passenger !== passenger) throw new Error('these counters already carry a passenger');
    this.#redis.defineCommand(CONSUME_CARRYING, { lua: `${passenger.lua}\n${CONSUME_LUA}` });
    this.#passenger = passenger;
  }

  /** A passenger's own script, on this connection; a failure rejects with CountersUnavailableError. */
  script(lua: string): RedisScript {
    const name = `adoptionPassengerScript${++this.#scripts}`;
    this.#redis.defineCommand(name, { lua });
    return (keys, args) => this.#call(name, keys.length, [...keys, ...args]);
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
    const passenger = this.#passenger;
    const keys: string[] = passenger ? [passenger.key] : [];
    const args: Array<string | number> = [batch.length, passenger ? 1 : 0];
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
    const reply = await this.#call(passenger ? CONSUME_CARRYING : CONSUME, keys.length, [...keys, ...args]);
    const bad = () => new CountersUnavailableError(`unexpected reply from the limiter script: ${JSON.stringify(reply)}`);
    if (!Array.isArray(reply)) throw bad();
    let carried: readonly number[] | undefined;
    if (passenger) {
      if (!Array.isArray(reply[0])) throw bad();
      carried = reply[0].map(Number);
    }
    const numbers = (passenger ? reply.slice(1) : reply).map(Number);
    let at = 0;
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
        results.push(carried ? { outcome, windows, banMs: numbers[at + 1]!, carried } : { outcome, windows, banMs: numbers[at + 1]! });
        at += 2 + 2 * request.windows.length;
        if (outcome !== 'admitted' && p < decided - 1) throw bad();
      }
      all.push(results);
    }
    if (at !== numbers.length) throw bad();
    return all;
  }

  /** Adds what an instance admitted alone to these counters, raising any found below what it last read, and holds its bans (rebuild.lua). */
  async addLocalCounts(counts: readonly LocalCount[], bans: readonly LocalBan[] = []): Promise<void> {
    const ms = (remaining: number) => Math.max(1, Math.ceil(remaining));
    for (let at = 0; at < counts.length; at += REBUILD_BATCH) {
      const batch = counts.slice(at, at + REBUILD_BATCH);
      const keys = batch.map((c) => this.keysFor(c.partition).window(c.window));
      const args = batch.flatMap((c) => [c.seen, c.local, ms(c.remainingMs)]);
      await this.#call('adoptionLimiterRebuild', keys.length, [...keys, 'windows', ...args]);
    }
    for (let at = 0; at < bans.length; at += REBUILD_BATCH) {
      const batch = bans.slice(at, at + REBUILD_BATCH);
      const keys = batch.map((b) => this.keysFor(b.partition).ban);
      await this.#call('adoptionLimiterRebuild', keys.length, [...keys, 'bans', ...batch.map((b) => ms(b.remainingMs))]);
    }
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
    if (!command) throw new CountersUnavailableError(`script ${name} is not defined`);
    roundTrips.redis++;
    try {
      return await command.call(this.#redis, numKeys, ...args);
    } catch (error) {
      throw new CountersUnavailableError(`Redis: ${(error as Error).message}`, { cause: error });
    }
  }

  #emit(status: RedisStatus, error?: Error): void {
    for (const listener of this.#listeners) listener(status, error);
  }
}
