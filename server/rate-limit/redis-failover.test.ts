// Redis goes away and comes back: the server keeps answering (fail open, per-instance memory
// limits) and returns to the shared counts when Redis does. This test runs its own redis-server
// on a free port, stops it and starts it again.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import type { Server } from '@hapi/hapi';
import { ManualClock } from '../clock.ts';
import { createServer } from '../server.ts';
import type { FailoverCounters } from './failover-counters.ts';
import { RedisCounters } from './redis-counters.ts';
import { CountersUnavailableError } from './counters.ts';
import { keyWindows } from './policy.ts';
import { freePort } from '../../lib/processes.ts';
import { killRedis, startRedis } from '../testing/private-redis.ts';
import { serviceForTests } from '../testing/services.ts';

const PREFIX = `adoption-test:failover:${randomUUID()}:`;
const FREE = 'Bearer test-free-key';

async function keysIn(port: number): Promise<string[]> {
  const client = new Redis({ port, host: '127.0.0.1' });
  try {
    return await client.keys(`${PREFIX}*`);
  } finally {
    client.disconnect();
  }
}

/** This file starts and stops Redis servers of its own: it needs the redis-server program. */
const binary = await serviceForTests(
  'redis-failover.test.ts',
  'redis-server',
  async () => ((process.env.PATH ?? '').split(':').some((dir) => existsSync(`${dir}/redis-server`)) ? null : 'not on PATH'),
  'install it (apt-get install redis-server)',
);
const t = suite('Redis down and back');
const test = binary.register(t);
let port: number;
let redis: ChildProcess;
let server: Server;
let counters: FailoverCounters<RedisCounters>;
const events: string[] = [];

t.before(async () => {
  if (binary.missing) return;
  port = await freePort();
  redis = await startRedis(port);
  server = await createServer({
    port: 0,
    logger: false,
    clock: new ManualClock(),
    redisUrl: `redis://127.0.0.1:${port}`,
    rateLimit: { redisPrefix: PREFIX, ban: { threshold: 0 } },
  });
  server.events.on('log', (event) => {
    if (event.tags.includes('rate-limit')) events.push(String(event.data));
  });
  await server.initialize();
  counters = server.plugins['rate-limit']!.counters as FailoverCounters<RedisCounters>;
});

t.after(async () => {
  if (binary.missing) return;
  await server.stop();
  await killRedis(redis);
});

const get = (authorization = FREE) => server.inject({ method: 'GET', url: '/v1/pets?limit=1', headers: { authorization } });

test('with Redis up, requests are counted in Redis', async () => {
  assert.ok(counters.primary.ready);
  const res = await get();
  assert.is(res.statusCode, 200);
  assert.is(res.headers['x-ratelimit-remaining'], '59');
  const keys = await keysIn(port);
  assert.ok(
    keys.some((k) => k.endsWith(':w:minute')),
    keys.join(', '),
  );
  assert.not.ok(counters.degraded);
});

test('with Redis gone, the server keeps answering and limits on its own (fail open)', async () => {
  await killRedis(redis);
  const first = await get();
  assert.is(first.statusCode, 200);
  assert.ok(counters.degraded);
  assert.ok(first.headers['x-ratelimit-limit'], 'headers are still sent');
  // The memory fallback still enforces the plan on this instance, from the count Redis last gave (1).
  assert.is(first.headers['x-ratelimit-remaining'], '58');
  const rest = [];
  for (let i = 0; i < 60; i++) rest.push((await get()).statusCode);
  assert.is(rest.filter((s) => s === 200).length, 58);
  assert.is(rest.at(-1), 429);
  assert.ok(
    events.some((e) => /Redis unavailable/.test(e)),
    events.join(' | '),
  );
});

test('when Redis returns, the counters reconnect by themselves and count in Redis again', async () => {
  redis = await startRedis(port);
  await Promise.race([
    counters.primary.whenReady(),
    new Promise((_, reject) => setTimeout(() => reject(new Error('no reconnection within 10 s')), 10_000).unref()),
  ]);
  const res = await get('Bearer test-pro-key');
  assert.is(res.statusCode, 200);
  assert.is(res.headers['x-ratelimit-remaining'], '299');
  assert.not.ok(counters.degraded);
  const keys = await keysIn(port);
  assert.ok(keys.length > 0, 'the new Redis holds the counts');
  assert.ok(
    events.some((e) => /Redis is back/.test(e)),
    events.join(' | '),
  );
  // The restarted Redis was empty: the Free key's count is rebuilt from what this instance knew, not restarted.
  const free = await get();
  assert.is(free.statusCode, 429);
  assert.is(free.headers['x-ratelimit-remaining'], '0');
});

