// The PostgreSQL chaos scenarios, one round each: the real server (its own process) on a schema of the
// caller's database while its connections are terminated mid-create (as a restart or failover does) or
// its table is locked. A round returns its Tally, checks and what it saw, deciding nothing (postgres.test.ts
// asserts, `npm run chaos` counts), and stops its own server, also after a failure.
import { createServer as createTcpServer, connect, type Server as TcpServer, type Socket } from 'node:net';
import pg from 'pg';
import { freePort } from '../../../lib/processes.ts';
import type { TestDatabase } from '../test-database.ts';
import { startCli, type ServerProcess } from '../process.ts';
import { create, isErrorBody, KEY, request, tally, type Checked, type CreateOutcome } from './tally.ts';

export const CONCURRENCY = 16;
/** Longest a request may take before the scenario counts it as hung. */
export const HANG_BOUND_MS = 15_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Served {
  server: ServerProcess;
  /** How many times the server exited so far (nothing here asks it to before the round ends). */
  exits: () => number;
  stop: () => Promise<void>;
}

async function serve(db: TestDatabase, schema: string, extra: string[] = []): Promise<Served> {
  const server = await startCli(['--port', '0', '--quiet', '--no-rate-limit', '--database', `${db.url}?schema=${schema}`, ...extra]);
  let exits = 0;
  void server.exited.then(() => exits++);
  return {
    server,
    exits: () => exits,
    stop: async () => {
      server.child.kill('SIGKILL');
      await server.exited;
    },
  };
}

const storedNamed = (db: TestDatabase, schema: string, prefix: string) =>
  db.query<{ id: number; name: string }>(`SELECT id::int AS id, name FROM ${schema}.pets WHERE name LIKE $1`, [`${prefix}%`]);

/** Whether a create not acknowledged was refused honestly: 503 storage_unavailable, the Error body, Retry-After. */
export function refusedHonestly(o: CreateOutcome): boolean {
  return o.status === 503 && isErrorBody(o.body, 503) && (o.body as { code: string }).code === 'storage_unavailable' && Number(o.retryAfter) >= 1;
}

export interface TerminateRound extends Checked {
  /** Backends pg_terminate_backend ended. */
  terminated: number;
  /** The creates sent while the connections were being cut. */
  outcomes: CreateOutcome[];
  /** The creates sent once the cuts stopped, CONCURRENCY at once. */
  after: CreateOutcome[];
  /** The server's output. */
  output: string;
}

/** Connections terminated (pg_terminate_backend) every 400 ms for 4 s during CONCURRENCY concurrent creates. */
export async function pgTerminate(db: TestDatabase): Promise<TerminateRound> {
  const schema = db.schema('cut');
  const { server, exits, stop } = await serve(db, schema);
  try {
    const outcomes: CreateOutcome[] = [];
    const deadline = Date.now() + 4_000;
    let next = 0;
    const writers = Array.from({ length: CONCURRENCY }, async () => {
      for (let i = 0; i < 200 && Date.now() < deadline && exits() === 0; i++) outcomes.push(await create(server.baseUrl, `cut-${next++}`, HANG_BOUND_MS));
    });
    let terminated = 0;
    const cutter = (async () => {
      for (let cut = 0; cut < 8 && Date.now() < deadline; cut++) {
        await sleep(400);
        const rows = await db.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'adoption-store-kit'`,
        );
        terminated += rows.length;
      }
    })();
    await Promise.all([...writers, cutter]);

    const after = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => create(server.baseUrl, `cut-after-${i}`, HANG_BOUND_MS)));
    const result = tally(
      `postgres: ${terminated} backends terminated under ${CONCURRENCY} creates`,
      [...outcomes, ...after],
      await storedNamed(db, schema, 'cut-'),
      exits(),
    );
    const checks = {
      'a connection was cut': terminated > 0,
      'the server stayed up': result.exits === 0,
      'every create cut short was answered 503 storage_unavailable with Retry-After': outcomes.every((o) => o.status === 201 || refusedHonestly(o)),
      'once the cuts stop, every create succeeds on new connections': after.every((o) => o.status === 201),
    };
    return { tally: result, checks, terminated, outcomes, after, output: server.output() };
  } finally {
    await stop();
  }
}

type Answer = Omit<CreateOutcome, 'name'>;

export interface LockRound extends Checked {
  /** Four creates sent under the lock. */
  creates: CreateOutcome[];
  /** /healthz and a list under the lock. */
  health: Answer;
  list: Answer;
  /** /healthz and a create once the lock is released. */
  healthAfter: Answer;
  released: CreateOutcome;
  /** The pets of the creates sent under the lock that the store holds afterwards. */
  storedLocked: Array<{ id: number; name: string }>;
  /** Times the server exited during the round. */
  exits: number;
}

/** A table locked (ACCESS EXCLUSIVE) by another session under a server with --storage-timeout 1000, then released. */
export async function pgLock(db: TestDatabase): Promise<LockRound> {
  const schema = db.schema('lock');
  const timeoutMs = 1_000;
  const { server, exits, stop } = await serve(db, schema, ['--storage-timeout', String(timeoutMs)]);
  try {
    const origin = server.baseUrl.replace(/\/v1$/, '');
    const { creates, health, list } = await whileLocked(db, `${schema}.pets`, async () => {
      const [creates, health, list] = await Promise.all([
        Promise.all(Array.from({ length: 4 }, (_, i) => create(server.baseUrl, `locked-${i}`, HANG_BOUND_MS))),
        request(`${origin}/healthz`, {}, HANG_BOUND_MS),
        request(`${server.baseUrl}/pets`, { headers: { authorization: KEY } }, HANG_BOUND_MS),
      ]);
      return { creates, health, list };
    });
    const result = tally('postgres: table locked (ACCESS EXCLUSIVE)', creates, [], exits());
    const healthAfter = await request(`${origin}/healthz`, {}, HANG_BOUND_MS);
    const released = await create(server.baseUrl, 'unlocked', HANG_BOUND_MS);
    const storedLocked = await storedNamed(db, schema, 'locked-');
    const healthBody = (health.body ?? {}) as { code?: unknown; message?: unknown };
    const checks = {
      'creates under the lock are 503 storage_unavailable with Retry-After': creates.every(refusedHonestly),
      // The lock is held until every answer is in, so an answer the server gave came from its
      // --storage-timeout; only one it never gave waits for the client's hang bound.
      [`everything under the lock is answered by the server, none left to the client's ${HANG_BOUND_MS} ms hang bound`]: [...creates, health, list].every(
        (o) => o.status !== 'hung',
      ),
      '/healthz under the lock is 503 "The store does not answer: …"':
        health.status === 503 && healthBody.code === 'storage_unavailable' && /^The store does not answer: /.test(String(healthBody.message)),
      'a list under the lock is 503': list.status === 503,
      '/healthz is 200 once the lock is released': healthAfter.status === 200,
      'a create succeeds once the lock is released': released.status === 201,
      'no create answered 503 under the lock was stored': storedLocked.length === 0,
      'the server stayed up': exits() === 0,
    };
    return { tally: result, checks, creates, health, list, healthAfter, released, storedLocked, exits: exits() };
  } finally {
    await stop();
  }
}

export interface DownRound extends Checked {
  /** /healthz, a create and a list while the database refuses connections. */
  health: Answer;
  created: CreateOutcome;
  list: Answer;
  /** /healthz once the database takes connections again (the first 200, or the last answer). */
  healthAfter: Answer;
  released: CreateOutcome;
}

/**
 * A relay between the server and PostgreSQL, closed and reopened on the same port: to the server,
 * what a stopped and restarted database looks like (its connections end, new ones are refused),
 * without stopping the PostgreSQL other tests share.
 */
async function relayTo(url: string): Promise<{ url: string; down: () => Promise<void>; up: () => Promise<void> }> {
  const target = new URL(url);
  const port = await freePort();
  const sockets = new Set<Socket>();
  let listening: TcpServer | undefined;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      listening = createTcpServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => {
            sockets.delete(socket);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      listening?.close(() => resolve());
    });
  await up();
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(port);
  return { url: relayed.href, down, up };
}

