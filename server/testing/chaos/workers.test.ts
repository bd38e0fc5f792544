// `--workers 2` (the real CLI) with workers killed by SIGKILL: requests in flight on a killed worker are
// answered or fail at once, never hang; the primary restarts what died, and exits non-zero (for its
// supervisor) when workers die faster than restarting helps. Scenarios: workers-scenarios.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postgresForTests } from '../test-database.ts';
import { REDIS_URL, redisForTests } from '../services.ts';
import { printTally } from './tally.ts';
import { assertNoLeaks } from './leaks.ts';
import { HANG_BOUND_MS, workersGiveUp, workersInFlight, type Services } from './workers-scenarios.ts';

const postgres = await postgresForTests('chaos/workers.test.ts');
const redis = await redisForTests('chaos/workers.test.ts');
const db = postgres.db;
const t = suite('--workers 2 under kill -9');
const it = (redis.missing ? redis : postgres).register(t);
// Each scenario stops its primary and workers and drops its Redis keys, also when it fails.
t.after(async () => {
  await db?.drop();
});
const services = (): Services => ({ db: db!, redisUrl: REDIS_URL });

/** The checks `npm run chaos` counts say nothing the assertions above them did not. */
function assertChecks(checks: Record<string, boolean>): void {
  for (const [name, ok] of Object.entries(checks)) assert.ok(ok, name);
}

it('requests in flight on a killed worker get an answer or an error at once, and the primary restarts the worker', async () => {
  const { tally: result, checks, killed, outcomes, after, restarted, workers, output } = await workersInFlight(services());
  printTally(result);

  assert.is(killed.length, 2);
  assert.is(result.hung, 0, `${result.hung} requests neither answered nor failed within ${HANG_BOUND_MS} ms`);
  for (const o of outcomes) assert.ok(o.status === 201 || o.status === 'error' || o.status === 503, `${o.name}: ${o.status} ${JSON.stringify(o.body)}`);
  assert.is(result.bare5xx, 0);
  assert.is(result.lost, 0);
  assert.is(result.duplicated, 0);
  assert.is(result.reusedIds, 0);
  assert.is(result.exits, 0, 'the primary stays up');
  assert.is(restarted, 2, 'each killed worker was restarted and listens');
  assert.is(workers.length, 2, `two workers again, got ${workers.join(', ')}`);
  assert.not.ok(workers.some((w) => killed.includes(w)));
  assert.is(after.status, 201);
  assert.match(output, /worker \d+ exited \(SIGKILL\) after [\d.]+ s; restarting it in 0\.1 s/);
  assertChecks(checks);
});

it('workers killed again and again: restarted with a growing backoff, then the primary gives up and exits 1', async () => {
  const { tally: result, checks, code, output } = await workersGiveUp(services());
  printTally(result);

  assert.is.not(code, undefined, 'the primary gave up within 40 s');
  assert.is(code, 1);
  assert.match(output, /restarting it in 0\.1 s \(crash 1 of 4/);
  assert.match(output, /restarting it in 0\.2 s \(crash 2 of 4/);
  assert.match(output, /4 crashes within 60\.0 s: giving up, stopping every worker, exit 1/);
  assertChecks(checks);
});

// A killed worker mostly shows as a connection error, not a 5xx: a run may cause none to search.
it('no 5xx or /healthz body of these scenarios names an address, a user or a path', () => assertNoLeaks({ failureOptional: true }));

t.run();
