import type { PetsVersion } from '../store/pet-cache.ts';
import type { ListQuery, PetStore } from '../store/pet-store.ts';
import type { NewPet, Pet, PetStatus } from '../types.ts';
import { KitError } from '../../lib/errors.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';

/** The status a pet gets when created without one. */
export const DEFAULT_STATUS: PetStatus = 'available';

/** A cursor this server did not issue. */
export class InvalidCursorError extends KitError {
  constructor(message: string) {
    super('invalid_cursor', message);
  }
}

/** The list's query as a client sends it: the store's, with the page's position as a cursor this server issued. */
export type ListRequest = Omit<ListQuery, 'afterId'> & { cursor?: string };

export interface Page {
  pets: Pet[];
  /** Cursor of the next page; absent on the last page. */
  nextCursor?: string;
}

/** The operations on pets, free of HTTP. */
export class PetService {
  readonly #store: PetStore;

  constructor(store: PetStore) {
    this.#store = store;
  }

  /** `seen`: the pets' version the request saw, if any (store/pet-cache.ts). */
  async list({ limit, status, cursor }: ListRequest, seen?: PetsVersion): Promise<Page> {
    let afterId = 0;
    if (cursor !== undefined) {
      const decoded = decodeCursor(cursor);
      if (decoded === undefined) throw new InvalidCursorError('"cursor" is not a cursor this server issued');
      afterId = decoded;
    }
    const { pets, hasMore } = await this.#store.list({ limit, status, afterId }, seen);
    const last = pets.at(-1);
    return hasMore && last ? { pets, nextCursor: encodeCursor(last.id) } : { pets };
  }

  /** Resolves with the pet once it is durable; unknown fields were already dropped by validation. */
  create(input: NewPet): Promise<Pet> {
    return this.#store.create({ name: input.name, categoryId: input.categoryId, status: input.status ?? DEFAULT_STATUS });
  }

  get(id: number, seen?: PetsVersion): Promise<Pet | undefined> {
    return Number.isSafeInteger(id) ? this.#store.get(id, seen) : Promise.resolve(undefined);
  }
}
