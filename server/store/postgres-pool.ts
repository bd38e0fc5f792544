// How this kit talks to PostgreSQL: the time bounds of every statement, durable commits, int8 as
// numbers, connections that die without ending the process, and every round trip counted.
import pg from 'pg';
import type { Pool } from 'pg';
import { roundTrips } from '../round-trips.ts';

export interface PoolOptions {
  /** Connections per instance. */
  poolSize?: number;
  /** How long to wait for a connection before the database counts as unavailable. Default 5000. */
  connectTimeoutMs?: number;
  /**
   * Longest a statement may run (PostgreSQL's statement_timeout) before it is cancelled and the
   * request answered 503; the client gives up on a silent server one second after that. Default 5000.
   */
  queryTimeoutMs?: number;
}

/** What the client waits beyond statement_timeout for the server's own cancellation to arrive. */
const CLIENT_GRACE_MS = 1_000;

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

export function createPool(connectionString: string, options: PoolOptions): Pool {
  const queryTimeoutMs = options.queryTimeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString,
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
  // The pool listens only to idle clients: a checked-out client cut between two queries would emit
  // 'error' to no one and end the process. The query that fails answers the request instead.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    // Every statement goes through a client's query(), the pool's own included: counted once, here.
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      roundTrips.postgres++;
      return query(...args);
    };
  });
  return pool;
}
