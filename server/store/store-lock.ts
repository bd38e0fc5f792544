// One process per file store, as PostgreSQL's postmaster.pid does: two servers on one db.json hand out
// the same ids. The lock (db.json.lock) names its holder and appears whole (a hard link of a written
// file); a holder dead on this host is stale and taken over, one on another host never (it cannot be
// seen from here).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { KitError } from '../../lib/errors.ts';
import { running } from '../../lib/processes.ts';

export interface LockHolder {
  pid: number;
  hostname: string;
  /** ISO 8601: when it took the lock. */
  startedAt: string;
  /** Tells two holders apart even when a pid is reused. */
  token: string;
}

/** Another live process holds the file store. Nothing was read or written. */
export class StoreLockedError extends KitError {
  constructor(
    readonly path: string,
    readonly holder: LockHolder,
  ) {
    super(
      'store_locked',
      `The database file ${path} is in use by process ${holder.pid} on ${holder.hostname} (since ${holder.startedAt}; lock ${path}.lock). ` +
        'A file store belongs to one process: stop that one first, or share pets between processes with PostgreSQL (--database).',
    );
  }
}

/** Jiffies per second of /proc/<pid>/stat's start time: 100 on every Linux Node runs on. */
const CLOCK_TICKS = 100;

/** When `pid` started (epoch ms), read from /proc; undefined where that cannot be read. */
function processStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + (ticks * 1000) / CLOCK_TICKS : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder cannot be running any more: on this host, and its pid is gone, or was reused
 * by a process that started after the lock was taken (a container restarted with the same pid).
 */
function isStale(holder: LockHolder): boolean {
  if (holder.hostname !== hostname()) return false;
  if (holder.pid === process.pid) return !HELD.has(holder.token);
  if (!running(holder.pid)) return true;
  const started = processStartMs(holder.pid);
  // A second of slack: /proc/stat's boot time is in whole seconds.
  return started !== undefined && started > Date.parse(holder.startedAt) + 1000;
}

/** Tokens of the locks this process holds. */
const HELD = new Set<string>();

function parseHolder(text: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isSafeInteger(holder.pid) && typeof holder.hostname === 'string' && typeof holder.startedAt === 'string' && typeof holder.token === 'string')
      return holder as LockHolder;
  } catch {
    // not a lock this kit wrote
  }
  return undefined;
}

async function readHolder(path: string): Promise<LockHolder | undefined | null> {
  try {
    return parseHolder(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes `text` to a new file at `path` and makes it durable. */
async function writeDurably(path: string, text: string): Promise<void> {
  const file = await open(path, 'wx', 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
}

export class StoreLock {
  readonly #path: string;
  readonly #holder: LockHolder;

  private constructor(path: string, holder: LockHolder) {
    this.#path = path;
    this.#holder = holder;
  }

  /**
   * Takes the lock of the database at `databasePath`, or rejects with StoreLockedError naming the
   * live holder. A stale lock is replaced by renaming a new one over it, under a second lock
   * (db.json.lock.takeover) so that two processes finding it stale cannot both win.
   */
  static async acquire(databasePath: string): Promise<StoreLock> {
    const path = `${databasePath}.lock`;
    const holder: LockHolder = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), token: randomBytes(8).toString('hex') };
    const text = `${JSON.stringify(holder)}\n`;
    const temp = `${path}.${holder.token}.tmp`;
    await writeDurably(temp, text);
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          await link(temp, path);
          return StoreLock.#won(path, holder);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const current = await readHolder(path);
        if (current === null) continue; // released meanwhile: try again
        if (current !== undefined && !isStale(current)) throw new StoreLockedError(databasePath, current);
        if (await StoreLock.#takeOver(path, temp, current)) return StoreLock.#won(path, holder);
        // Another process took it over first, or is doing so: look again at who holds it.
        await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
      }
      const current = await readHolder(path);
      if (current) throw new StoreLockedError(databasePath, current);
      throw new KitError('store_locked', `The lock ${path} could not be taken: it changed hands while this process tried; start again.`);
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  /** Replaces the stale lock `seen` by the one written at `temp`, if it is still the one there. */
  static async #takeOver(path: string, temp: string, seen: LockHolder | undefined): Promise<boolean> {
    const guard = `${path}.takeover`;
    try {
      await writeDurably(guard, String(process.pid));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A takeover whose process died half way would block every start: it is stale after a while.
      const owner = Number(await readFile(guard, 'utf8').catch(() => 'NaN'));
      if (!Number.isSafeInteger(owner) || !running(owner)) await unlink(guard).catch(() => undefined);
      return false;
    }
    try {
      const current = await readHolder(path);
      // Gone meanwhile (its owner stopped) or replaced: the caller looks again.
      const unchanged = current !== null && (current === undefined ? seen === undefined : current.token === seen?.token);
      if (!unchanged) return false;
      // rename() replaces the stale lock in one step: there is never a moment without a lock.
      await rename(temp, path);
      return true;
    } finally {
      await unlink(guard).catch(() => undefined);
    }
  }

  static async #won(path: string, holder: LockHolder): Promise<StoreLock> {
    const folder = await open(dirname(path), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
    const current = await readHolder(path);
    if (current?.token !== holder.token) throw new StoreLockedError(path.replace(/\.lock$/, ''), current ?? holder);
    HELD.add(holder.token);
    return new StoreLock(path, holder);
  }

  get holder(): LockHolder {
    return this.#holder;
  }

  /** Removes the lock if it is still this process's. */
  async release(): Promise<void> {
    HELD.delete(this.#holder.token);
    const current = await readHolder(this.#path).catch(() => undefined);
    if (current?.token === this.#holder.token) await unlink(this.#path).catch(() => undefined);
  }
}
