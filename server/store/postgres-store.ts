// A PetStore kept in PostgreSQL, so that several server instances serve one set of pets.
//
// Ids come from a sequence and are handed out under the schema's advisory lock, held until the
// COMMIT that makes them visible: pets become visible in id order, across every instance. Without
// that, pet 50 could commit after pet 51, and a client paging by "after id 51" would never see it.
// Concurrent creates on one instance are grouped into one transaction (as the file store groups
// its writes), so holding the lock costs one commit per group, not per pet. Two groups may be in
// flight at once: while one commits, the next already waits on the lock inside the database, so
// the lock passes from commit to commit without waiting for this process to read a reply and send
// the next group (a busy event loop took milliseconds to, and the database sat idle meanwhile).
// The second goes only once enough creates wait for it (SECOND_GROUP_MIN); fewer wait for the
// first to end.
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import type { NewPet, Pet } from '../types.ts';
import { DatabaseUnavailableError, IncompatibleSchemaError, isConnectionFailure, parseDatabaseUrl, reasonOf } from './database-errors.ts';
import { MAX_AGE_MS, PetCache, pageKey, type PetsVersion, type PetsVersionSource } from './pet-cache.ts';
import { checkPetIds, ID_SPACE_SPENT, IdSpaceExhaustedError, LAST_ID } from './id-space.ts';
import type { ListQuery, ListResult, PetStore, StoreLog } from './pet-store.ts';
import { roundTrips } from '../round-trips.ts';
import {
  MAX_SAFE,
  idsLeftQuery,
  insertPets,
  keepSequenceAbove,
  lockSql,
  lockStatement,
  prepareSchema,
  schemaNames,
  type SchemaNames,
} from './postgres-schema.ts';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:5432/database, optionally with ?schema=name. */
  url: string;
  /** Schema holding the store (wins over ?schema=); instances that share pets share it. Default public. */
  schema?: string;
  /** Connections per instance. */
  poolSize?: number;
  /** How long to wait for a connection before the database counts as unavailable. Default 5000. */
  connectTimeoutMs?: number;
  /**
   * Longest a statement may run (PostgreSQL's statement_timeout) before it is cancelled and the
   * request answered 503; the client gives up on a silent server one second after that. Default 5000.
   */
  queryTimeoutMs?: number;
  /** Told when the last id was handed out (error), among others (shareVersion). */
  log?: StoreLog;
}

/** What the client waits beyond statement_timeout for the server's own cancellation to arrive. */
const CLIENT_GRACE_MS = 1_000;

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
const COLUMNS = 'id, name, category_id AS "categoryId", status';
/** This store logs errors and recoveries only. */
type PostgresLog = (level: 'error' | 'info', message: string) => void;

/** SQLSTATE of nextval past a sequence's MAXVALUE ("reached maximum value of sequence"). */
const SEQUENCE_EXHAUSTED = '2200H';

