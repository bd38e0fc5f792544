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
