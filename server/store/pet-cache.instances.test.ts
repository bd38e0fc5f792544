// The caches of three reference servers (the real CLI) on one PostgreSQL and one Redis never serve a
// stale page or pet: a pet whose 201 came back is in every list sent after it, through any instance;
// pages walked during creates never skip or repeat; a reset is seen at once. And a page asked twice
// costs one statement.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeCursor } from '../pets/cursor.ts';
import { RedisCounters } from '../rate-limit/redis-counters.ts';
import { ROUND_TRIPS_LINE, type RoundTrips } from '../round-trips.ts';
import { startCli, type ServerProcess } from '../testing/process.ts';
import { REDIS_URL, redisForTests } from '../testing/services.ts';
import { postgresForTests } from '../testing/test-database.ts';

const PREFIX = `adoption-test:pet-cache:${randomUUID()}:`;
const ADMIN_TOKEN = 'pet-cache-admin-token';
const HEADERS = { authorization: 'Bearer test-enterprise-key', 'content-type': 'application/json' };

const postgres = await postgresForTests('pet-cache.instances.test.ts');
const redisService = await redisForTests('pet-cache.instances.test.ts');
const t = suite('pet caches of three instances on one PostgreSQL and one Redis');
const test = (redisService.missing ? redisService : postgres).register(t);
let instances: ServerProcess[] = [];
let redis: RedisCounters;

const start = () =>
  startCli(['--port', '0', '--quiet', '--database', postgres.db!.url, '--redis', REDIS_URL, '--redis-prefix', PREFIX, '--admin-token', ADMIN_TOKEN]);

t.before(async () => {
  if (!postgres.db || redisService.missing) return;
  redis = new RedisCounters({ url: REDIS_URL, prefix: PREFIX });
  assert.ok(await redis.connect(), `Redis must be running at ${REDIS_URL}`);
  instances.push(await start());
  instances.push(...(await Promise.all([start(), start()])));
});

t.after(async () => {
  for (const instance of instances) instance.child.kill('SIGKILL');
  await Promise.all(instances.map((i) => i.exited));
  await redis?.reset();
  await redis?.close();
  await postgres.db?.drop();
});

interface Page {
  sentAt: number;
  ids: number[];
}
const list = async (i: number, query: string): Promise<Page> => {
  const sentAt = performance.now();
  const res = await fetch(`${instances[i]!.baseUrl}/pets?${query}`, { headers: HEADERS });
  assert.is(res.status, 200);
  return { sentAt, ids: ((await res.json()) as Array<{ id: number }>).map((p) => p.id) };
};
const create = async (i: number, name: string, status = 'sold') => {
  const res = await fetch(`${instances[i]!.baseUrl}/pets`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ name, categoryId: 3, status }) });
  assert.is(res.status, 201);
  return ((await res.json()) as { id: number }).id;
};

