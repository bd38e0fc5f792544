// The file store's journal: one JSON line per create, acknowledged once on disk (fdatasync), folded
// into the snapshot now and then; a torn last line is handled as server/README.md's Decisions say.
// Appends are grouped and take their ids in the queue, so ids reach the journal in order; a checkpoint
// runs alone in that queue, so no append lands between its snapshot and the journal's truncation.
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CorruptDatabaseError, isStorageFailure, StorageUnavailableError } from './durable-json-file.ts';
import type { StoreLog } from './pet-store.ts';
import type { Pet } from '../types.ts';
import { isId } from './id-space.ts';
import { isStoredPet } from './stored-pet.ts';

interface Waiting {
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Append {
  kind: 'append';
  /** Takes the next id: called when the pet's group is formed. Throws when no id is left (the create is refused). */
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
  /** What the start did with a last line that had no newline (a write cut short by a crash), if there was one. */
  tail?: TailRecovery;
}

/** A last line without its newline, and what became of it. */
export type TailRecovery =
  /** A whole pet that continues the journal: kept, and the newline added. */
  | { kept: true; bytes: number; pet: Pet }
  /**
   * Anything else: cut from the journal, its bytes kept in `sideFile` unless that could not be
   * written. `id`: the pet whose line it began, when it reads as one; the store never gives it again.
   */
  | { kept: false; bytes: number; sideFile: string | null; id?: number };

export interface JournalOptions {
  /** Told what a start did with a torn last line. */
  log: StoreLog;
  /** Epoch milliseconds, for the name of the file that keeps a dropped tail. */
  now: () => number;
}

const NEWLINE = Buffer.from('\n');
/** Bytes of a dropped tail quoted in the log line: a glimpse, the side file has them all. */
const PREVIEW_BYTES = 80;

export class PetJournal {
  readonly #file: FileHandle;
  readonly #path: string;
  #bytes: number;
  /** A failed write may have left part of a line that truncating could not remove yet. */
  #torn = false;
  /** The last line is a whole pet whose newline the disk refused at start: the next write adds it. */
  #unterminated: boolean;
  #queue: Operation[] = [];
  #running = false;
  /** Called once the queue has run dry: close() waits for it. */
  #drained: (() => void) | null = null;

  /**
   * `bytes`: where the journal's lines end. `unterminated`: see the field. `torn`: the file holds more
   * than `bytes` (a refused newline, or a tail whose cut waits for a durable snapshot), to be cut
   * before the next line is written; a checkpoint empties the file anyway.
   */
  private constructor(file: FileHandle, path: string, bytes: number, state: { unterminated?: boolean; torn?: boolean } = {}) {
    this.#file = file;
    this.#path = path;
    this.#bytes = bytes;
    this.#unterminated = state.unterminated ?? false;
    this.#torn = state.torn ?? this.#unterminated;
  }

