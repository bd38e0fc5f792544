// The real server on PostgreSQL while its connections are terminated mid-create and its table locked:
// it must stay up, answer what it cannot do with 503, Retry-After and an Error body in time, lose no
// acknowledged pet, and serve again by itself. Scenarios: postgres-scenarios.ts (also `npm run chaos`).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postgresForTests } from '../test-database.ts';
import { CONCURRENCY, HANG_BOUND_MS, pgDown, pgLock, pgTerminate } from './postgres-scenarios.ts';
import { assertNoLeaks } from './leaks.ts';
import { isErrorBody, printTally, type CreateOutcome } from './tally.ts';

const postgres = await postgresForTests('chaos/postgres.test.ts');
const db = postgres.db;
const t = suite('PostgreSQL faults under the running server');
const it = postgres.register(t);
// Each scenario stops its own server, also when it fails.
t.after(async () => {
  await db?.drop();
});

function assertHonest(outcomes: readonly CreateOutcome[], what: string): void {
  for (const o of outcomes) {
    if (o.status === 201) continue;
    assert.is(o.status, 503, `${what}: ${o.name} was answered ${o.status}${o.error ? ` (${o.error})` : ''} ${JSON.stringify(o.body)}`);
    assert.ok(isErrorBody(o.body, 503), `${what}: ${JSON.stringify(o.body)} is not an Error body`);
    assert.is((o.body as { code: string }).code, 'storage_unavailable');
    assert.ok(Number(o.retryAfter) >= 1, `${what}: Retry-After ${o.retryAfter}`);
  }
}

/** The checks `npm run chaos` counts say nothing the assertions above them did not. */
function assertChecks(checks: Record<string, boolean>): void {
  for (const [name, ok] of Object.entries(checks)) assert.ok(ok, name);
}

it(`connections terminated during ${CONCURRENCY} concurrent creates: the process stays up, the cut creates get 503, no acknowledged pet is lost, the next creates succeed`, async () => {
  const { tally: result, checks, terminated, outcomes, after, output } = await pgTerminate(db!);
  printTally(result);

  assert.ok(terminated > 0, 'the scenario cut no connection');
  assert.is(result.exits, 0, `the server exited:\n${output.slice(-2000)}`);
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
  assertChecks(checks);
});

it('a table locked by another session: creates, lists and /healthz answer 503 by --storage-timeout while it is held, and succeed once the lock is released', async () => {
  const round = await pgLock(db!);
  const { creates, health, list } = round;
  printTally(round.tally);

  assertHonest(creates, 'under the lock');
  // Answered by the server under the lock, which is held until every answer is in: its
  // --storage-timeout answered them, whatever the time a busy machine took.
  for (const o of [...creates, health, list]) assert.is.not(o.status, 'hung', `no answer within the client's ${HANG_BOUND_MS} ms hang bound`);
  assert.equal(
    creates.map((o) => o.status),
    [503, 503, 503, 503],
  );
  assert.is(health.status, 503);
  assert.is((health.body as { code: string }).code, 'storage_unavailable');
  assert.match((health.body as { message: string }).message, /^The store does not answer: /);
  assert.is(list.status, 503);

  assert.is(round.healthAfter.status, 200);
  assert.is(round.released.status, 201);
  assert.equal(round.storedLocked, [], 'a create answered 503 under the lock was not stored');
  assert.is(round.exits, 0);
  assertChecks(round.checks);
});

it('the database stopped, then started: /healthz, creates and lists answer 503 naming the failure by its code only, and serve again by themselves', async () => {
  const round = await pgDown(db!);
  printTally(round.tally);
  assert.is(round.health.status, 503);
  assert.equal(round.health.body, { code: 'storage_unavailable', message: 'The store does not answer: connection refused (ECONNREFUSED)', status: 503 });
  assertHonest([round.created], 'while the database is down');
  assert.is(round.list.status, 503);
  assert.is(round.healthAfter.status, 200);
  assert.is(round.released.status, 201);
  assert.is(round.tally.lost, 0);
  assertChecks(round.checks);
});

it('no 5xx or /healthz body of these scenarios names an address, a user or a path', () => assertNoLeaks());

t.run();
