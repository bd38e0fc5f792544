// The PostgreSQL layout of the pet store, created once and checked at every start. Everything runs
// in one transaction under an advisory lock, so instances that start together create the schema
// (and seed it) exactly once, and a schema that turns out to be unusable is left as it was.
import pg from 'pg';
import type { PoolClient } from 'pg';
import type { Pet } from '../types.ts';
import { IncompatibleSchemaError } from './database-errors.ts';
import { LAST_ID } from './id-space.ts';

/** The store's columns as a Pet's fields, for SELECT and RETURNING. */
export const COLUMNS = 'id, name, category_id AS "categoryId", status';

/** Largest integer a JavaScript number holds exactly: category ids stay within it (ids within LAST_ID). */
export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * First half of the two-key advisory lock every writer of ids takes (the second is the schema's
 * hash): schema creation, creates and resets, one at a time per schema across all instances.
 */
export const LOCK_CLASS = 0x50455453; // "PETS"

/** Quoted, schema-qualified names of the store's objects. */
export interface SchemaNames {
  /** The schema's name as given (for catalog queries and the lock). */
  readonly schema: string;
  readonly quotedSchema: string;
  readonly pets: string;
  readonly ids: string;
}

export function schemaNames(schema: string): SchemaNames {
  const quoted = pg.escapeIdentifier(schema);
  return { schema, quotedSchema: quoted, pets: `${quoted}.pets`, ids: `${quoted}.pet_ids` };
}

export function lockSql(names: SchemaNames): { text: string; values: unknown[] } {
  return { text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))', values: [LOCK_CLASS, names.schema] };
}

/** The same lock as one statement of literals, for a simple query of several statements. */
export function lockStatement(names: SchemaNames): string {
  return `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${pg.escapeLiteral(names.schema)}))`;
}

/** The DDL of a new store. The CHECKs keep every stored integer exact as a JavaScript number. */
export function createStatements(names: SchemaNames): string[] {
  return [
    `CREATE TABLE ${names.pets} (
      id bigint PRIMARY KEY CHECK (id BETWEEN 1 AND ${LAST_ID}),
      name text NOT NULL,
      category_id bigint NOT NULL CHECK (category_id BETWEEN ${-MAX_SAFE} AND ${MAX_SAFE}),
      status text NOT NULL
    )`,
    // Keyset pages filtered by status read this index in id order and stop after a page.
    `CREATE INDEX pets_status_id ON ${names.pets} (status, id)`,
    `CREATE SEQUENCE ${names.ids} AS bigint MINVALUE 1 MAXVALUE ${LAST_ID} NO CYCLE`,
  ];
}

/** Inserts pets with their own ids (seed and reset): one statement, whatever their number. */
export async function insertPets(client: PoolClient, names: SchemaNames, pets: readonly Pet[]): Promise<void> {
  if (pets.length === 0) return;
  await client.query(`INSERT INTO ${names.pets} (id, name, category_id, status) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[])`, [
    pets.map((p) => p.id),
    pets.map((p) => p.name),
    pets.map((p) => p.categoryId),
    pets.map((p) => p.status),
  ]);
}

/** The id the sequence hands out next. */
export async function nextId(client: PoolClient, names: SchemaNames): Promise<number> {
  const { rows } = await client.query<{ last_value: number; is_called: boolean }>(`SELECT last_value, is_called FROM ${names.ids}`);
  const row = rows[0]!;
  return row.is_called ? row.last_value + 1 : row.last_value;
}

/**
 * How many ids the sequence has left below LAST_ID, as a scalar subquery. Read under the schema's lock,
 * so no other writer takes one meanwhile.
 */
export function idsLeftQuery(names: SchemaNames): string {
  return `SELECT ${LAST_ID} - CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM ${names.ids}`;
}

/** Moves the sequence past `highestId` if it is not past it already: it never goes back. */
export async function keepSequenceAbove(client: PoolClient, names: SchemaNames, highestId: number): Promise<void> {
  if (highestId >= (await nextId(client, names))) await client.query('SELECT setval($1::regclass, $2, true)', [names.ids, highestId]);
}

const EXPECTED_COLUMNS: Record<string, string> = { id: 'bigint', name: 'text', category_id: 'bigint', status: 'text' };

/** Why an existing layout cannot hold the store, or null when it can. Reads only. */
async function incompatibility(client: PoolClient, names: SchemaNames, kinds: Map<string, string>): Promise<string | null> {
  const pets = kinds.get('pets');
  const ids = kinds.get('pet_ids');
  if (pets !== 'r' && pets !== 'p')
    return pets ? `"pets" in schema "${names.schema}" is not a table` : `schema "${names.schema}" has a sequence "pet_ids" but no table "pets"`;
  if (ids !== 'S')
    return ids ? `"pet_ids" in schema "${names.schema}" is not a sequence` : `table "pets" in schema "${names.schema}" has no id sequence "pet_ids" beside it`;

  const { rows: columns } = await client.query<{ name: string; type: string; not_null: boolean; has_default: boolean }>(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS not_null, atthasdef AS has_default
       FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
    [names.pets],
  );
  for (const [name, type] of Object.entries(EXPECTED_COLUMNS)) {
    const column = columns.find((c) => c.name === name);
    if (!column) return `table "pets" has no column "${name}" (${type})`;
    if (column.type !== type) return `column "pets.${name}" is ${column.type}, not ${type}`;
  }
  const blocking = columns.find((c) => !(c.name in EXPECTED_COLUMNS) && c.not_null && !c.has_default);
  if (blocking) return `column "pets.${blocking.name}" is NOT NULL without a default, so no pet can be inserted`;

  const { rows: key } = await client.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
      WHERE i.indrelid = $1::regclass AND i.indisprimary`,
    [names.pets],
  );
  if (key.length !== 1 || key[0]!.name !== 'id') return 'the primary key of "pets" is not its "id" column';

  const { rows: highest } = await client.query<{ max: number | null }>(`SELECT max(id) AS max FROM ${names.pets}`);
  const next = await nextId(client, names);
  const max = highest[0]!.max;
  if (max !== null && max >= next) return `sequence "pet_ids" would hand out id ${next}, but "pets" already holds id ${max}`;
  return null;
}

/**
 * Creates and seeds the store's schema when it holds neither `pets` nor `pet_ids`; otherwise checks
 * that what is there can be used. Resolves with whether it created (and so seeded) the store.
 */
export async function prepareSchema(client: PoolClient, names: SchemaNames, seed: readonly Pet[], database: string): Promise<boolean> {
  await client.query('BEGIN');
  try {
    const lock = lockSql(names);
    await client.query(lock.text, lock.values);
    const { rows: found } = await client.query<{ relname: string; relkind: string }>(
      `SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname IN ('pets', 'pet_ids')`,
      [names.schema],
    );
    const kinds = new Map(found.map((r) => [r.relname, r.relkind]));
    if (kinds.size > 0) {
      const reason = await incompatibility(client, names, kinds);
      if (reason) throw new IncompatibleSchemaError(database, reason);
      await client.query('COMMIT');
      return false;
    }

    const { rows: schemas } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [names.schema]);
    // Only when missing: CREATE SCHEMA IF NOT EXISTS still asks for the right to create schemas.
    if (schemas.length === 0) await client.query(`CREATE SCHEMA ${names.quotedSchema}`);
    for (const statement of createStatements(names)) await client.query(statement);
    const sorted = [...seed].sort((a, b) => a.id - b.id);
    await insertPets(client, names, sorted);
    await keepSequenceAbove(client, names, sorted.at(-1)?.id ?? 0);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
