// Concurrent creates on one instance go in groups of one transaction, so the schema's lock costs one
// commit per group. Two may be in flight, the second queued on the lock inside the database, so the
// lock passes from commit to commit without waiting on a busy event loop (server/README.md, Decisions).
import pg from 'pg';
import type { NewPet, Pet } from '../types.ts';
import { COLUMNS, idsLeftQuery, lockStatement, type SchemaNames } from './postgres-schema.ts';

/** Creates grouped into one transaction, at most. */
const MAX_GROUP = 500;
/** Groups sent before the earlier ones commit: one committing, one queued on the lock behind it. */
export const GROUPS_IN_FLIGHT = 2;
/**
 * Creates that must wait before a group goes while another is in flight. A commit costs this
 * process about 200 us of CPU however many creates it holds; second groups of two or three paid it
 * again and again, and kept every later group small (server/README.md, Decisions).
 */
export const SECOND_GROUP_MIN = 16;

export interface PendingCreate {
  input: Required<NewPet>;
  resolve: (pet: Pet) => void;
  reject: (error: unknown) => void;
}

/** The creates asked for and not yet written, sent as groups through `write`. */
export class CreateGroups {
  #queue: PendingCreate[] = [];
  readonly #groups = new Set<Promise<void>>();
  #scheduled = false;
  /** One group's commit, then its answers; never rejects (a failed group rejects each of its creates). */
  readonly #write: (group: readonly PendingCreate[]) => Promise<void>;

  constructor(write: (group: readonly PendingCreate[]) => Promise<void>) {
    this.#write = write;
  }

  add(input: Required<NewPet>): Promise<Pet> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once every create asked for so far was written or refused. */
  async settle(): Promise<void> {
    while (this.#queue.length > 0 || this.#groups.size > 0) {
      if (this.#groups.size > 0) await Promise.allSettled(this.#groups);
      else await new Promise(setImmediate);
    }
  }

  /** A group starts on the next turn of the event loop, so the creates asked in one turn go together. */
  #schedule(): void {
    if (this.#scheduled || !this.#mayStartGroup()) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#startGroups();
    });
  }

  /**
   * Whether what waits may go as a group now: while fewer than GROUPS_IN_FLIGHT are, and a second
   * one only once it is worth a commit (SECOND_GROUP_MIN); the first one's end sends it anyway.
   */
  #mayStartGroup(): boolean {
    const waiting = this.#queue.length;
    return waiting > 0 && this.#groups.size < GROUPS_IN_FLIGHT && (this.#groups.size === 0 || waiting >= SECOND_GROUP_MIN);
  }

  /** Sends what waits, in groups, while fewer than GROUPS_IN_FLIGHT are; each that ends sends the next. */
  #startGroups(): void {
    while (this.#mayStartGroup()) {
      const writing: Promise<void> = this.#write(this.#queue.splice(0, MAX_GROUP)).finally(() => {
        this.#groups.delete(writing);
        this.#startGroups();
      });
      this.#groups.add(writing);
    }
  }
}

/**
 * BEGIN, the lock, the insert and COMMIT as one simple query (the extended protocol takes one statement
 * at a time, hence escaped literals): four round trips fewer. Only as many rows as ids are left: a
 * nextval past MAXVALUE would fail the whole group and use up the last ids for no one.
 */
export function groupInsertStatement(names: SchemaNames, inputs: readonly Required<NewPet>[]): string {
  const values = inputs.map((p, i) => {
    if (!Number.isSafeInteger(p.categoryId)) throw new RangeError(`categoryId ${p.categoryId} is not a safe integer`);
    return `(${pg.escapeLiteral(p.name)}, ${p.categoryId}, ${pg.escapeLiteral(p.status)}, ${i + 1})`;
  });
  return (
    `BEGIN; ${lockStatement(names)}; ` +
    `INSERT INTO ${names.pets} (id, name, category_id, status) ` +
    `SELECT nextval(${pg.escapeLiteral(names.ids)}::regclass), v.name, v.category_id, v.status FROM (VALUES ${values.join(', ')}) AS v (name, category_id, status, n) ` +
    `WHERE v.n <= (${idsLeftQuery(names)}) ` +
    `RETURNING ${COLUMNS}; COMMIT`
  );
}

/**
 * Which returned row is whose: creates that ask for the same pet are interchangeable, so each takes
 * a row that says what it asked for.
 */
export function matchRows(inputs: readonly Required<NewPet>[], rows: readonly Pet[]): Pet[] {
  const key = (p: { name: string; categoryId: number; status: string }) => `${p.categoryId} ${p.status} ${p.name}`;
  const byContent = new Map<string, Pet[]>();
  for (const row of [...rows].sort((a, b) => b.id - a.id)) {
    const same = byContent.get(key(row));
    if (same) same.push(row);
    else byContent.set(key(row), [row]);
  }
  return inputs.map((input) => {
    const row = byContent.get(key(input))?.pop();
    if (!row) throw new Error(`no inserted row says ${JSON.stringify(input)}`);
    return row;
  });
}
