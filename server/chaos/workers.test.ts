// `--workers 2` (the real CLI) while its workers are killed with SIGKILL: a client with requests in
// flight on a killed worker gets an answer or a connection error at once, never a hang; the primary
// restarts what died; and when workers die faster than restarting helps, the primary gives up with a
// non-zero exit, so that whatever supervises it restarts the whole server.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../lib/processes.ts';
import { postgresForTests } from '../store/test-database.ts';
import { REDIS_URL, redisForTests } from '../test/services.ts';
import { startCli, type ServerProcess } from '../test/process.ts';
import { create, printTally, tally, type CreateOutcome } from './tally.ts';

const postgres = await postgresForTests('chaos/workers.test.ts');
const redis = await redisForTests('chaos/workers.test.ts');
const db = postgres.db;
const t = suite('--workers 2 under kill -9');
const it = (redis.missing ? redis : postgres).register(t);
const clusters: ServerProcess[] = [];
t.after(async () => {
  for (const cluster of clusters) cluster.child.kill('SIGKILL');
  await Promise.all(clusters.map((c) => c.exited));
  // The workers of a primary killed with SIGKILL are orphans; they stop with it under npm only.
  for (const pid of orphans) kill(pid);
  await db?.drop();
});

/** A request that neither answers nor fails within this is hung. */
const HANG_BOUND_MS = 10_000;
const orphans = new Set<number>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function workersOf(pid: number): number[] {
  try {
    const found = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    for (const worker of found) orphans.add(worker);
    return found;
  } catch {
    return [];
  }
}

function kill(pid: number): boolean {
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

async function startCluster(schema: string, extra: string[] = []): Promise<ServerProcess> {
  // A port of its own, not 0: when every worker holding the listening socket has died, node:cluster
  // closes it, and the next worker would listen on another random port.
  const cluster = await startCli([
    '--port', String(await freePort()), '--quiet', '--no-rate-limit', '--workers', '2',
    '--database', `${db!.url}?schema=${schema}`, '--redis', REDIS_URL, '--redis-prefix', `adoption-test:chaos-workers:${randomUUID()}:`,
    ...extra,
  ]);
  clusters.push(cluster);
  return cluster;
}

it('requests in flight on a killed worker get an answer or an error at once, and the primary restarts the worker', async () => {
  const schema = db!.schema('inflight');
  const cluster = await startCluster(schema);
  let primaryExits = 0;
  void cluster.exited.then(() => primaryExits++);
  const outcomes: CreateOutcome[] = [];
  const deadline = Date.now() + 6_000;
  let next = 0;
  const clients = Array.from({ length: 16 }, async () => {
    for (let i = 0; i < 400 && Date.now() < deadline; i++) {
      const outcome = await create(cluster.baseUrl, `inflight-${next++}`, HANG_BOUND_MS);
      outcomes.push(outcome);
      // A refused connection fails at once; without a pause the loop would count thousands of them.
      if (outcome.status === 'error') await sleep(50);
    }
  });
  const killed: number[] = [];
  const killer = (async () => {
    for (const wait of [1_500, 2_000]) {
      await sleep(wait);
      const victim = workersOf(cluster.child.pid!)[0];
      if (victim !== undefined && kill(victim)) killed.push(victim);
    }
  })();
  await Promise.all([...clients, killer]);

  // Restarted: a worker listening again for each one killed, neither of them a killed one, and the server serves.
  const restarted = () => cluster.output().match(/worker \d+ listening \(restarted\)/g)?.length ?? 0;
  for (let i = 0; i < 100 && restarted() < killed.length; i++) await sleep(100);
  const workers = workersOf(cluster.child.pid!);
  const after = await create(cluster.baseUrl, 'inflight-after', HANG_BOUND_MS);
  const stored = await db!.query<{ id: number; name: string }>(`SELECT id::int AS id, name FROM ${schema}.pets WHERE name LIKE 'inflight-%'`);
  const result = tally(`workers: ${killed.length} workers kill -9'd under 16 clients`, [...outcomes, after], stored, primaryExits);
  printTally(result);

  assert.is(killed.length, 2);
  assert.is(result.hung, 0, `${result.hung} requests neither answered nor failed within ${HANG_BOUND_MS} ms`);
  for (const o of outcomes) assert.ok(o.status === 201 || o.status === 'error' || o.status === 503, `${o.name}: ${o.status} ${JSON.stringify(o.body)}`);
  assert.is(result.bare5xx, 0);
  assert.is(result.lost, 0);
  assert.is(result.duplicated, 0);
  assert.is(result.reusedIds, 0);
  assert.is(result.exits, 0, 'the primary stays up');
  assert.is(restarted(), 2, 'each killed worker was restarted and listens');
  assert.is(workers.length, 2, `two workers again, got ${workers.join(', ')}`);
  assert.not.ok(workers.some((w) => killed.includes(w)));
  assert.is(after.status, 201);
  assert.match(cluster.output(), /worker \d+ exited \(SIGKILL\) after [\d.]+ s; restarting it in 0\.1 s/);
});

it('workers killed again and again: restarted with a growing backoff, then the primary gives up and exits 1', async () => {
  const cluster = await startCluster(db!.schema('giveup'), ['--worker-crash-limit', '4']);
  let code: number | null | undefined;
  void cluster.exited.then((c) => (code = c));
  let kills = 0;
  const started = Date.now();
  while (code === undefined && Date.now() - started < 40_000) {
    for (const worker of workersOf(cluster.child.pid!)) if (kill(worker)) kills++;
    await sleep(150);
  }
  const output = cluster.output();
  printTally({ ...tally(`workers: killed ${kills} times, crash limit 4`, [], [], code === undefined ? 0 : 1), scenario: `workers: ${kills} kills, crash limit 4 (primary exit ${code})` });

  assert.is.not(code, undefined, 'the primary gave up within 40 s');
  assert.is(code, 1);
  assert.match(output, /restarting it in 0\.1 s \(crash 1 of 4/);
  assert.match(output, /restarting it in 0\.2 s \(crash 2 of 4/);
  assert.match(output, /4 crashes within 60\.0 s: giving up, stopping every worker, exit 1/);
});

t.run();
