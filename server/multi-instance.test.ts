// Three reference servers (the real CLI, each its own process) on one PostgreSQL and one Redis behave
// as one server: a pet created through one is read through the others, pages walked through one never
// repeat or skip a pet while the others create, limits stay exact, and a kill -9 under write load
// loses no acknowledged pet and duplicates none.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RedisCounters } from './rate-limit/redis-counters.ts';
import { postgresForTests } from './testing/test-database.ts';
import { REDIS_URL, redisForTests } from './testing/services.ts';
import { running } from '../lib/processes.ts';
import { ROOT, startCli, type ServerProcess } from './testing/process.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';

const PREFIX = `adoption-test:multi-instance:${randomUUID()}:`;
const ENTERPRISE = { authorization: 'Bearer test-enterprise-key', 'content-type': 'application/json' };

const postgres = await postgresForTests('multi-instance.test.ts');
const redisService = await redisForTests('multi-instance.test.ts');
const t = suite('three instances on one PostgreSQL and one Redis');
const test = (redisService.missing ? redisService : postgres).register(t);
let instances: ServerProcess[] = [];
let redis: RedisCounters;

const start = () => startCli(['--port', '0', '--quiet', '--database', postgres.db!.url, '--redis', REDIS_URL, '--redis-prefix', PREFIX]);

t.before(async () => {
  if (!postgres.db || redisService.missing) return;
  redis = new RedisCounters({ url: REDIS_URL, prefix: PREFIX });
  assert.ok(await redis.connect(), `Redis must be running at ${REDIS_URL}`);
  // One after the other at first (the first creates and seeds the schema), then two at once.
  instances.push(await start());
  instances.push(...(await Promise.all([start(), start()])));
  for (const instance of instances) assert.match(instance.output(), /store: PostgreSQL .* \(10 pets\)/);
});

t.after(async () => {
  for (const instance of instances) instance.child.kill('SIGKILL');
  await Promise.all(instances.map((i) => i.exited));
  await redis?.reset();
  await redis?.close();
  await postgres.db?.drop();
});

const create = (i: number, name: string) =>
  fetch(`${instances[i]!.baseUrl}/pets`, { method: 'POST', headers: ENTERPRISE, body: JSON.stringify({ name, categoryId: 1, status: 'pending' }) });
const json = async <T>(response: Response) => (await response.json()) as T;

test('a pet created through one instance is got and listed through the others', async () => {
  const created = await json<{ id: number }>(await create(0, 'Shared'));
  for (const i of [1, 2]) {
    const got = await fetch(`${instances[i]!.baseUrl}/pets/${created.id}`, { headers: ENTERPRISE });
    assert.is(got.status, 200, `instance ${i}`);
    assert.is((await json<{ name: string }>(got)).name, 'Shared');
  }
  const listed = await json<Array<{ id: number }>>(await fetch(`${instances[2]!.baseUrl}/pets?status=pending&limit=100`, { headers: ENTERPRISE }));
  assert.ok(listed.some((p) => p.id === created.id));
});

test('pages walked through one instance never repeat or skip a pet while the others create', async () => {
  const before = new Set<number>();
  for (let url: string | null = `${instances[0]!.baseUrl}/pets?limit=100`; url;) {
    const res: Response = await fetch(url, { headers: ENTERPRISE });
    for (const p of await json<Array<{ id: number }>>(res)) before.add(p.id);
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    url = next ? new URL(next, instances[0]!.baseUrl).href : null;
  }
  let creating = true;
  const writers = [1, 2].map(async (i) => {
    for (let n = 0; creating && n < 200; n++) await create(i, `Concurrent ${i}-${n}`);
  });
  const seen: number[] = [];
  for (let url: string | null = `${instances[0]!.baseUrl}/pets?limit=3`; url;) {
    const res: Response = await fetch(url, { headers: ENTERPRISE });
    seen.push(...(await json<Array<{ id: number }>>(res)).map((p) => p.id));
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    url = next ? new URL(next, instances[0]!.baseUrl).href : null;
  }
  creating = false;
  await Promise.all(writers);
  assert.is(new Set(seen).size, seen.length, 'no pet on two pages');
  assert.equal(
    [...seen].sort((a, b) => a - b),
    seen,
    'in ascending id order',
  );
  for (const id of before) assert.ok(seen.includes(id), `pet ${id}, there before the walk, was skipped`);
});