  /**
   * Lines for pets the snapshot already has are skipped: a crash between a checkpoint's snapshot and
   * its truncation leaves them. Damage other than a torn last line is a CorruptDatabaseError.
   */
  static async open(path: string, snapshotNextId: number, options: JournalOptions): Promise<{ journal: PetJournal; replayed: Replayed }> {
    const file = await open(path, 'a+', 0o600);
    try {
      const content = await file.readFile();
      const goodBytes = content.lastIndexOf(NEWLINE) + 1;
      const lines = content.subarray(0, goodBytes).toString('utf8').split('\n');
      lines.pop();
      const pets: Pet[] = [];
      let last = snapshotNextId - 1;
      /** Why `value` cannot be the journal's next line, or undefined when it can (and is then taken). */
      const take = (value: unknown): string | undefined => {
        if (!isStoredPet(value)) return 'is not a pet';
        if (value.id < snapshotNextId) return undefined;
        if (value.id <= last) return `repeats or goes back to id ${value.id}`;
        last = value.id;
        pets.push(value);
        return undefined;
      };
      for (const [index, line] of lines.entries()) {
        const problem = take(parseJson(line));
        if (problem) throw new CorruptDatabaseError(path, `line ${index + 1} of the journal ${problem}`);
      }
      const tailBytes = content.subarray(goodBytes);
      if (tailBytes.length === 0) return { journal: new PetJournal(file, path, goodBytes), replayed: { pets } };

      const tailValue = parseJson(tailBytes.toString('utf8'));
      const problem = take(tailValue);
      if (problem === undefined) {
        // Written whole, so it may have been acknowledged (a disk can lose the last byte of a line
        // synced before); a whole record costs nothing to keep.
        const pet = tailValue as Pet;
        let unterminated = false;
        let note = 'the newline added';
        try {
          await file.write(NEWLINE);
          await file.datasync();
        } catch (error) {
          unterminated = true;
          note = `the newline will be added before the next line (the disk refused it now: ${describe(error)})`;
        }
        options.log(
          unterminated ? 'error' : 'warn',
          `The journal ${path} ended in pet ${pet.id}'s whole line without its newline (${tailBytes.length} bytes, left by a crash); the pet was kept and ${note}.`,
        );
        const bytes = content.length + (unterminated ? 0 : 1);
        // The refused newline may have reached the file without being synced: cut before adding it again.
        return { journal: new PetJournal(file, path, bytes, { unterminated }), replayed: { pets, tail: { kept: true, bytes: tailBytes.length, pet } } };
      }

      // Kept before the journal is cut: a crash in between leaves the tail in both, never in neither.
      const sideFile = `${path}.torn-${new Date(options.now()).toISOString().replace(/:/g, '')}`;
      const kept = await keepBytes(sideFile, tailBytes);
      const id = startedId(tailValue, tailBytes);
      // A tail naming an id past the journal's is the only record that the id was taken: cut before a
      // durable snapshot counts past it (or a later line replaces it), a crash would give the id again.
      const holdsId = id !== undefined && id > last;
      if (!holdsId) {
        await file.truncate(goodBytes);
        await file.datasync();
      }
      const what = `The journal ${path} ended in ${tailBytes.length} bytes without a newline (left by a crash) that ${tailDescription(tailValue, id, problem)}.`;
      const skipped = holdsId ? ` Id ${id} will not be given again.` : '';
      if (typeof kept === 'string') {
        options.log('warn', `${what} They were cut from the journal and kept in ${kept}.${skipped}`);
      } else {
        options.log(
          'error',
          `${what} They were cut from the journal, but could not be kept in ${sideFile} (${describe(kept.error)}); they began ${preview(tailBytes)}.${skipped}`,
        );
      }
      return {
        journal: new PetJournal(file, path, goodBytes, { torn: holdsId }),
        replayed: {
          pets,
          tail: { kept: false, bytes: tailBytes.length, sideFile: typeof kept === 'string' ? kept : null, ...(id === undefined ? {} : { id }) },
        },
      };
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
   * StorageUnavailableError when the disk refused it: the id `build` took is skipped, never reused;
   * with what `build` threw when it refused (IdSpaceExhaustedError), and nothing is written for it.
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
          this.#unterminated = false;
        });
        continue;
      }
      // Every append queued before the next checkpoint goes in this one write.
      const end = this.#queue.findIndex((op) => op.kind === 'checkpoint');
      const queued = this.#queue.splice(0, end < 0 ? this.#queue.length : end) as Append[];
      // A create `build` refuses (no id left) is answered alone; the others of its group go on.
      const group: Append[] = [];
      const pets: Pet[] = [];
      for (const op of queued) {
        try {
          pets.push(op.build());
          group.push(op);
        } catch (error) {
          op.reject(error);
        }
      }
      if (group.length === 0) continue;
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
    if (this.#unterminated) bytes = Buffer.concat([NEWLINE, bytes]);
    try {
      let written = 0;
      while (written < bytes.length) written += (await this.#file.write(bytes, written)).bytesWritten;
      await this.#file.datasync();
      this.#bytes += bytes.length;
      this.#unterminated = false;
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The id of the pet whose line a dropped tail holds or begins (the journal writes `{"id":` first). */
function startedId(value: unknown, bytes: Buffer): number | undefined {
  if (isStoredPet(value)) return value.id;
  const start = /^\{"id":([1-9][0-9]{0,15}),/.exec(bytes.subarray(0, 32).toString('latin1'));
  const id = start ? Number(start[1]) : undefined;
  return isId(id) ? id : undefined;
}

/** What a dropped tail was, for the log: whether it parsed as a pet, and which pet it began. */
function tailDescription(value: unknown, id: number | undefined, problem: string): string {
  if (isStoredPet(value)) return `parse as pet ${value.id}, which ${problem} in the journal`;
  return id === undefined ? 'do not parse as a pet' : `do not parse as a pet: the start of pet ${id}'s line, cut short`;
}

function preview(bytes: Buffer): string {
  const shown = JSON.stringify(bytes.subarray(0, PREVIEW_BYTES).toString('utf8'));
  return bytes.length > PREVIEW_BYTES ? `${shown}...` : shown;
}

function describe(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' ? `${code}: ${String(message)}` : String(message ?? error);
}

/**
 * Writes `bytes` whole to a new file at `path` (or `path.2`, `path.3`... if taken), durably (file and
 * folder synced). Resolves with the path written, or with the error when the disk refused: a start
 * goes on without the copy rather than not at all.
 */
async function keepBytes(path: string, bytes: Buffer): Promise<string | { error: unknown }> {
  for (let attempt = 1; ; attempt++) {
    const target = attempt === 1 ? path : `${path}.${attempt}`;
    let file: FileHandle | undefined;
    try {
      file = await open(target, 'wx', 0o600);
      await file.writeFile(bytes);
      await file.datasync();
      await file.close();
      file = undefined;
      // Its name survives a power loss once the folder is synced; the bytes are in the file either way.
      await syncFolder(dirname(target)).catch(() => undefined);
      return target;
    } catch (error) {
      if (file) {
        await file.close().catch(() => undefined);
        await unlink(target).catch(() => undefined);
      }
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 100) continue;
      return { error };
    }
  }
}

async function syncFolder(path: string): Promise<void> {
  const folder = await open(path, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
