// The file store's journal: each create appends one JSON line, and is acknowledged once the line is
// on disk (fdatasync). Rewriting the whole database file for every group of creates made a create
// cost a write of the whole store; a journal line costs its own 100 bytes. The store folds the
// journal into its snapshot (db.json, written through lowdb's durable adapter) now and then.
//
// Appends are grouped: while one write is on its way to disk, further appends wait for one next
// write together. A checkpoint runs alone in the same queue: no append can land between the
// snapshot it writes and the truncation of the journal that follows.
import { open, type FileHandle } from 'node:fs/promises';
import { CorruptDatabaseError } from './durable-json-file.ts';
import type { Pet } from '../types.ts';

interface Waiting {
  resolve: () => void;
  reject: (error: unknown) => void;
}

type Operation = { kind: 'append'; line: string; waiting: Waiting } | { kind: 'checkpoint'; write: () => Promise<void>; waiting: Waiting };

export interface Replayed {
  /** Pets the journal holds beyond the snapshot, in id order. */
  pets: Pet[];
  /** A last line cut short by a crash (never acknowledged) was dropped. */
  droppedTail: boolean;
}

function isPet(value: unknown): value is Pet {
  const p = value as Partial<Pet> | null;
  return typeof p === 'object' && p !== null && Number.isSafeInteger(p.id) && (p.id as number) >= 1 && typeof p.name === 'string' && Number.isSafeInteger(p.categoryId) && typeof p.status === 'string';
}

export class PetJournal {
  readonly #file: FileHandle;
  #bytes: number;
  #queue: Operation[] = [];
  #running = false;

  private constructor(file: FileHandle, bytes: number) {
    this.#file = file;
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
        if (!isPet(pet)) throw new CorruptDatabaseError(path, `line ${index + 1} of the journal is not a pet`);
        goodBytes += Buffer.byteLength(line) + 1;
        if (pet.id < snapshotNextId) continue;
        if (pet.id <= last) throw new CorruptDatabaseError(path, `line ${index + 1} of the journal repeats or goes back to id ${pet.id}`);
        last = pet.id;
        pets.push(pet);
      }
      // A line without its newline was being written when the process died: never acknowledged.
      const droppedTail = tail !== '';
      if (droppedTail) await file.truncate(goodBytes);
      return { journal: new PetJournal(file, goodBytes), replayed: { pets, droppedTail } };
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** Bytes in the journal now: the store checkpoints when it has grown enough. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Resolves once the pet's line is on disk. */
  append(pet: Pet): Promise<void> {
    return this.#enqueue((waiting) => ({ kind: 'append', line: `${JSON.stringify(pet)}\n`, waiting }));
  }

  /**
   * Runs `writeSnapshot` alone (appends wait), and once it resolved (the snapshot is durable)
   * empties the journal. What the snapshot holds is what was in memory when it was serialized.
   */
  checkpoint(writeSnapshot: () => Promise<void>): Promise<void> {
    return this.#enqueue((waiting) => ({ kind: 'checkpoint', write: writeSnapshot, waiting }));
  }

  /** Waits for everything queued, then closes the file. */
  async close(): Promise<void> {
    await this.#enqueue((waiting) => ({ kind: 'checkpoint', write: async () => undefined, waiting })).catch(() => undefined);
    await this.#file.close();
  }


  #enqueue(make: (waiting: Waiting) => Operation): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push(make({ resolve, reject }));
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#queue.length > 0) {
      const first = this.#queue[0]!;
      if (first.kind === 'checkpoint') {
        this.#queue.shift();
        await this.#settle([first.waiting], async () => {
          await first.write();
          await this.#file.truncate(0);
          await this.#file.datasync();
          this.#bytes = 0;
        });
        continue;
      }
      // Every append queued before the next checkpoint goes in this one write.
      const end = this.#queue.findIndex((op) => op.kind === 'checkpoint');
      const group = this.#queue.splice(0, end < 0 ? this.#queue.length : end) as Array<Extract<Operation, { kind: 'append' }>>;
      const bytes = Buffer.from(group.map((op) => op.line).join(''));
      await this.#settle(
        group.map((op) => op.waiting),
        async () => {
          try {
            let written = 0;
            while (written < bytes.length) written += (await this.#file.write(bytes, written)).bytesWritten;
            await this.#file.datasync();
            this.#bytes += bytes.length;
          } catch (error) {
            // Never leave half a line for the next append to continue.
            await this.#file.truncate(this.#bytes).catch(() => undefined);
            throw error;
          }
        },
      );
    }
    this.#running = false;
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