/** The database stopped under a running server (--storage-timeout 1000), then started again. */
export async function pgDown(db: TestDatabase): Promise<DownRound> {
  const schema = db.schema('down');
  const relay = await relayTo(db.url);
  const server = await startCli(['--port', '0', '--quiet', '--no-rate-limit', '--storage-timeout', '1000', '--database', `${relay.url}?schema=${schema}`]);
  let exits = 0;
  void server.exited.then(() => exits++);
  try {
    const origin = server.baseUrl.replace(/\/$/, '').replace(/\/v1$/, '');
    await relay.down();
    const [health, created, list] = await Promise.all([
      request(`${origin}/healthz`, {}, HANG_BOUND_MS),
      create(server.baseUrl, 'down-0', HANG_BOUND_MS),
      request(`${server.baseUrl}/pets`, { headers: { authorization: KEY } }, HANG_BOUND_MS),
    ]);
    await relay.up();
    let healthAfter = await request(`${origin}/healthz`, {}, HANG_BOUND_MS);
    for (let i = 0; i < 20 && healthAfter.status !== 200; i++) {
      await sleep(250);
      healthAfter = await request(`${origin}/healthz`, {}, HANG_BOUND_MS);
    }
    const released = await create(server.baseUrl, 'down-after', HANG_BOUND_MS);
    const result = tally('postgres: database stopped, then started', [created, released], await storedNamed(db, schema, 'down-'), exits);
    const message = String((health.body as { message?: unknown } | null)?.message);
    const checks = {
      '/healthz while the database is down is 503 "The store does not answer: connection refused (ECONNREFUSED)"':
        health.status === 503 && message === 'The store does not answer: connection refused (ECONNREFUSED)',
      'a create while the database is down is 503 storage_unavailable with Retry-After': refusedHonestly(created),
      'a list while the database is down is 503': list.status === 503,
      '/healthz is 200 once the database is back': healthAfter.status === 200,
      'a create succeeds once the database is back': released.status === 201,
      'the server stayed up': exits === 0,
    };
    return { tally: result, checks, health, created, list, healthAfter, released };
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
    await relay.down();
  }
}

/** Runs `work` while another session holds `table` in ACCESS EXCLUSIVE mode; releases it whatever happens. */
async function whileLocked<T>(db: TestDatabase, table: string, work: () => Promise<T>): Promise<T> {
  const locker = new pg.Client({ connectionString: db.url });
  locker.on('error', () => undefined);
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return await work();
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
  }
}
