// For tests that need PostgreSQL: a database of their own, with a unique name, dropped afterwards.
// Under CI (CI=true) a PostgreSQL that does not answer fails the test file at once; elsewhere its
// tests are counted as skipped, and the file says why.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'uvu';
import { createDatabase, dropDatabase, postgresProblem, withDatabase } from '../store/postgres-admin.ts';
import { serviceForTests, type Register, type ServiceForTests } from './services.ts';

/** A maintenance database on the server the tests use (trust auth on the local one). */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** URL of the database created for this test file. */
  readonly url: string;
  readonly name: string;
  /** A schema name not used yet in this database: one per store under test. */
  schema(label?: string): string;
  /** Runs SQL on the test database (setting up a schema by hand, inspecting the catalog). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `adoption_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await createDatabase(ADMIN_URL, name);
  const url = withDatabase(ADMIN_URL, name);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  let schemas = 0;
  return {
    url,
    name,
    schema: (label = 'store') => `${label}_${++schemas}`,
    query: async (text, values) => (await pool.query(text, values)).rows,
    async drop() {
      await pool.end().catch(() => undefined);
      await dropDatabase(ADMIN_URL, name);
    },
  };
}

/** PostgreSQL for a test file that needs the server but not a database of its own (it makes its own). */
export function postgresService(file: string): Promise<ServiceForTests> {
  return serviceForTests(file, 'PostgreSQL', () => postgresProblem(ADMIN_URL), `start it (pg_ctlcluster <version> main start) or set TEST_DATABASE_URL`);
}

export interface PostgresForTests {
  /** Null when PostgreSQL does not answer (outside CI only). */
  readonly db: TestDatabase | null;
  readonly register: (suite: Test) => Register;
}

/**
 * Call at the top of a test file (top-level await): creates the file's own database, which the
 * file drops in an `after` hook (uvu runs those even when tests fail).
 */
export async function postgresForTests(file: string): Promise<PostgresForTests> {
  const service = await postgresService(file);
  return { db: service.missing === null ? await createTestDatabase() : null, register: service.register };
}
