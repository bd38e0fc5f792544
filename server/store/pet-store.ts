import { readFileSync } from 'node:fs';
import { Low, Memory, type Adapter } from 'lowdb';
import { UsageError } from '../../lib/errors.ts';
import { CorruptDatabaseError, DurableJsonFile } from './durable-json-file.ts';
import { PetJournal } from './pet-journal.ts';
import type { NewPet, Pet, PetStatus } from '../types.ts';

/** The database as it is kept in memory and on disk. */
export interface Database {
  /** The next id to assign. Persisted so that ids are never reused, even after the newest pet goes. */
  nextId: number;
  /** Sorted by ascending id: ids only grow, so appending keeps the order. */
  pets: Pet[];
}

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
  list(query: ListQuery): Promise<ListResult>;
  get(id: number): Promise<Pet | undefined>;
  /** Resolves once the new pet is durable in the store. */
  create(pet: Required<NewPet>): Promise<Pet>;
  /** Replaces every pet (admin reset). The id counter never goes back. */
  reset(pets: readonly Pet[]): Promise<void>;
  /** How many pets the store holds. */
  count(): Promise<number>;
  close(): Promise<void>;
}

export type StorageOptions =
  | { type: 'memory' }
  | { type: 'file'; path: string }
  /** `url`: postgres://user:password@host:5432/database[?schema=name]; `schema` wins over ?schema=. */
  | { type: 'postgres'; url: string; schema?: string };

function checkDatabase(data: unknown, path: string): Database {
  const db = data as Partial<Database> | null;
  if (typeof db !== 'object' || db === null || Array.isArray(db)) throw new CorruptDatabaseError(path, 'it does not hold a JSON object');
  if (!Number.isSafeInteger(db.nextId) || (db.nextId as number) < 1) throw new CorruptDatabaseError(path, '"nextId" is not a positive integer');
  if (!Array.isArray(db.pets)) throw new CorruptDatabaseError(path, '"pets" is not an array');
  let previous = 0;
  for (const [index, pet] of db.pets.entries()) {
    const valid =
      typeof pet === 'object' &&
      pet !== null &&
      Number.isSafeInteger(pet.id) &&
      pet.id > previous &&
      pet.id < (db.nextId as number) &&
      typeof pet.name === 'string' &&
      Number.isSafeInteger(pet.categoryId) &&
      typeof pet.status === 'string';
    if (!valid) throw new CorruptDatabaseError(path, `pets[${index}] is not a valid pet in ascending id order below "nextId"`);
    previous = pet.id;
  }
  return db as Database;
}

const PETS_TAIL = Buffer.from(']}');

/**
 * Serialises the database for the file as a few buffers, reusing the bytes of the pets it has
 * already serialised. Pets are only ever appended (ids grow, nothing edits a stored pet), so each
 * grouped write encodes only the pets created since the last one and hands the file the same bytes
 * again, instead of stringifying, flattening and re-encoding the whole store: at 10,000 pets that
 * was a fifth of the CPU of a create (npm run bench). Anything else (a reset replaces the array, a
 * rolled-back create calls `forget()`) makes the next write start over.
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

function seedDatabase(pets: readonly Pet[]): Database {
  const sorted = [...pets].sort((a, b) => a.id - b.id).map((p) => ({ ...p }));
  const maxId = sorted.reduce((max, p) => Math.max(max, p.id), 0);
  return { nextId: maxId + 1, pets: sorted };
}

/** Index of the first pet whose id is greater than `id`. */
function indexAfter(pets: readonly Pet[], id: number): number {
  let low = 0;
  let high = pets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (pets[mid]!.id <= id) low = mid + 1;
    else high = mid;
  }
  return low;
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
  const lines = journal.split('\n').slice(0, -1).map((line) => JSON.parse(line) as Pet);
  let last = snapshot.nextId - 1;
  const later = lines.filter((pet) => pet.id > last && (last = pet.id) > 0);
  return [...snapshot.pets, ...later];
}

/** The journal is folded into the snapshot once it holds this much (about 20,000 pets). */
const CHECKPOINT_BYTES = 2 * 1024 * 1024;

/**
 * A PetStore over lowdb: the whole database in memory. In a file, the snapshot (db.json) is written
 * through lowdb's adapter and every create is a line of the journal beside it (pet-journal.ts),
 * folded into the snapshot at start, when it has grown, and on close.
 */
export class LowPetStore implements PetStore {
  readonly #db: Low<Database>;
  readonly #adapter: Adapter<Database>;
  readonly #serializer: DatabaseSerializer;
  readonly #journal: PetJournal | undefined;
  #byId = new Map<number, Pet>();
  #checkpoint: Promise<void> | null = null;

