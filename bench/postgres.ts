// The benchmark's own PostgreSQL database: created at the start of a run that needs one, dropped
// at its end. Each PostgreSQL server gets a schema of its own in it (the reference server creates
// and seeds it); after a create round the schema's pets are read back here.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabase, dropDatabase, postgresProblem as serverProblem, withDatabase } from '../server/store/postgres-admin.ts';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Why PostgreSQL cannot serve the benchmark, or null when it can. */
export async function postgresProblem(adminUrl: string): Promise<string | null> {
  const problem = await serverProblem(adminUrl);
  return problem === null ? null : `PostgreSQL at ${new URL(adminUrl).host} is not reachable (${problem})`;
}

export class BenchDatabase {
  readonly url: string;
  readonly name: string;
  readonly #adminUrl: string;
  readonly #pool: pg.Pool;

  private constructor(adminUrl: string, name: string) {
    this.#adminUrl = adminUrl;
    this.name = name;
    this.url = withDatabase(adminUrl, name);
    this.#pool = new pg.Pool({ connectionString: this.url, max: 1 });
    this.#pool.on('error', () => undefined);
  }

  static async create(adminUrl: string, runId: string): Promise<BenchDatabase> {
    const name = `adoption_bench_${runId}_${randomBytes(2).toString('hex')}`;
    await createDatabase(adminUrl, name);
    return new BenchDatabase(adminUrl, name);
  }

  /** The ids of the pets a schema holds (the reference server's table `<schema>.pets`). */
  async petIds(schema: string): Promise<number[]> {
    const rows = (await this.#pool.query<{ id: string }>(`SELECT id FROM ${pg.escapeIdentifier(schema)}.pets`)).rows;
    return rows.map((r) => Number(r.id));
  }

  /** The server processes serving connections to this database: their CPU is the store's work. */
  async backendPids(): Promise<number[]> {
    const rows = (await this.#pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [this.name])).rows;
    return rows.map((r) => r.pid);
  }

  async drop(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
    await dropDatabase(this.#adminUrl, this.name);
  }
}
