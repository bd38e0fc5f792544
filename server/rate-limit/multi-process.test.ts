// Three reference servers, each in its own process (the real CLI), sharing one Redis under a key
// prefix of this test's own: limits hold exactly across them.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startCli, type ServerProcess } from '../testing/process.ts';
import { REDIS_URL, redisForTests } from '../testing/services.ts';
import { RedisCounters } from './redis-counters.ts';

const PREFIX = `adoption-test:multi-process:${randomUUID()}:`;
const ADMIN_TOKEN = 'multi-process-admin-token';

const redis = await redisForTests('multi-process.test.ts');
const t = suite('three instances sharing Redis');
const test = redis.register(t);
let instances: ServerProcess[] = [];
let cleaner: RedisCounters;

t.before(async () => {
  if (redis.missing) return;
  cleaner = new RedisCounters({ url: REDIS_URL, prefix: PREFIX });
  assert.ok(await cleaner.connect(), `Redis must be running at ${REDIS_URL}`);
  const common = ['--memory', '--quiet', '--port', '0', '--redis', REDIS_URL, '--redis-prefix', PREFIX];
  // The admin token by flag on the first, by environment on the second, none on the third.
  const started = await Promise.allSettled([
    startCli([...common, '--admin-token', ADMIN_TOKEN]),
    startCli(common, { ADMIN_TOKEN }),
    startCli(common, { ADMIN_TOKEN: '' }),
  ]);
  instances = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    // Never leave the others running: the test process would not exit.
    for (const instance of instances) instance.child.kill('SIGKILL');
    throw failed.reason;
  }
  for (const instance of instances) assert.match(instance.output(), /rate limits: shared through Redis/);
});

t.after(async () => {
  for (const instance of instances) instance.child.kill('SIGTERM');
  await Promise.all(instances.map((i) => i.exited));
  await cleaner?.reset();
  await cleaner?.close();
});

async function burst(n: number, authorization: string | undefined) {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const base = instances[i % instances.length]!.baseUrl;
      const response = await fetch(`${base}/pets?limit=1`, { headers: authorization ? { authorization } : {} });
      const body = (await response.json()) as { code?: string };
      return { status: response.status, code: body.code, instance: i % instances.length };
    }),
  );
}

test('the admin API is on with --admin-token or ADMIN_TOKEN, and off without (before any address is limited)', async () => {
  const clockOf = (i: number, token = ADMIN_TOKEN) =>
    fetch(`${instances[i]!.baseUrl.replace(/\/v1$/, '')}/__admin/clock`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
  assert.equal(await Promise.all([clockOf(0), clockOf(1), clockOf(2)]), [200, 200, 404]);
  assert.is(await clockOf(0, 'not-the-token'), 401);
  // The 404 above counted against this address; start the next tests from nothing.
  const reset = await fetch(`${instances[0]!.baseUrl.replace(/\/v1$/, '')}/__admin/rate-limits/reset`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.is(reset.status, 204);
});

test('200 simultaneous requests on a fresh Free key, spread over three processes, admit exactly 60', async () => {
  const answers = await burst(200, 'Bearer test-free-key');
  const admitted = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 429);
  const perInstance = [0, 1, 2].map((i) => admitted.filter((a) => a.instance === i).length);
  process.stdout.write(
    `  [3 processes, Redis] 200 simultaneous: ${admitted.length} admitted (per instance ${perInstance.join('/')}), ${refused.length} refused\n`,
  );
  assert.is(admitted.length, 60);
  assert.is(refused.length, 140);
  assert.ok(refused.every((a) => a.code === 'rate_limited_minute' || a.code === 'key_banned'));
});

test('the key stays limited on every instance afterwards', async () => {
  const answers = await burst(3, 'Bearer test-free-key');
  assert.equal(
    answers.map((a) => a.status),
    [429, 429, 429],
  );
});

test('the per-address limit for requests without a key is shared too: exactly 30 get 401', async () => {
  const answers = await burst(45, 'Bearer not-a-valid-key');
  const unauthorized = answers.filter((a) => a.status === 401).length;
  process.stdout.write(`  [3 processes, Redis] 45 bad keys from one address: ${unauthorized} got 401, ${45 - unauthorized} got 429\n`);
  assert.is(unauthorized, 30);
  assert.ok(answers.filter((a) => a.status === 429).every((a) => a.code === 'rate_limited_ip' || a.code === 'ip_blocked'));
});

test('a limiter reset through the admin API of one instance frees the key on every instance', async () => {
  const reset = await fetch(`${instances[0]!.baseUrl.replace(/\/v1$/, '')}/__admin/rate-limits/reset`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.is(reset.status, 204);
  const answers = await burst(3, 'Bearer test-free-key');
  assert.equal(
    answers.map((a) => a.status),
    [200, 200, 200],
  );
});

t.run();