test('limits stay exact across the three: 200 simultaneous requests on a fresh Free key admit 60', async () => {
  const answers = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      fetch(`${instances[i % 3]!.baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer test-free-key' } }).then((r) => r.status),
    ),
  );
  assert.is(answers.filter((s) => s === 200).length, 60);
  assert.is(answers.filter((s) => s === 429).length, 140);
});

test('kill -9 of an instance under write load: every acknowledged pet is there once, none duplicated', async () => {
  const victim = instances[1]!;
  const acknowledged: number[] = [];
  let stop = false;
  const writers = [1, 1, 1, 1, 2, 2].map(async (i, lane) => {
    for (let n = 0; !stop && n < 500; n++) {
      try {
        const res = await create(i, `Crash ${lane}-${n}`);
        if (res.status === 201) acknowledged.push((await json<{ id: number }>(res)).id);
      } catch {
        if (i === 1) return; // the instance is gone: this writer's connection died with it
      }
    }
  });
  while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 10));
  victim.child.kill('SIGKILL');
  await victim.exited;
  await new Promise((resolve) => setTimeout(resolve, 200));
  stop = true;
  await Promise.all(writers);
  const rows = await postgres.db!.query<{ id: string; n: string }>('SELECT id, count(*) AS n FROM pets GROUP BY id HAVING count(*) > 1');
  assert.equal(rows, [], 'no id twice');
  const stored = new Set((await postgres.db!.query<{ id: string }>('SELECT id FROM pets')).map((r) => Number(r.id)));
  const lost = acknowledged.filter((id) => !stored.has(id));
  process.stdout.write(`  [kill -9] ${acknowledged.length} creates acknowledged across two instances, one killed mid-load; lost ${lost.length}\n`);
  assert.equal(lost, []);
  // The survivors still serve, and a restarted instance joins without seeding again.
  instances[1] = await start();
  assert.match(instances[1].output(), /store: PostgreSQL/);
  assert.is((await create(1, 'After the crash')).status, 201);
});

test('--workers 2 runs two processes on one port as one server, and SIGTERM stops them all', async () => {
  const cluster = await startCli(['--port', '0', '--quiet', '--workers', '2', '--database', postgres.db!.url, '--redis', REDIS_URL, '--redis-prefix', PREFIX]);
  try {
    assert.match(cluster.output(), /workers: 2 processes on one port/);
    const workers = readFileSync(`/proc/${cluster.child.pid}/task/${cluster.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    assert.is(workers.length, 2);
    const created = await json<{ id: number }>(
      await fetch(`${cluster.baseUrl}/pets`, { method: 'POST', headers: ENTERPRISE, body: JSON.stringify({ name: 'Clustered', categoryId: 1 }) }),
    );
    for (let i = 0; i < 6; i++) assert.is((await fetch(`${cluster.baseUrl}/pets/${created.id}`, { headers: ENTERPRISE })).status, 200);
    cluster.child.kill('SIGTERM');
    assert.is(await cluster.exited, 0);
    for (const pid of workers) assert.not.ok(running(pid), `worker ${pid} outlived the primary`);
  } finally {
    cluster.child.kill('SIGKILL');
  }
});

t.run();

const alone = suite('--workers without the shared stores');
alone('is refused at once with one line saying what is missing', () => {
  const run = spawnSync(process.execPath, [...sourceArgs('server/cli.ts'), '--memory', '--workers', '2'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: START_BOUND_MS,
  });
  assert.is(run.status, 2);
  assert.match(run.stderr, /--workers: --workers 2 needs the shared stores \(--database <postgres url> and --redis <url>\)/);
});
alone.run();
