// Every option of the second server, validated once where it enters; everything downstream
// trusts the resolved object.
import { PET_STATUSES, PLAN_LIMITS } from '../../../spec/rules/contract.js';
import { raceGap } from './race.ts';

export type Plan = keyof typeof PLAN_LIMITS;
export type PetStatus = (typeof PET_STATUSES)[number];

export interface Clock {
  now(): number;
}

export interface SeedPet {
  name: string;
  categoryId: number;
  status?: PetStatus;
}

export interface SecondServerOptions {
  host?: string;
  port?: number;
  clock?: Clock;
  paging?: 'link' | 'none';
  /** Requests refused with 429 since the key's last admission before it is banned. */
  banAfter?: number;
  banSeconds?: number;
  keys?: Record<string, Plan>;
  /** The pets the store starts with, in id order; ignored when `empty`. */
  seed?: readonly SeedPet[];
  empty?: boolean;
  /**
   * The key's minute limit: a fixed window opened by its first request, a sliding log of admissions
   * (Reset: the oldest slot frees), or a moving window (the same log; Reset: the whole window is empty).
   */
  window?: 'fixed' | 'sliding' | 'moving';
  /** When X-RateLimit-Remaining of an admitted request is read: as the limiter decided, or when the answer is built (after other requests may have been counted). */
  remaining?: 'decision' | 'answer';
  /** Test builds with a read-then-write gap, flaws on purpose: concurrent requests see a stale value. */
  race?: Race;
}

export interface Race {
  /** The key's minute count is read, then written back plus one after a gap: over-admission, repeated Remaining. */
  limiter?: boolean;
  /** createPet reads the next id, then stores under it after a gap: overlapping creates share an id. */
  ids?: boolean;
  /** The gap between the read and the write; by default 5 ms of real time (race.ts). */
  gap?: () => Promise<void>;
}

export interface ResolvedOptions {
  host: string;
  port: number;
  clock: Clock;
  paging: 'link' | 'none';
  banAfter: number;
  banMs: number;
  keys: ReadonlyMap<string, Plan>;
  seed: readonly SeedPet[];
  window: 'fixed' | 'sliding' | 'moving';
  remaining: 'decision' | 'answer';
  race: Required<Race>;
}

export const DEFAULT_KEYS: Readonly<Record<string, Plan>> = {
  'second-free-key': 'free',
  'second-pro-key': 'pro',
  'second-business-key': 'business',
};

export const DEFAULT_SEED: readonly SeedPet[] = [
  { name: 'Juniper', categoryId: 3, status: 'available' },
  { name: 'Quill', categoryId: 7, status: 'pending' },
  { name: 'Saffron', categoryId: 3, status: 'sold' },
];

const SYSTEM_CLOCK: Clock = { now: () => Date.now() };
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z/=]+$/;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}

function resolveRace(race: Race | undefined): Required<Race> {
  if (race === undefined) return { limiter: false, ids: false, gap: raceGap };
  if (race === null || typeof race !== 'object' || Array.isArray(race)) throw new TypeError(`race must be an object, got ${String(race)}`);
  for (const [name, value] of Object.entries(race)) {
    if (name === 'gap') {
      if (value !== undefined && typeof value !== 'function') throw new TypeError(`race.gap must be a function, got ${String(value)}`);
      continue;
    }
    if (name !== 'limiter' && name !== 'ids') throw new TypeError(`race.${name} is not a race this server can have (limiter, ids)`);
    if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`race.${name} must be a boolean, got ${String(value)}`);
  }
  return { limiter: race.limiter ?? false, ids: race.ids ?? false, gap: race.gap ?? raceGap };
}

export function resolveOptions(options: SecondServerOptions = {}): ResolvedOptions {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError(`port must be 0..65535, got ${String(port)}`);
  if (options.paging !== undefined && options.paging !== 'link' && options.paging !== 'none') {
    throw new TypeError(`paging must be 'link' or 'none', got ${String(options.paging)}`);
  }
  if (options.window !== undefined && options.window !== 'fixed' && options.window !== 'sliding' && options.window !== 'moving') {
    throw new TypeError(`window must be 'fixed', 'sliding' or 'moving', got ${String(options.window)}`);
  }
  if (options.remaining !== undefined && options.remaining !== 'decision' && options.remaining !== 'answer') {
    throw new TypeError(`remaining must be 'decision' or 'answer', got ${String(options.remaining)}`);
  }
  const keys = new Map<string, Plan>();
  for (const [key, plan] of Object.entries(options.keys ?? DEFAULT_KEYS)) {
    // A key is sent as a bearer token, so it must be one (RFC 6750 §2.1).
    if (!TOKEN.test(key)) throw new TypeError(`key ${JSON.stringify(key)} cannot be sent as a bearer token`);
    if (!Object.prototype.hasOwnProperty.call(PLAN_LIMITS, plan)) throw new TypeError(`key ${key}: unknown plan ${String(plan)}`);
    keys.set(key, plan);
  }
  return {
    host: options.host ?? '127.0.0.1',
    port,
    clock: options.clock ?? SYSTEM_CLOCK,
    paging: options.paging ?? 'link',
    banAfter: positiveInteger('banAfter', options.banAfter, 5),
    banMs: positiveInteger('banSeconds', options.banSeconds, 30) * 1000,
    keys,
    seed: options.empty ? [] : (options.seed ?? DEFAULT_SEED),
    window: options.window ?? 'fixed',
    remaining: options.remaining ?? 'decision',
    race: resolveRace(options.race),
  };
}