/** int8 arrives as text; every stored integer is within 2^53-1 (CHECKs, sequence MAXVALUE), so a number holds it exactly. */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${text} is beyond the integers a JavaScript number holds exactly`);
  return value;
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

interface PendingCreate {
  input: Required<NewPet>;
  resolve: (pet: Pet) => void;
  reject: (error: unknown) => void;
}

/**
 * Which returned row is whose: creates that ask for the same pet are interchangeable, so each takes
 * a row that says what it asked for.
 */
function matchRows(inputs: readonly Required<NewPet>[], rows: readonly Pet[]): Pet[] {
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

export class PostgresPetStore implements PetStore {
  readonly #pool: Pool;
  readonly #names: SchemaNames;
  readonly #database: string;
  readonly #cache = new PetCache();
  #queue: PendingCreate[] = [];
  readonly #groups = new Set<Promise<void>>();
  #scheduled = false;
  #versions: PetsVersionSource | undefined;
  #log: PostgresLog;
  #toldSpent = false;

  private constructor(pool: Pool, names: SchemaNames, database: string, log: PostgresLog) {
    this.#pool = pool;
    this.#names = names;
    this.#database = database;
    this.#log = log;
  }

  /** The schema holding the store: the instances that share pets share it. */
  get schema(): string {
    return this.#names.schema;
  }

  /** The database as messages name it: URL without its password, and the schema. */
  get database(): string {
    return this.#database;
  }

  /**
   * Connects, creates the schema and seeds it with `seed` if the store does not exist yet, or checks
   * the one that does. Rejects with DatabaseUnavailableError or IncompatibleSchemaError.
   */
  static async open(options: PostgresStoreOptions, seed: readonly Pet[]): Promise<PostgresPetStore> {
    checkPetIds(seed, 'The pets to store');
    const target = parseDatabaseUrl(options.url, options.schema);
    const queryTimeoutMs = options.queryTimeoutMs ?? 5_000;
    const pool = new pg.Pool({
      connectionString: target.connectionString,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      application_name: 'adoption-store-kit',
      // A locked table or a lock held by another instance must cost a request its time bound, not
      // hang it: the server cancels the statement, and the client gives up on a server that went
      // silent (a network partition sends no error at all).
      statement_timeout: queryTimeoutMs,
      query_timeout: queryTimeoutMs + CLIENT_GRACE_MS,
      types,
      // A create is acknowledged once COMMIT returns; with synchronous_commit off that would not
      // yet be durable. Stronger settings (remote_apply...) are kept as the operator set them.
      onConnect: async (client) => {
        await client.query(`SELECT set_config('synchronous_commit', 'on', false) WHERE current_setting('synchronous_commit') = 'off'`);
      },
    });
    // An idle connection that dies is dropped by the pool and replaced on the next query; without a
    // listener, the pool's 'error' event would end the process.
    pool.on('error', () => undefined);
    // The pool listens to a client only while it is idle. A checked-out client whose connection is
    // cut between two queries (pg_terminate_backend, a restart, a failover) emits 'error' with no one
    // listening, which ends the process; the query in flight or the next one fails on its own, and
    // that failure is what answers the request.
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
      // Every statement goes through a client's query(), the pool's own included: counted once, here.
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        roundTrips.postgres++;
        return query(...args);
      };
    });

    const names = schemaNames(target.schema);
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new DatabaseUnavailableError(target.description, reasonOf(error), { cause: error });
    }
    try {
      await prepareSchema(client, names, seed, target.description);
      client.release();
    } catch (error) {
      client.release(true);
      await pool.end().catch(() => undefined);
      if (error instanceof IncompatibleSchemaError) throw error;
      if (isConnectionFailure(error)) throw new DatabaseUnavailableError(target.description, reasonOf(error), { cause: error });
      throw new IncompatibleSchemaError(target.description, reasonOf(error), { cause: error });
    }
    return new PostgresPetStore(pool, names, target.description, options.log ?? (() => undefined));
  }

  /**
   * From now on every commit moves the pets' version on through `source` before it is acknowledged,
   * and reads that saw a version (`seen`) may be answered from this instance's cache (pet-cache.ts).
   * Every instance that writes to the schema must share the version, or the others' caches go stale.
   */
  shareVersion(source: PetsVersionSource, log: PostgresLog): void {
    this.#versions = source;
    this.#log = log;
  }

  async list(query: ListQuery, seen?: PetsVersion): Promise<ListResult> {
    const key = seen && this.#versions ? pageKey(query) : undefined;
    if (key !== undefined) {
      const hit = this.#cache.page(key, seen!);
      if (hit) return hit;
    }
    const { limit, status, afterId = 0 } = query;
    // As LowPetStore: ids are integers, so "after 2.5" is "after 2"; a limit that is not a
    // non-negative integer never fills a page, so it returns every match.
    const after = Number.isNaN(afterId) ? 0 : Math.min(Math.max(Math.floor(afterId), -1), MAX_SAFE);
    const take = Number.isSafeInteger(limit) && limit >= 0 ? limit + 1 : null;
    // Prepared once per connection: PostgreSQL parses and plans them once, not per request.
    const { rows } =
      status === undefined
        ? await this.#query<Pet>({
            name: 'pets-list',
            text: `SELECT ${COLUMNS} FROM ${this.#names.pets} WHERE id > $1 ORDER BY id LIMIT $2`,
            values: [after, take],
          })
        : await this.#query<Pet>({
            name: 'pets-list-status',
            text: `SELECT ${COLUMNS} FROM ${this.#names.pets} WHERE id > $1 AND status = $3 ORDER BY id LIMIT $2`,
            values: [after, take, status],
          });
    const pets = rows.map((row) => this.#cache.intern(row));
    const page = take !== null && pets.length === take ? { pets: pets.slice(0, limit), hasMore: true } : { pets, hasMore: false };
    if (key !== undefined) this.#cache.keepPage(key, page, seen!);
    return page;
  }

  async get(id: number, seen?: PetsVersion): Promise<Pet | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const cached = seen && this.#versions ? this.#cache.pet(id, seen) : undefined;
    if (cached) return cached;
    const { rows } = await this.#query<Pet>({ name: 'pets-get', text: `SELECT ${COLUMNS} FROM ${this.#names.pets} WHERE id = $1`, values: [id] });
    if (!rows[0]) return undefined;
    const pet = this.#cache.intern(rows[0]);
    if (seen && this.#versions) this.#cache.keepPet(pet, seen);
    return pet;
  }

  /**
   * Resolves after the COMMIT that holds the pet; a failed group rejects each of its creates, whose
   * ids stay used. Rejects with IdSpaceExhaustedError, storing nothing, once LAST_ID is handed out.
   */
  create(input: Required<NewPet>): Promise<Pet> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#schedule();
    });
  }

  async reset(pets: readonly Pet[]): Promise<void> {
    checkPetIds(pets, 'The pets to store');
    const sorted = [...pets].sort((a, b) => a.id - b.id);
    await this.#transaction(async (client) => {
      await client.query(`DELETE FROM ${this.#names.pets}`);
      await insertPets(client, this.#names, sorted);
      await keepSequenceAbove(client, this.#names, sorted.at(-1)?.id ?? 0);
    });
    await this.#announce('reset');
  }

  async count(): Promise<number> {
    const { rows } = await this.#query<{ count: number }>(`SELECT count(*) AS count FROM ${this.#names.pets}`);
    return rows[0]!.count;
  }

  /** Waits for the creates already asked for, then closes the connections. */
  async close(): Promise<void> {
    while (this.#queue.length > 0 || this.#groups.size > 0) {
      if (this.#groups.size > 0) await Promise.allSettled(this.#groups);
      else await new Promise(setImmediate);
    }
    await this.#pool.end();
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
      const writing: Promise<void> = this.#writeGroup(this.#queue.splice(0, MAX_GROUP)).finally(() => {
        this.#groups.delete(writing);
        this.#startGroups();
      });
      this.#groups.add(writing);
    }
  }

  /** One group's commit, then its 201s; a failed group rejects each of its creates (their ids stay used). */
  async #writeGroup(group: readonly PendingCreate[]): Promise<void> {
    try {
      const pets = await this.#insertGroup(group.map((p) => p.input));
      // Before the 201s: a list through any instance that starts after one of them must see it.
      if (pets.length > 0) await this.#announce('create');
      if (pets.length < group.length || pets.some((pet) => pet.id === LAST_ID)) this.#tellSpent();
      group.forEach((pending, i) => (i < pets.length ? pending.resolve(pets[i]!) : pending.reject(new IdSpaceExhaustedError())));
    } catch (error) {
      // The sequence's own end (an instance that asked for more ids than were left): the group stored nothing.
      const exhausted = (error as { code?: unknown }).code === SEQUENCE_EXHAUSTED;
      if (exhausted) this.#tellSpent();
      for (const pending of group) pending.reject(exhausted ? new IdSpaceExhaustedError() : error);
    }
  }

  /** Once per process: one line per refused create would flood the log. */
  #tellSpent(): void {
    if (this.#toldSpent) return;
    this.#toldSpent = true;
    this.#log('error', ID_SPACE_SPENT);
  }

  /**
   * One round trip per group: BEGIN, the schema's lock, the insert and COMMIT go as one simple query
   * (the extended protocol takes one statement at a time, so the values are escaped literals), and it
   * resolves once COMMIT has returned. Four round trips fewer per group than a statement each.
   *
   * Only as many rows as ids are left are inserted: the first creates of the group, in its order. A
   * nextval past the sequence's MAXVALUE would fail the whole group and use up the ids it took, so
   * that the last ids went to no one. Resolves with the pets of the creates that got an id, in order.
   */
  async #insertGroup(inputs: readonly Required<NewPet>[]): Promise<Pet[]> {
    const values = inputs.map((p, i) => {
      if (!Number.isSafeInteger(p.categoryId)) throw new RangeError(`categoryId ${p.categoryId} is not a safe integer`);
      return `(${pg.escapeLiteral(p.name)}, ${p.categoryId}, ${pg.escapeLiteral(p.status)}, ${i + 1})`;
    });
    const text =
      `BEGIN; ${lockStatement(this.#names)}; ` +
      `INSERT INTO ${this.#names.pets} (id, name, category_id, status) ` +
      `SELECT nextval(${pg.escapeLiteral(this.#names.ids)}::regclass), v.name, v.category_id, v.status FROM (VALUES ${values.join(', ')}) AS v (name, category_id, status, n) ` +
      `WHERE v.n <= (${idsLeftQuery(this.#names)}) ` +
      `RETURNING ${COLUMNS}; COMMIT`;
    return this.#withClient(async (client) => {
      const results = (await client.query(text)) as unknown as Array<pg.QueryResult<Pet>>;
      const inserted = results.find((r) => r.command === 'INSERT');
      if (!inserted || inserted.rows.length > inputs.length)
        throw new Error(`the group's insert returned ${inserted?.rows.length} rows for ${inputs.length} creates`);
      return matchRows(inputs.slice(0, inserted.rows.length), inserted.rows);
    });
  }

  /**
   * Tells the other instances' caches of a commit. Failing that, the commit stands (it is durable,
   * and acknowledging it is the truth): their entries expire within MAX_AGE_MS (pet-cache.ts).
   */
  async #announce(kind: 'create' | 'reset'): Promise<void> {
    if (!this.#versions) return;
    try {
      await this.#versions.bump(kind);
    } catch (error) {
      this.#log(
        'error',
        `could not move the pets' version on after a ${kind} (${(error as Error).message}): other instances may serve pages cached before it for up to ${MAX_AGE_MS} ms`,
      );
    }
  }

  /** Runs `work` in a transaction under the schema's lock; resolves only after COMMIT returned. */
  #transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.#withClient(async (client) => {
      await client.query('BEGIN');
      const lock = lockSql(this.#names);
      await client.query(lock.text, lock.values);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    });
  }

  /** Runs `work` on a connection of its own; a failure rolls back whatever transaction it left open. */
  async #withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#connect();
    let failure: unknown;
    try {
      return await work(client);
    } catch (error) {
      failure = error;
      // A lost or timed-out connection is closed instead (the server rolls back when it goes): a
      // ROLLBACK queued behind a query that still runs would wait out another time bound.
      if (!isConnectionFailure(error)) await client.query('ROLLBACK').catch(() => undefined);
      throw this.#translate(error);
    } finally {
      // A connection that failed is closed, not handed to the next caller mid-transaction.
      client.release(failure !== undefined && isConnectionFailure(failure) ? (failure as Error) : undefined);
    }
  }

  async #query<R extends pg.QueryResultRow>(query: string | pg.QueryConfig, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await (typeof query === 'string' ? this.#pool.query<R>(query, values) : this.#pool.query<R>(query));
    } catch (error) {
      throw this.#translate(error);
    }
  }

  async #connect(): Promise<PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw this.#translate(error);
    }
  }

  #translate(error: unknown): unknown {
    if (error instanceof DatabaseUnavailableError || !isConnectionFailure(error)) return error;
    return new DatabaseUnavailableError(this.#database, reasonOf(error), { cause: error });
  }
}
