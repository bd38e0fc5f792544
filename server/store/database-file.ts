// The snapshot a file store keeps (db.json): its format, checked when read and written through
// DatabaseSerializer, and what a restart would read from it and the journal beside it.
import { readFileSync } from 'node:fs';
import { CorruptDatabaseError } from './durable-json-file.ts';
import { checkPetIds, isNextId, LAST_ID } from './id-space.ts';
import { isStoredPet } from './stored-pet.ts';
import type { Pet } from '../types.ts';

/** The database as it is kept in memory and on disk. */
export interface Database {
  /**
   * The next id to assign. Persisted so that ids are never reused, even after the newest pet goes.
   * SPENT (id-space.ts) once LAST_ID was assigned.
   */
  nextId: number;
  /** Sorted by ascending id: ids only grow, so appending keeps the order. */
  pets: Pet[];
}

export function checkDatabase(data: unknown, path: string): Database {
  const db = data as Partial<Database> | null;
  if (typeof db !== 'object' || db === null || Array.isArray(db)) throw new CorruptDatabaseError(path, 'it does not hold a JSON object');
  if (!isNextId(db.nextId)) throw new CorruptDatabaseError(path, `"nextId" is not an integer from 1 to ${LAST_ID + 1}`);
  if (!Array.isArray(db.pets)) throw new CorruptDatabaseError(path, '"pets" is not an array');
  let previous = 0;
  for (const [index, pet] of db.pets.entries()) {
    const valid = isStoredPet(pet) && pet.id > previous && pet.id < (db.nextId as number);
    if (!valid) throw new CorruptDatabaseError(path, `pets[${index}] is not a valid pet in ascending id order below "nextId"`);
    previous = pet.id;
  }
  return db as Database;
}

const PETS_TAIL = Buffer.from(']}');

/**
 * Reuses the bytes of pets already serialised: pets are only appended, so a write encodes only the new
 * ones, where re-encoding the whole store was a fifth of a create's CPU at 10,000 pets (npm run bench).
 * A reset, or a rolled-back create (`forget()`), makes the next write start over.
 */
export class DatabaseSerializer {
  #pets: readonly Pet[] | null = null;
  #count = 0;
  #bytes = Buffer.allocUnsafe(64 * 1024);
  #length = 0;

  serialize(data: Database): Buffer[] {
    if (data.pets !== this.#pets || data.pets.length < this.#count) this.forget(data.pets);
    for (let i = this.#count; i < data.pets.length; i++) this.#append((i === 0 ? '' : ',') + JSON.stringify(data.pets[i]));
    this.#count = data.pets.length;
    const head = Buffer.from(`{"nextId":${JSON.stringify(data.nextId)},"pets":[`);
    return [head, this.#bytes.subarray(0, this.#length), PETS_TAIL];
  }

  forget(pets: readonly Pet[] | null = null): void {
    this.#pets = pets;
    this.#count = 0;
    // A fresh buffer: bytes handed out before stay as they were.
    this.#bytes = Buffer.allocUnsafe(64 * 1024);
    this.#length = 0;
  }

  #append(text: string): void {
    const needed = this.#length + Buffer.byteLength(text);
    if (needed > this.#bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.#bytes.length * 2));
      this.#bytes.copy(grown, 0, 0, this.#length);
      this.#bytes = grown;
    }
    this.#length += this.#bytes.write(text, this.#length);
  }
}

export function seedDatabase(pets: readonly Pet[]): Database {
  checkPetIds(pets, 'The pets to store');
  const sorted = [...pets].sort((a, b) => a.id - b.id).map((p) => ({ ...p }));
  const maxId = sorted.reduce((max, p) => Math.max(max, p.id), 0);
  return { nextId: maxId + 1, pets: sorted };
}

/**
 * The pets a file store holds durably, read without opening it (nothing is written): the snapshot's
 * and the journal's beyond it. What a restart would serve; for tests and the benchmark's kill -9 check.
 */
export function readFileStore(path: string): Pet[] {
  const snapshot = JSON.parse(readFileSync(path, 'utf8')) as Database;
  let journal = '';
  try {
    journal = readFileSync(`${path}.journal`, 'utf8');
  } catch {
    // no journal yet
  }
  const pieces = journal.split('\n');
  const lines = pieces.slice(0, -1).map((line) => JSON.parse(line) as Pet);
  // A whole pet without its newline is kept by a restart too (pet-journal.ts); a torn line is not.
  let tail: unknown;
  try {
    tail = JSON.parse(pieces.at(-1)!);
  } catch {
    tail = undefined;
  }
  if (isStoredPet(tail)) lines.push(tail);
  let last = snapshot.nextId - 1;
  const later = lines.filter((pet) => pet.id > last && (last = pet.id) > 0);
  return [...snapshot.pets, ...later];
}
