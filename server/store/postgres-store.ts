// A PetStore kept in PostgreSQL, so that several server instances serve one set of pets. Ids are
// taken under the schema's advisory lock, held until COMMIT, so pets become visible in id order across
// instances: else pet 50 could commit after 51, and a client paging "after 51" would never see it.
import type pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import type { NewPet, Pet } from '../types.ts';
import { DatabaseUnavailableError, IncompatibleSchemaError, isConnectionFailure, parseDatabaseUrl, reasonOf } from './database-errors.ts';
import { MAX_AGE_MS, PetCache, pageKey, type PetsVersion, type PetsVersionSource } from './pet-cache.ts';
import { checkPetIds, ID_SPACE_SPENT, IdSpaceExhaustedError, LAST_ID } from './id-space.ts';
import type { ListQuery, ListResult, PetStore, StoreLog } from './pet-store.ts';
import { CreateGroups, groupInsertStatement, matchRows, type PendingCreate } from './postgres-create-groups.ts';
import { createPool, type PoolOptions } from './postgres-pool.ts';
import { COLUMNS, MAX_SAFE, insertPets, keepSequenceAbove, lockSql, prepareSchema, schemaNames, type SchemaNames } from './postgres-schema.ts';

export interface PostgresStoreOptions extends PoolOptions {
  /** postgres://user:password@host:5432/database, optionally with ?schema=name. */
  url: string;
  /** Schema holding the store (wins over ?schema=); instances that share pets share it. Default public. */
  schema?: string;
  /** Told when the last id was handed out (error), among others (shareVersion). */
  log?: StoreLog;
}

/** This store logs errors and recoveries only. */
type PostgresLog = (level: 'error' | 'info', message: string) => void;

/** SQLSTATE of nextval past a sequence's MAXVALUE ("reached maximum value of sequence"). */
const SEQUENCE_EXHAUSTED = '2200H';

export class PostgresPetStore implements PetStore {
  readonly #pool: Pool;
  readonly #names: SchemaNames;
  readonly #database: string;
  readonly #cache = new PetCache();
  readonly #creates = new CreateGroups((group) => this.#writeGroup(group));
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
    const pool = createPool(target.connectionString, options);

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
    return this.#creates.add(input);
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
    await this.#creates.settle();
    await this.#pool.end();
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

  /** Resolves with the pets of the creates that got an id, in order (groupInsertStatement). */
  async #insertGroup(inputs: readonly Required<NewPet>[]): Promise<Pet[]> {
    const text = groupInsertStatement(this.#names, inputs);
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
