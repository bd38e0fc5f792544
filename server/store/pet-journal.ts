// The file store's journal: each create appends one JSON line, and is acknowledged once the line is
// on disk (fdatasync). Rewriting the whole database file for every group of creates made a create
// cost a write of the whole store; a journal line costs its own 100 bytes. The store folds the
// journal into its snapshot (db.json, written through lowdb's durable adapter) now and then.
//
// Appends are grouped: while one write is on its way to disk, further appends wait for one next
// write together. A pet takes its id when its group is formed, in the queue, so ids reach the
// journal in order and a snapshot written by a checkpoint never counts an id whose line is still
// to come. A checkpoint runs alone in the same queue: no append can land between the snapshot it
// writes and the truncation of the journal that follows, and a snapshot that failed truncates nothing.
import { open, type FileHandle } from 'node:fs/promises';
import { CorruptDatabaseError, isStorageFailure, StorageUnavailableError } from './durable-json-file.ts';
import type { Pet } from '../types.ts';
import { isStoredPet } from './stored-pet.ts';

interface Waiting {
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Append {
  kind: 'append';
  /** Takes the next id: called when the pet's group is formed. */
  build: () => Pet;
  /** Runs once the line is on disk, before the caller hears of it: where the pet becomes visible. */
  durable: (pet: Pet) => void;
  resolve: (pet: Pet) => void;
  reject: (error: unknown) => void;
}

type Operation = Append | { kind: 'checkpoint'; write: () => Promise<void>; waiting: Waiting };

export interface Replayed {
  /** Pets the journal holds beyond the snapshot, in id order. */
  pets: Pet[];
  /** A last line cut short by a crash (never acknowledged) was dropped. */
  droppedTail: boolean;
}

export class PetJournal {
  readonly #file: FileHandle;
  readonly #path: string;
  #bytes: number;
  /** A failed write may have left part of a line that truncating could not remove yet. */
  #torn = false;
  #queue: Operation[] = [];
  #running = false;
  /** Called once the queue has run dry: close() waits for it. */
  #drained: (() => void) | null = null;

  private constructor(file: FileHandle, path: string, bytes: number) {
    this.#file = file;
    this.#path = path;
    this.#bytes = bytes;
  }

  /**
   * Opens (or creates) the journal and reads what it holds beyond `snapshotNextId`: lines for pets
   * the snapshot already has are skipped (a crash between a checkpoint's snapshot and its truncation
   * leaves them). A last line cut short is dropped; any other damage is a CorruptDatabaseError.
   */
  static async open(path: string, snapshotNextId: number): Promise<{ journal: PetJournal; replayed: Replayed }> {
    const file = await open(path, 'a+', 0o600);
    try {
      const text = (await file.readFile()).toString('utf8');
      const lines = text.split('\n');
      const tail = lines.pop()!;
      const pets: Pet[] = [];
      let last = snapshotNextId - 1;
      let goodBytes = 0;
      for (const [index, line] of lines.entries()) {
        let pet: unknown;
        try {
          pet = JSON.parse(line);
        } catch {
          pet = undefined;
        }
        if (!isStoredPet(pet)) throw new CorruptDatabaseError(path, `line ${index + 1} of the journal is not a pet`);
        goodBytes += Buffer.byteLength(line) + 1;
        if (pet.id < snapshotNextId) continue;
        if (pet.id <= last) throw new CorruptDatabaseError(path, `line ${index + 1} of the journal repeats or goes back to id ${pet.id}`);
        last = pet.id;
        pets.push(pet);
      }
      // A line without its newline was being written when the process died: never acknowledged.
      const droppedTail = tail !== '';
      if (droppedTail) await file.truncate(goodBytes);
      return { journal: new PetJournal(file, path, goodBytes), replayed: { pets, droppedTail } };
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** Bytes in the journal now: the store checkpoints when it has grown enough. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Resolves with the pet `build` made once its line is on disk, after `durable` ran. Rejects with
   * StorageUnavailableError when the disk refused it: the id `build` took is skipped, never reused.
   */
  append(build: () => Pet, durable: (pet: Pet) => void): Promise<Pet> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ kind: 'append', build, durable, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  /**
   * Runs `writeSnapshot` alone (appends wait), and once it resolved (the snapshot is durable)
   * empties the journal. What the snapshot holds is what was in memory when it was serialized.
   */
  checkpoint(writeSnapshot: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ kind: 'checkpoint', write: writeSnapshot, waiting: { resolve, reject } });
      if (!this.#running) void this.#drain();
    });
  }

  /** Waits for everything queued, then closes the file as it is: what it holds stays the truth. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (!this.#running) return resolve();
      this.#drained = resolve;
    });
    await this.#file.close();
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#queue.length > 0) {
      const first = this.#queue[0]!;
      if (first.kind === 'checkpoint') {
        this.#queue.shift();
        await this.#settle([first.waiting], async () => {
          // Only once the snapshot holding every line is durable may the lines go.
          await first.write();
          await this.#storage('emptying the journal', async () => {
            await this.#file.truncate(0);
            await this.#file.datasync();
          });
          this.#bytes = 0;
          this.#torn = false;
        });
        continue;
      }
      // Every append queued before the next checkpoint goes in this one write.
      const end = this.#queue.findIndex((op) => op.kind === 'checkpoint');
      const group = this.#queue.splice(0, end < 0 ? this.#queue.length : end) as Append[];
      const pets = group.map((op) => op.build());
      try {
        await this.#storage('writing the journal', () => this.#write(Buffer.from(pets.map((pet) => `${JSON.stringify(pet)}\n`).join(''))));
      } catch (error) {
        for (const op of group) op.reject(error);
        continue;
      }
      for (const [i, op] of group.entries()) op.durable(pets[i]!);
      for (const [i, op] of group.entries()) op.resolve(pets[i]!);
    }
    this.#running = false;
    this.#drained?.();
    this.#drained = null;
  }

  async #write(bytes: Buffer): Promise<void> {
    // Never continue half a line a failed write left behind: the journal must replay line by line.
    if (this.#torn) {
      await this.#file.truncate(this.#bytes);
      this.#torn = false;
    }
    try {
      let written = 0;
      while (written < bytes.length) written += (await this.#file.write(bytes, written)).bytesWritten;
      await this.#file.datasync();
      this.#bytes += bytes.length;
    } catch (error) {
      this.#torn = true;
      await this.#file
        .truncate(this.#bytes)
        .then(() => (this.#torn = false))
        .catch(() => undefined);
      throw error;
    }
  }

  /** Runs `work`, turning a refusal of the disk into a StorageUnavailableError naming `operation`. */
  async #storage(operation: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      throw isStorageFailure(error) ? new StorageUnavailableError(this.#path, operation, error) : error;
    }
  }

  async #settle(waiting: readonly Waiting[], work: () => Promise<void>): Promise<void> {
    try {
      await work();
      for (const w of waiting) w.resolve();
    } catch (error) {
      for (const w of waiting) w.reject(error);
    }
  }
}
