import { open, readFile, rename, unlink } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { KitError } from '../../lib/errors.ts';

/** The database file exists but cannot be used. It is never overwritten. */
export class CorruptDatabaseError extends KitError {
  constructor(
    readonly path: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('corrupt_database', `The database file ${path} cannot be used: ${reason}. It was left untouched; repair or move it, then start again.`, options);
  }
}

/**
 * The disk refused to make a write durable (ENOSPC, EROFS, EACCES, EIO...). Nothing the write was
 * for is kept or shown; what was durable before stays so. `reason` is short enough for /healthz.
 */
export class StorageUnavailableError extends KitError {
  readonly errno: string;
  readonly reason: string;

  constructor(
    readonly path: string,
    readonly operation: string,
    cause: unknown,
  ) {
    const errno = String((cause as NodeJS.ErrnoException).code ?? 'EIO');
    const reason = `storage: ${errno} ${operation}`;
    super('storage_unavailable', `${reason} (${path}): ${(cause as Error).message}`, { cause });
    this.errno = errno;
    this.reason = reason;
  }
}

/** Whether `error` is the file system refusing a write (it carries an errno code), not a bug. */
export function isStorageFailure(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | null)?.code === 'string' && /^E[A-Z]+$/.test((error as NodeJS.ErrnoException).code!);
}

const settled = () => undefined;

interface Pending<T> {
  data: T;
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A lowdb adapter whose writes survive a crash: a temporary file fsync'd, renamed over the database, the
 * folder fsync'd, so a crash mid-write leaves the previous file whole. Calls made during a write share
 * the next one: N concurrent creates cost two file writes, each resolved once its change is on disk.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  readonly #path: string;
  readonly #tempPath: string;
  readonly #serialize: (data: T) => string | Buffer[];
  #inFlight: Promise<void> | null = null;
  #next: Pending<T> | null = null;
  #writes = 0;

  /** `serialize` turns the data into the file's text or bytes; JSON.stringify unless the caller knows better. */
  constructor(path: string, serialize: (data: T) => string | Buffer[] = (data) => JSON.stringify(data)) {
    this.#path = path;
    this.#serialize = serialize;
    this.#tempPath = join(dirname(path), `.${basename(path)}.tmp`);
    mkdirSync(dirname(path), { recursive: true });
  }

  /** File writes completed so far (each may acknowledge many calls to write()). */
  get writesCompleted(): number {
    return this.#writes;
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new CorruptDatabaseError(this.#path, `it cannot be read (${(error as Error).message})`, { cause: error });
    }
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new CorruptDatabaseError(this.#path, `it is not valid JSON (${(error as Error).message})`, { cause: error });
    }
  }

  write(data: T): Promise<void> {
    if (!this.#inFlight) return this.#start(data);
    if (this.#next) {
      this.#next.data = data;
      return this.#next.promise;
    }
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.#next = { data, promise, resolve, reject };
    return promise;
  }

  /** Resolves once every write asked for so far is on disk. */
  async flush(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
  }

  #start(data: T): Promise<void> {
    // Serialised now, synchronously: the write holds exactly the changes made before this call.
    const text = this.#serialize(data);
    const written = this.#persist(text);
    // The caller gets the outcome through `written`; the tracker only needs to know it settled.
    this.#inFlight = written.then(settled, settled).then(() => {
      this.#inFlight = null;
      const next = this.#next;
      this.#next = null;
      if (next) this.#start(next.data).then(next.resolve, next.reject);
    });
    return written;
  }

  async #persist(content: string | Buffer[]): Promise<void> {
    try {
      await this.#replace(content);
    } catch (error) {
      // A half-written temporary file on a full disk holds the space the next try needs.
      await unlink(this.#tempPath).catch(() => undefined);
      throw isStorageFailure(error) ? new StorageUnavailableError(this.#path, 'writing the snapshot', error) : error;
    }
  }

  async #replace(content: string | Buffer[]): Promise<void> {
    const file = await open(this.#tempPath, 'w', 0o600);
    try {
      if (typeof content === 'string') {
        await file.writeFile(content, 'utf8');
      } else {
        const total = content.reduce((sum, chunk) => sum + chunk.length, 0);
        const { bytesWritten } = await file.writev(content);
        if (bytesWritten < total) await file.writeFile(Buffer.concat(content).subarray(bytesWritten));
      }
      await file.datasync();
    } finally {
      await file.close();
    }
    await rename(this.#tempPath, this.#path);
    this.#writes += 1;
    const folder = await open(dirname(this.#path), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }
}
