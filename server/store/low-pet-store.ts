import { open as openFile, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Low, Memory, type Adapter } from 'lowdb';
import { UsageError } from '../../lib/errors.ts';
import { SystemClock, type Clock } from '../clock.ts';
import { checkDatabase, DatabaseSerializer, seedDatabase, type Database } from './database-file.ts';
import { DurableJsonFile, isStorageFailure, StorageUnavailableError } from './durable-json-file.ts';
import { checkPetIds, ID_SPACE_SPENT, IdSpaceExhaustedError, LAST_ID } from './id-space.ts';
import { PetJournal } from './pet-journal.ts';
import type { ListQuery, ListResult, PetStore, StorageOptions, StoreLog, StoreOptions } from './pet-store.ts';
import { StoreLock } from './store-lock.ts';
import type { NewPet, Pet } from '../types.ts';

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

/** The journal is folded into the snapshot once it holds this much (about 20,000 pets). */
const CHECKPOINT_BYTES = 2 * 1024 * 1024;
/** After a failed fold, the next one waits until the journal has grown this much more. */
const CHECKPOINT_RETRY_BYTES = 256 * 1024;
/** A failing store writes a probe to see whether the disk takes writes again at most this often. */
const PROBE_INTERVAL_MS = 1000;
/** One page: what a new line of the journal may need. */
const PROBE_BYTES = 4096;

/** What only a file store has: the journal, the lock, and the clock that paces its checks. */
interface FileParts {
  path: string;
  journal: PetJournal;
  lock: StoreLock;
  clock: Clock;
}

/**
 * A PetStore over lowdb: the whole database in memory. In a file, the snapshot (db.json) is written
 * through lowdb's adapter and every create is a line of the journal beside it (pet-journal.ts),
 * folded into the snapshot at start, when it has grown, and on close.
 */
export class LowPetStore implements PetStore {
  readonly #db: Low<Database>;
  readonly #adapter: Adapter<Database>;
  readonly #file: FileParts | undefined;
  #byId = new Map<number, Pet>();
  #checkpoint: Promise<void> | null = null;
  /** Journal size from which the next fold starts; raised after a failed one. */
  #checkpointAt = CHECKPOINT_BYTES;
  /** The disk's last refusal, until a write succeeds again. */
  #failing: StorageUnavailableError | null = null;
  #nextProbeAt = 0;
  readonly #log: StoreLog;
  #toldSpent = false;

  private constructor(db: Low<Database>, adapter: Adapter<Database>, log: StoreLog, file?: FileParts) {
    this.#db = db;
    this.#adapter = adapter;
    this.#log = log;
    this.#file = file;
    this.#reindex();
  }