test('admin clock moves reach the Redis TTLs', async () => {
  const admin = await createServer({
    port: 0,
    logger: false,
    clock: new ManualClock(),
    redisUrl: `redis://127.0.0.1:${port}`,
    adminToken: 'failover-admin-token',
    rateLimit: { redisPrefix: `${PREFIX}admin:` },
  });
  await admin.initialize();
  try {
    const call = () => admin.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: FREE } });
    for (let i = 0; i < 60; i++) await call();
    assert.is((await call()).statusCode, 429);
    const moved = await admin.inject({
      method: 'POST',
      url: '/__admin/clock/advance',
      payload: { seconds: 60 },
      headers: { authorization: 'Bearer failover-admin-token' },
    });
    assert.is(moved.statusCode, 200);
    const after = await call();
    assert.is(after.statusCode, 200);
    assert.is(after.headers['x-ratelimit-remaining'], '59');
  } finally {
    await admin.stop();
  }
});

t.run();

const late = suite('Redis absent at start');

binary.register(late)('the server starts and serves with the memory fallback, then joins Redis once it answers', async () => {
  const latePort = await freePort();
  const lateServer = await createServer({
    port: 0,
    logger: false,
    clock: new ManualClock(),
    redisUrl: `redis://127.0.0.1:${latePort}`,
    rateLimit: { redisPrefix: `${PREFIX}late:` },
  });
  let lateRedis: ChildProcess | undefined;
  try {
    await lateServer.initialize(); // does not throw without Redis
    const lateCounters = lateServer.plugins['rate-limit']!.counters as FailoverCounters<RedisCounters>;
    const first = await lateServer.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: FREE } });
    assert.is(first.statusCode, 200);
    assert.is(first.headers['x-ratelimit-remaining'], '59');
    assert.ok(lateCounters.degraded);

    lateRedis = await startRedis(latePort);
    await Promise.race([
      lateCounters.primary.whenReady(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no connection within 10 s')), 10_000).unref()),
    ]);
    const shared = await lateServer.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: FREE } });
    assert.is(shared.headers['x-ratelimit-remaining'], '58', 'what this instance admitted alone was added to Redis');
    assert.not.ok(lateCounters.degraded);
    const client = new Redis({ port: latePort, host: '127.0.0.1' });
    try {
      assert.ok((await client.keys(`${PREFIX}late:*`)).length > 0);
    } finally {
      client.disconnect();
    }
  } finally {
    await lateServer.stop();
    if (lateRedis) await killRedis(lateRedis);
  }
});

late.run();

const hung = suite('Redis that hangs (connected, not answering)');

binary.register(hung)('a command fails after the command timeout instead of waiting, and works again when Redis does', async () => {
  const hungPort = await freePort();
  const hungRedis = await startRedis(hungPort);
  const direct = new RedisCounters({ url: `redis://127.0.0.1:${hungPort}`, prefix: `${PREFIX}hung:`, commandTimeoutMs: 200 });
  const request = { partition: 'key:hung', windows: keyWindows({ perMinute: 5, perDay: 10 }), ban: null, cost: 1 as const };
  try {
    assert.ok(await direct.connect());
    assert.is((await direct.consume(request)).outcome, 'admitted');
    hungRedis.kill('SIGSTOP');
    try {
      await direct.consume(request);
      assert.unreachable('a hung Redis must not be waited for');
    } catch (error) {
      assert.instance(error, CountersUnavailableError);
      assert.match((error as Error).message, /timed out/i);
    }
  } finally {
    hungRedis.kill('SIGCONT');
  }
  try {
    const again = await direct.consume(request);
    assert.is(again.outcome, 'admitted');
  } finally {
    await direct.close();
    await killRedis(hungRedis);
  }
});

hung.run();
