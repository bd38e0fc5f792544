// Every option of the library server, checked once where it enters; everything downstream trusts
// the resolved object.
import { PET_STATUSES, PLAN_LIMITS } from '../../../spec/rules/contract.js';

export type Plan = keyof typeof PLAN_LIMITS;
export type PetStatus = (typeof PET_STATUSES)[number];

/**
 * Misconfigurations on purpose, each one an Express user could make:
 * - `per-address`: the README's default key (the client address) instead of the bearer key;
 * - `no-legacy-headers`: the README's example `legacyHeaders: false`, so no X-RateLimit-*;
 * - `skip-failed-requests`: `skipFailedRequests: true`, so refused and failed requests give their hit back;
 * - `limit-too-high`: the plan's limit plus one handed to `limit`;
 * - `short-ban`: a ban of banSeconds from the refusal, ending before the window it punishes.
 */
export const BUGS = ['per-address', 'no-legacy-headers', 'skip-failed-requests', 'limit-too-high', 'short-ban'] as const;
export type Bug = (typeof BUGS)[number];

export interface SeedPet {
  name: string;
  categoryId: number;
  status?: PetStatus;
}

export interface LibraryServerOptions {
  host?: string;
  port?: number;
  /** Key → plan. */
  keys?: Record<string, Plan>;
  /** Requests refused with 429 since the key's last admission before it is banned. */
  banAfter?: number;
  banSeconds?: number;
  seed?: readonly SeedPet[];
  /**
   * The order of the two limiters in `app.use`: the last one to run writes X-RateLimit-*, so
   * `day-then-minute` (the default) describes the minute window until the day is spent, and
   * `minute-then-day` the day window until a minute refuses.
   */
  order?: LimiterOrder;
  bug?: Bug;
}

export type LimiterOrder = 'day-then-minute' | 'minute-then-day';

export interface ResolvedOptions {
  host: string;
  port: number;
  keys: ReadonlyMap<string, Plan>;
  banAfter: number;
  banMs: number;
  seed: readonly SeedPet[];
  order: LimiterOrder;
  bug: Bug | undefined;
}

export const DEFAULT_KEYS: Readonly<Record<string, Plan>> = {
  'library-free-key': 'free',
  'library-pro-key': 'pro',
  'library-business-key': 'business',
};

export const DEFAULT_SEED: readonly SeedPet[] = [
  { name: 'Biscuit', categoryId: 1, status: 'available' },
  { name: 'Pepper', categoryId: 2, status: 'sold' },
  { name: 'Mochi', categoryId: 1, status: 'available' },
  { name: 'Tofu', categoryId: 3, status: 'pending' },
];

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

export function resolveOptions(options: LibraryServerOptions = {}): ResolvedOptions {
  const keys = new Map<string, Plan>();
  for (const [key, plan] of Object.entries(options.keys ?? DEFAULT_KEYS)) {
    if (!(plan in PLAN_LIMITS)) throw new TypeError(`keys: ${plan} is not a plan (${Object.keys(PLAN_LIMITS).join(', ')})`);
    if (!/^[\x21-\x7e]+$/.test(key)) throw new TypeError('keys: a key is printable ASCII without spaces');
    keys.set(key, plan);
  }
  if (options.order !== undefined && options.order !== 'day-then-minute' && options.order !== 'minute-then-day')
    throw new TypeError('order: day-then-minute or minute-then-day');
  if (options.bug !== undefined && !BUGS.includes(options.bug)) throw new TypeError(`bug: one of ${BUGS.join(', ')}`);
  for (const pet of options.seed ?? []) {
    if (pet.name === '' || !Number.isSafeInteger(pet.categoryId)) throw new TypeError('seed: every pet has a name and an integer categoryId');
  }
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    keys,
    banAfter: positiveInteger('banAfter', options.banAfter ?? 5),
    banMs: positiveInteger('banSeconds', options.banSeconds ?? 120) * 1000,
    seed: options.seed ?? DEFAULT_SEED,
    order: options.order ?? 'day-then-minute',
    bug: options.bug,
  };
}