/** The instance's own count of its round trips (SIGUSR2, server/round-trips.ts). */
async function roundTripsOf(instance: ServerProcess): Promise<RoundTrips> {
  const before = [...instance.output().matchAll(ROUND_TRIPS_LINE)].length;
  instance.child.kill('SIGUSR2');
  for (let waited = 0; waited < 5_000; waited += 20) {
    const lines = [...instance.output().matchAll(ROUND_TRIPS_LINE)];
    if (lines.length > before) return { postgres: Number(lines.at(-1)![2]), redis: Number(lines.at(-1)![3]) };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no round-trips line within 5 s');
}

test('the caches serve: a page or a pet asked again costs no statement, until a create moves the version on', async () => {
  // Entries live MAX_AGE_MS: on a machine slow enough to take that long between two requests, try again.
  let statements = Number.POSITIVE_INFINITY;
  let redisCalls = 0;
  for (let attempt = 0; attempt < 5 && statements > 0; attempt++) {
    await list(1, 'limit=7');
    await fetch(`${instances[1]!.baseUrl}/pets/3`, { headers: HEADERS });
    const before = await roundTripsOf(instances[1]!);
    await list(1, 'limit=7');
    assert.is((await fetch(`${instances[1]!.baseUrl}/pets/3`, { headers: HEADERS })).status, 200);
    const after = await roundTripsOf(instances[1]!);
    statements = after.postgres - before.postgres;
    redisCalls = after.redis - before.redis;
  }
  assert.is(statements, 0, 'answered from the cache');
  // The version rides on the limiter's call (rate-limit/passenger.ts): reading it costs no round trip of its own.
  assert.is(redisCalls, 2, 'one Redis round trip per request');
  const before = await roundTripsOf(instances[1]!);
  await create(0, 'Mover');
  await list(1, 'limit=7');
  assert.is((await roundTripsOf(instances[1]!)).postgres, before.postgres + 1, 'the page was read again after the create');
});

test('a pet created through one instance is on the next page and get of the others, caches warm, 30 times over', async () => {
  for (let n = 0; n < 30; n++) {
    const others = [0, 1, 2].filter((i) => i !== n % 3);
    for (const i of others) await list(i, 'status=sold&limit=100');
    const id = await create(n % 3, `Fresh ${n}`);
    for (const i of others) {
      assert.ok((await list(i, 'status=sold&limit=100')).ids.includes(id), `pet ${id} (created through ${n % 3}) missing from the list of ${i}`);
      assert.is((await fetch(`${instances[i]!.baseUrl}/pets/${id}`, { headers: HEADERS })).status, 200);
    }
  }
});

test('pages tailed through every instance while two create: none skips, repeats or lacks a pet acknowledged before it was asked', async () => {
  const start = Math.max(...(await list(0, 'limit=100&status=sold')).ids, 0);
  const acknowledged: Array<{ id: number; at: number }> = [];
  let writing = 2;
  const writers = [1, 2].map(async (i) => {
    for (let n = 0; n < 60; n++) acknowledged.push({ id: await create(i, `Tail ${i}-${n}`), at: performance.now() });
    writing--;
  });
  // Each reader follows the pets created after `start`, five at a time, from the page after the last it saw.
  const readers = [0, 1, 2].map(async (i) => {
    const seen: number[] = [];
    let after = start;
    for (let rounds = 0; rounds < 2_000; rounds++) {
      // An empty page ends the walk only if it was asked after every create was acknowledged: one
      // asked before the last 201 may rightly miss that pet.
      const writersWhenAsked = writing;
      const page = await list(i, `limit=5&status=sold&cursor=${encodeCursor(after)}`);
      assert.equal(
        [...page.ids].sort((a, b) => a - b),
        page.ids,
        'in id order',
      );
      assert.ok(
        page.ids.every((id) => id > after),
        `page after ${after} repeats a pet: ${page.ids}`,
      );
      const upTo = page.ids.length === 5 ? page.ids.at(-1)! : Number.MAX_SAFE_INTEGER;
      const lacking = acknowledged.filter((p) => p.at < page.sentAt && p.id > after && p.id <= upTo && !page.ids.includes(p.id));
      assert.equal(lacking, [], `instance ${i}, page after ${after}: acknowledged before it was asked, not on it`);
      seen.push(...page.ids);
      if (page.ids.length) after = page.ids.at(-1)!;
      else if (writersWhenAsked === 0) break;
    }
    return seen;
  });
  await Promise.all(writers);
  const walks = await Promise.all(readers);
  const all = acknowledged.map((p) => p.id).sort((a, b) => a - b);
  for (const walk of walks) assert.equal(walk, all, 'every pet once, in order');
});

test("an instance without the limiter (--no-rate-limit) caches nothing, but its creates reach the others' caches at once", async () => {
  const bare = await startCli(['--port', '0', '--quiet', '--database', postgres.db!.url, '--redis', REDIS_URL, '--redis-prefix', PREFIX, '--no-rate-limit']);
  instances.push(bare);
  const through = instances.length - 1;
  for (let n = 0; n < 10; n++) {
    for (const i of [0, 1]) await list(i, 'status=pending&limit=100');
    const id = await create(through, `Unlimited ${n}`, 'pending');
    for (const i of [0, 1]) assert.ok((await list(i, 'status=pending&limit=100')).ids.includes(id), `pet ${id} missing from the list of ${i}`);
  }
  const before = await roundTripsOf(bare);
  await list(through, 'limit=7');
  await list(through, 'limit=7');
  assert.is((await roundTripsOf(bare)).postgres, before.postgres + 2, 'no version seen, so no page served from a cache');
});

test('a reset through one instance is seen at once by the pages and pets of the others', async () => {
  const id = await create(0, 'Before the reset');
  for (const i of [1, 2]) {
    assert.equal((await list(i, `limit=1&cursor=${encodeCursor(id - 1)}`)).ids, [id]);
    assert.is((await fetch(`${instances[i]!.baseUrl}/pets/${id}`, { headers: HEADERS })).status, 200);
  }
  const reset = await fetch(`${instances[0]!.baseUrl.replace(/\/v1$/, '')}/__admin/pets/reset`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.is(reset.status, 200);
  for (const i of [1, 2]) {
    assert.equal((await list(i, `limit=1&cursor=${encodeCursor(id - 1)}`)).ids, [], `instance ${i} still lists created pets`);
    assert.is((await fetch(`${instances[i]!.baseUrl}/pets/${id}`, { headers: HEADERS })).status, 404, `instance ${i} still has pet ${id}`);
  }
});

t.run();
