// The one rule for a pet read back from the files a file store writes (the snapshot and its
// journal): both refuse what does not pass it as corruption, never serve it.
import type { Pet } from '../types.ts';
import { isId } from './id-space.ts';

/** A pet as the store writes it: an id of the id space (id-space.ts), a name, a safe-integer category, a status. */
export function isStoredPet(value: unknown): value is Pet {
  const p = value as Partial<Pet> | null;
  return typeof p === 'object' && p !== null && isId(p.id) && typeof p.name === 'string' && Number.isSafeInteger(p.categoryId) && typeof p.status === 'string';
}
