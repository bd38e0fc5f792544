// What every instance on a shared PostgreSQL store keeps of it, so that most reads cost no query:
// pets by id, pages by query, served by the pets' version each request read on its limiter round trip.
// A page read after seeing version v may answer any request that saw up to v in the same epoch (why:
// server/README.md, Several instances; MAX_AGE_MS bounds a create whose version did not move on).
import type { Pet } from '../types.ts';
import type { ListQuery, ListResult, PetsVersion } from './pet-store.ts';

export type { PetsVersion } from './pet-store.ts';

/** Where a store announces its commits to the other instances' caches (the limiter's Redis). */
export interface PetsVersionSource {
  bump(kind: 'create' | 'reset'): Promise<PetsVersion>;
}

/** Longest an entry is served, whatever the versions say (see above). */
export const MAX_AGE_MS = 1_000;
/** Entries kept at most, per kind; a full map starts over. */
const MAX_PETS = 200_000;
const MAX_PAGES = 10_000;

interface Kept<T> {
  readonly value: T;
  readonly version: number;
  readonly epoch: number;
  readonly at: number;
}

export function pageKey({ limit, status, afterId = 0 }: ListQuery): string {
  return `${limit} ${status ?? ''} ${afterId}`;
}

export class PetCache {
  readonly #pets = new Map<number, Kept<Pet>>();
  readonly #pages = new Map<string, Kept<ListResult>>();
  /** The last object made for each id, whatever its epoch: see intern(). */
  readonly #interned = new Map<number, Pet>();
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  pet(id: number, seen: PetsVersion): Pet | undefined {
    const kept = this.#pets.get(id);
    return kept && this.#fresh(kept, seen) && kept.epoch === seen.epoch ? kept.value : undefined;
  }

  keepPet(pet: Pet, seen: PetsVersion): void {
    if (this.#pets.size >= MAX_PETS) this.#pets.clear();
    this.#pets.set(pet.id, { value: pet, version: seen.version, epoch: seen.epoch, at: this.#now() });
  }

  page(key: string, seen: PetsVersion): ListResult | undefined {
    const kept = this.#pages.get(key);
    return kept && this.#fresh(kept, seen) && kept.version >= seen.version ? kept.value : undefined;
  }

  /** Keeps a page read after seeing `seen`; an entry read after a later version stays. */
  keepPage(key: string, page: ListResult, seen: PetsVersion): void {
    const kept = this.#pages.get(key);
    if (kept && kept.epoch === seen.epoch && kept.version > seen.version && this.#now() - kept.at < MAX_AGE_MS) return;
    if (this.#pages.size >= MAX_PAGES) this.#pages.clear();
    this.#pages.set(key, { value: page, version: seen.version, epoch: seen.epoch, at: this.#now() });
  }

  /**
   * The object already made for this pet when the row says the same, else the row: a pet's JSON is
   * encoded once per object (pets/json.ts), so rows read again cost no JSON.stringify. Checked field
   * by field, so it needs no version: a reset that reused an id with other values gets a new object.
   */
  intern(row: Pet): Pet {
    const known = this.#interned.get(row.id);
    if (known && known.name === row.name && known.categoryId === row.categoryId && known.status === row.status) return known;
    if (this.#interned.size >= MAX_PETS) this.#interned.clear();
    this.#interned.set(row.id, row);
    return row;
  }

  #fresh(kept: Kept<unknown>, seen: PetsVersion): boolean {
    return kept.epoch === seen.epoch && this.#now() - kept.at < MAX_AGE_MS;
  }
}
