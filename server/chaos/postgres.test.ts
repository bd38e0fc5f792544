// The real server (its own process) on PostgreSQL while the database misbehaves: its connections are
// terminated in the middle of concurrent creates (what a restart or a failover does), and its table is
// locked by another session. The process must stay up, answer what it cannot do with 503, Retry-After
// and an Error body within its time bound, lose no acknowledged pet, and serve again by itself.
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postgresForTests } from '../store/test-database.ts';
import { startCli, type ServerProcess } from '../test/process.ts';
import { create, isErrorBody, printTally, request, tally, type CreateOutcome } from './tally.ts';

const postgres = await postgresForTests('chaos/postgres.test.ts');
const db = postgres.db;
const t = suite('PostgreSQL faults under the running server');
const it = postgres.register(t);
const servers: ServerProcess[] = [];
t.after(async () => {
  for (const server of servers) server.child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.exited));
  await db?.drop();
});

const CONCURRENCY = 16;
/** Longest a request may take before the scenario counts it as hung. */
const HANG_BOUND_MS = 15_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function serve(schema: string, extra: string[] = []): Promise<{ server: ServerProcess; exits: () => number }> {
  const server = await startCli(['--port', '0', '--quiet', '--no-rate-limit', '--database', `${db!.url}?schema=${schema}`, ...extra]);
  servers.push(server);
  let exits = 0;
  void server.exited.then(() => exits++);
  return { server, exits: () => exits };
}

const storedNamed = (schema: string, prefix: string) => db!.query<{ id: number; name: string }>(`SELECT id::int AS id, name FROM ${schema}.pets WHERE name LIKE $1`, [`${prefix}%`]);

function assertHonest(outcomes: readonly CreateOutcome[], what: string): void {
  for (const o of outcomes) {
    if (o.status === 201) continue;
    assert.is(o.status, 503, `${what}: ${o.name} was answered ${o.status}${o.error ? ` (${o.error})` : ''} ${JSON.stringify(o.body)}`);
    assert.ok(isErrorBody(o.body, 503), `${what}: ${JSON.stringify(o.body)} is not an Error body`);
    assert.is((o.body as { code: string }).code, 'storage_unavailable');
    assert.ok(Number(o.retryAfter) >= 1, `${what}: Retry-After ${o.retryAfter}`);
  }
}

it('connections terminated during 16 concurrent creates: the process stays up, the cut creates get 503, no acknowledged pet is lost, the next creates succeed', async () => {
  const schema = db!.schema('cut');
  const { server, exits } = await serve(schema);
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
      const rows = await db!.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'adoption-store-kit'`);
      terminated += rows.length;
    }
  })();
  await Promise.all([...writers, cutter]);

  const after = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => create(server.baseUrl, `cut-after-${i}`, HANG_BOUND_MS)));
  const result = tally(`postgres: ${terminated} backends terminated under ${CONCURRENCY} creates`, [...outcomes, ...after], await storedNamed(schema, 'cut-'), exits());
  printTally(result);

  assert.ok(terminated > 0, 'the scenario cut no connection');
  assert.is(result.exits, 0, `the server exited:\n${server.output().slice(-2000)}`);
  assertHonest(outcomes, 'during the cuts');
  assert.is(result.bare5xx, 0);
  assert.is(result.lost, 0);
  assert.is(result.duplicated, 0);
  assert.is(result.reusedIds, 0);
  assert.equal(
    after.map((o) => o.status),
    after.map(() => 201),
    'once the cuts stop, every create succeeds on new connections',
  );
});

it('a table locked by another session: creates, lists and /healthz answer 503 within --storage-timeout, and succeed once the lock is released', async () => {
  const schema = db!.schema('lock');
  const timeoutMs = 1_000;
  const { server, exits } = await serve(schema, ['--storage-timeout', String(timeoutMs)]);
  const origin = server.baseUrl.replace(/\/v1$/, '');
  const locker = new pg.Client({ connectionString: db!.url });
  locker.on('error', () => undefined);
  await locker.connect();
  // The server's statement_timeout cancels, or its client gives up a second later; 2 s of slack for a busy machine.
  const bound = timeoutMs + 1_000 + 2_000;
  try {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${schema}.pets IN ACCESS EXCLUSIVE MODE`);
    const [creates, health, list] = await Promise.all([
      Promise.all(Array.from({ length: 4 }, (_, i) => create(server.baseUrl, `locked-${i}`, HANG_BOUND_MS))),
      request(`${origin}/healthz`, {}, HANG_BOUND_MS),
      request(`${server.baseUrl}/pets`, { headers: { authorization: 'Bearer test-enterprise-key' } }, HANG_BOUND_MS),
    ]);
    printTally(tally('postgres: table locked (ACCESS EXCLUSIVE)', creates, [], exits()));
    assertHonest(creates, 'under the lock');
    for (const o of [...creates, health, list]) assert.ok(o.ms < bound, `answered after ${o.ms} ms, beyond ${bound} ms`);
    assert.equal(creates.map((o) => o.status), [503, 503, 503, 503]);
    assert.is(health.status, 503);
    assert.is((health.body as { code: string }).code, 'storage_unavailable');
    assert.match((health.body as { message: string }).message, /^The store does not answer: /);
    assert.is(list.status, 503);
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
  }
  assert.is((await request(`${origin}/healthz`, {}, HANG_BOUND_MS)).status, 200);
  const released = await create(server.baseUrl, 'unlocked', HANG_BOUND_MS);
  assert.is(released.status, 201);
  assert.equal(await storedNamed(schema, 'locked-'), [], 'a create answered 503 under the lock was not stored');
  assert.is(exits(), 0);
});

t.run();
