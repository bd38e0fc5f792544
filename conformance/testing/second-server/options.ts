// Every option of the second server, validated once where it enters; everything downstream
// trusts the resolved object.
import { PET_STATUSES, PLAN_LIMITS } from '../../../spec/rules/contract.js';

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
  /** Requests refused with 429 within one window before the key is banned. */
  banAfter?: number;
  banSeconds?: number;
  keys?: Record<string, Plan>;
  /** The pets the store starts with, in id order; ignored when `empty`. */
  seed?: readonly SeedPet[];
  empty?: boolean;
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

export function resolveOptions(options: SecondServerOptions = {}): ResolvedOptions {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError(`port must be 0..65535, got ${String(port)}`);
  if (options.paging !== undefined && options.paging !== 'link' && options.paging !== 'none') {
    throw new TypeError(`paging must be 'link' or 'none', got ${String(options.paging)}`);
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
  };
}