  private constructor(db: Low<Database>, adapter: Adapter<Database>, serializer: DatabaseSerializer, journal?: PetJournal) {
    this.#db = db;
    this.#adapter = adapter;
    this.#serializer = serializer;
    this.#journal = journal;
    this.#reindex();
  }

  /** Opens the store, seeding it with `seed` when it holds nothing yet. A corrupt file is refused, never overwritten. */
  static async open(storage: StorageOptions, seed: readonly Pet[]): Promise<LowPetStore> {
    // Callers that may be handed any storage go through openPetStore (open.ts).
    if (storage.type === 'postgres') throw new UsageError('LowPetStore keeps pets in memory or in a file; open a PostgreSQL store with openPetStore().');
    const serializer = new DatabaseSerializer();
    const adapter: Adapter<Database> =
      storage.type === 'file' ? new DurableJsonFile<Database>(storage.path, (data) => serializer.serialize(data)) : new Memory<Database>();
    const db = new Low<Database>(adapter, seedDatabase([]));
    const existing = await adapter.read();
    if (existing === null) {
      db.data = seedDatabase(seed);
      await db.write();
    } else {
      db.data = checkDatabase(existing, storage.type === 'file' ? storage.path : '(memory)');
    }
    if (storage.type !== 'file') return new LowPetStore(db, adapter, serializer);
    const { journal, replayed } = await PetJournal.open(`${storage.path}.journal`, db.data.nextId);
    const store = new LowPetStore(db, adapter, serializer, journal);
    if (replayed.pets.length > 0) {
      for (const pet of replayed.pets) store.#add(pet);
      db.data.nextId = replayed.pets.at(-1)!.id + 1;
      await store.#foldJournal();
    }
    return store;
  }

  async list({ limit, status, afterId = 0 }: ListQuery): Promise<ListResult> {
    const all = this.#db.data.pets;
    const pets: Pet[] = [];
    for (let i = indexAfter(all, afterId); i < all.length; i++) {
      const pet = all[i]!;
      if (status && pet.status !== status) continue;
      if (pets.length === limit) return { pets, hasMore: true };
      pets.push(pet);
    }
    return { pets, hasMore: false };
  }

  async get(id: number): Promise<Pet | undefined> {
    return this.#byId.get(id);
  }

  async create(input: Required<NewPet>): Promise<Pet> {
    const data = this.#db.data;
    const pet: Pet = { id: data.nextId, name: input.name, categoryId: input.categoryId, status: input.status };
    data.nextId += 1;
    this.#add(pet);
    try {
      if (this.#journal) {
        await this.#journal.append(pet);
        if (this.#journal.bytes >= CHECKPOINT_BYTES && !this.#checkpoint) {
          // In the background: the pet is durable already, and a failed fold loses nothing.
          this.#checkpoint = this.#foldJournal()
            .catch(() => undefined)
            .finally(() => (this.#checkpoint = null));
        }
      } else {
        await this.#db.write();
      }
    } catch (error) {
      // Not acknowledged, so not kept: the pet goes, its id stays used.
      const index = data.pets.lastIndexOf(pet);
      if (index >= 0) data.pets.splice(index, 1);
      this.#byId.delete(pet.id);
      this.#serializer.forget();
      throw error;
    }
    return pet;
  }

  async reset(pets: readonly Pet[]): Promise<void> {
    const seeded = seedDatabase(pets);
    this.#db.data = { nextId: Math.max(seeded.nextId, this.#db.data.nextId), pets: seeded.pets };
    this.#reindex();
    if (this.#journal) await this.#foldJournal();
    else await this.#db.write();
  }

  async count(): Promise<number> {
    return this.#db.data.pets.length;
  }

  async close(): Promise<void> {
    if (this.#journal) {
      await this.#checkpoint;
      await this.#foldJournal().catch(() => undefined);
      await this.#journal.close();
    }
    if (this.#adapter instanceof DurableJsonFile) await this.#adapter.flush();
  }

  #add(pet: Pet): void {
    this.#db.data.pets.push(pet);
    this.#byId.set(pet.id, pet);
  }

  /** Writes the snapshot of everything in memory, then empties the journal (in the journal's queue). */
  #foldJournal(): Promise<void> {
    return this.#journal!.checkpoint(() => this.#db.write());
  }

  #reindex(): void {
    this.#byId = new Map(this.#db.data.pets.map((p) => [p.id, p]));
  }
}