  /**
   * Opens the store, seeding it with `seed` when it holds nothing yet. A corrupt file is refused,
   * never overwritten; a file another live process holds is refused (StoreLockedError).
   */
  static async open(storage: StorageOptions, seed: readonly Pet[], options: StoreOptions = {}): Promise<LowPetStore> {
    // Callers that may be handed any storage go through openPetStore (open.ts).
    if (storage.type === 'postgres') throw new UsageError('LowPetStore keeps pets in memory or in a file; open a PostgreSQL store with openPetStore().');
    // Refused whether or not the store is new: a seed that could never be stored is a wrong option either way.
    checkPetIds(seed, 'The pets to store');
    if (storage.type === 'memory') {
      const adapter = new Memory<Database>();
      const db = new Low<Database>(adapter, seedDatabase(seed));
      return new LowPetStore(db, adapter, options.log ?? (() => undefined));
    }
    const serializer = new DatabaseSerializer();
    const adapter = new DurableJsonFile<Database>(storage.path, (data) => serializer.serialize(data));
    const lock = await StoreLock.acquire(storage.path);
    let journal: PetJournal | undefined;
    try {
      const db = new Low<Database>(adapter, seedDatabase([]));
      const existing = await adapter.read();
      if (existing === null) {
        db.data = seedDatabase(seed);
        await db.write();
      } else {
        db.data = checkDatabase(existing, storage.path);
      }
      const clock = options.clock ?? new SystemClock();
      const log = options.log ?? (() => undefined);
      const opened = await PetJournal.open(`${storage.path}.journal`, db.data.nextId, { log, now: () => clock.now() });
      journal = opened.journal;
      const store = new LowPetStore(db, adapter, log, { path: storage.path, journal, lock, clock });
      const { pets, tail } = opened.replayed;
      for (const pet of pets) store.#add(pet);
      // Nor is the id of a line cut short given again: the disk may have lost the end of a line it
      // had acknowledged, and a client holding that id must never find another pet behind it. Its
      // bytes stay in the journal until this fold's snapshot, counting past the id, is durable.
      const highest = Math.max(pets.at(-1)?.id ?? 0, tail?.kept === false ? (tail.id ?? 0) : 0);
      if (highest >= db.data.nextId) {
        db.data.nextId = highest + 1;
        // The journal stays the truth if the fold fails: the store serves from it and says it is failing.
        await store.#foldJournal().catch((error: unknown) => store.#failed(error));
      }
      return store;
    } catch (error) {
      await journal?.close();
      await lock.release();
      throw error;
    }
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
    // The id is taken when the pet's line is about to be written, in journal order.
    const build = (): Pet => ({ id: this.#takeId(), name: input.name, categoryId: input.categoryId, status: input.status });
    if (!this.#file) {
      const pet = build();
      this.#add(pet);
      return pet;
    }
    const { journal } = this.#file;
    let pet: Pet;
    try {
      // Visible to readers only once its line is on disk: nobody sees a pet a crash could take back.
      pet = await journal.append(build, (durable) => this.#add(durable));
    } catch (error) {
      this.#failed(error);
      throw error;
    }
    this.#recovered();
    if (journal.bytes >= this.#checkpointAt && !this.#checkpoint) {
      // In the background: the pet is durable already, and a failed fold keeps the journal.
      this.#checkpoint = this.#foldJournal()
        .then(() => {
          this.#checkpointAt = CHECKPOINT_BYTES;
        })
        .catch((error: unknown) => {
          this.#checkpointAt = journal.bytes + CHECKPOINT_RETRY_BYTES;
          this.#failed(error);
        })
        .finally(() => (this.#checkpoint = null));
    }
    return pet;
  }

  async reset(pets: readonly Pet[]): Promise<void> {
    const seeded = seedDatabase(pets);
    this.#db.data = { nextId: Math.max(seeded.nextId, this.#db.data.nextId), pets: seeded.pets };
    this.#reindex();
    if (this.#file) await this.#foldJournal();
    else await this.#db.write();
  }

  async count(): Promise<number> {
    return this.#db.data.pets.length;
  }

  async failure(): Promise<string | undefined> {
    if (!this.#failing || !this.#file) return undefined;
    const now = this.#file.clock.now();
    if (now >= this.#nextProbeAt) {
      this.#nextProbeAt = now + PROBE_INTERVAL_MS;
      if (await this.#probe()) this.#recovered();
    }
    return this.#failing?.reason;
  }

  /**
   * Folds the journal into the snapshot and closes the files. When the snapshot cannot be written,
   * the journal is left as it is (the next start replays it) and this rejects with the reason.
   */
  async close(): Promise<void> {
    if (!this.#file) return;
    const { journal, lock } = this.#file;
    let failure: unknown;
    try {
      await this.#checkpoint;
      await this.#foldJournal();
    } catch (error) {
      failure = error;
    }
    await journal.close();
    if (this.#adapter instanceof DurableJsonFile) await this.#adapter.flush();
    await lock.release();
    if (failure !== undefined) throw failure;
  }

  /** The next id, or IdSpaceExhaustedError once LAST_ID was handed out: the counter stops at SPENT. */
  #takeId(): number {
    const id = this.#db.data.nextId;
    if (id >= LAST_ID) this.#tellSpent();
    if (id > LAST_ID) throw new IdSpaceExhaustedError();
    this.#db.data.nextId = id + 1;
    return id;
  }

  /** Once per process: one line per refused create would flood the log. */
  #tellSpent(): void {
    if (this.#toldSpent) return;
    this.#toldSpent = true;
    this.#log('error', ID_SPACE_SPENT);
  }

  #add(pet: Pet): void {
    this.#db.data.pets.push(pet);
    this.#byId.set(pet.id, pet);
  }

  /** Writes the snapshot of everything in memory, then empties the journal (in the journal's queue). */
  #foldJournal(): Promise<void> {
    return this.#file!.journal.checkpoint(() => this.#db.write());
  }

  /** Remembers a refusal of the disk for /healthz; anything else is not the disk's doing. */
  #failed(error: unknown): void {
    if (!(error instanceof StorageUnavailableError)) return;
    if (this.#failing?.reason !== error.reason) this.#log('error', `${error.message}; writes are refused with 503 until the disk takes them again`);
    this.#failing = error;
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#log('info', `storage takes writes again (after ${this.#failing.reason})`);
    this.#failing = null;
  }

  /** Whether the data folder takes a durable write again: a page written, synced and removed. */
  async #probe(): Promise<boolean> {
    const path = join(dirname(this.#file!.path), `.${basename(this.#file!.path)}.probe`);
    try {
      const file = await openFile(path, 'w', 0o600);
      try {
        await file.write(Buffer.alloc(PROBE_BYTES));
        await file.datasync();
      } finally {
        await file.close();
      }
      return true;
    } catch (error) {
      if (!isStorageFailure(error)) throw error;
      return false;
    } finally {
      await unlink(path).catch(() => undefined);
    }
  }

  #reindex(): void {
    this.#byId = new Map(this.#db.data.pets.map((p) => [p.id, p]));
  }
}
