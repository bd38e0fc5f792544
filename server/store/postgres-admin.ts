// Small PostgreSQL chores shared by the code that creates databases of its own: the test helper
// (one database per test file) and the benchmark (one per run).
import pg from 'pg';

/** `url` with its database swapped for `database`. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
}

/** Why the server at `url` does not answer a query, or null when it does. */
export async function postgresProblem(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    const { message, code } = error as { message?: string; code?: string };
    return message || code || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs one statement on the maintenance database at `adminUrl`, on a connection of its own. */
async function onAdmin(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** Creates the database `name` on the server at `adminUrl`; its URL is `withDatabase(adminUrl, name)`. */
export function createDatabase(adminUrl: string, name: string): Promise<void> {
  return onAdmin(adminUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
}

/**
 * Drops the database `name` if it exists. FORCE: a connection its user left behind (a store a failed
 * test left open, a server killed with SIGKILL) must not keep it alive.
 */
export function dropDatabase(adminUrl: string, name: string): Promise<void> {
  return onAdmin(adminUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
}
