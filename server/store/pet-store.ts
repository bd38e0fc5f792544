import type { Clock } from '../clock.ts';
import type { NewPet, Pet, PetStatus } from '../types.ts';

/** The pets' version a request read (pet-cache.ts serves by it). */
export interface PetsVersion {
  /** Moved on by every create (and reset). */
  readonly version: number;
  /** Moved on by every reset; starts from Redis's clock, so a Redis that lost its data starts a new one. */
  readonly epoch: number;
}

/**
 * Which pets a list asks for, in the store's terms. A client names the position by an opaque cursor
 * instead of `afterId` (pets/service.ts ListRequest, derived from this one).
 */
export interface ListQuery {
  limit: number;
  status?: PetStatus;
  /** Only pets with an id greater than this (the position of a page). */
  afterId?: number;
}

export interface ListResult {
  pets: Pet[];
  /** Whether a pet matching the query follows the last one returned. */
  hasMore: boolean;
}

export interface PetStore {
  /**
   * `seen`: the pets' version the request saw before asking (store/pet-cache.ts), which lets a
   * shared store answer from its cache; stores that are not shared ignore it.
   */
  list(query: ListQuery, seen?: PetsVersion): Promise<ListResult>;
  get(id: number, seen?: PetsVersion): Promise<Pet | undefined>;
  /**
   * Resolves once the new pet is durable in the store. Rejects with IdSpaceExhaustedError, storing
   * nothing, once LAST_ID was handed out (id-space.ts).
   */
  create(pet: Required<NewPet>): Promise<Pet>;
  /** Replaces every pet (admin reset). The id counter never goes back. Ids outside the id space are a UsageError. */
  reset(pets: readonly Pet[]): Promise<void>;
  /** How many pets the store holds. */
  count(): Promise<number>;
  /**
   * Why writes cannot be made durable now, or undefined while they can. A store that knows it is
   * failing checks again now and then when asked (at most once a second of its clock).
   */
  failure?(): Promise<string | undefined>;
  /** Rejects when what was acknowledged could not be left durable in the store's own form; nothing is lost then either. */
  close(): Promise<void>;
}

/** How a store tells the operator what it did or what failed: the server's log. */
export type StoreLog = (level: 'error' | 'warn' | 'info', message: string) => void;

export interface StoreOptions {
  /** Paces the checks of a failing store, and dates what it keeps aside; the system clock by default. */
  clock?: Clock;
  /**
   * Told when the disk starts refusing writes (error) and when it takes them again (info), what a
   * start did with a torn journal (warn), and when the last id was handed out (error).
   */
  log?: StoreLog;
}

export type StorageOptions =
  | { type: 'memory' }
  | { type: 'file'; path: string }
  /** `url`: postgres://user:password@host:5432/database[?schema=name]; `schema` wins over ?schema=. */
  | { type: 'postgres'; url: string; schema?: string };
