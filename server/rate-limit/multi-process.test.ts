// Three reference servers, each in its own process (the real CLI), sharing one Redis under a key
// prefix of this test's own: limits hold exactly across them.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startCli, type ServerProcess } from '../test/process.ts';
import { RedisStore } from './redis-store.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `adoption-test:multi-process:${randomUUID()}:`;

const t = suite('three instances sharing Redis');
let instances: ServerProcess[] = [];
let cleaner: RedisStore;

t.before(async () => {
  cleaner = new RedisStore({ url: REDIS_URL, prefix: PREFIX });
  assert.ok(await cleaner.connect(), `Redis must be running at ${REDIS_URL}`);
  instances = await Promise.all(
    [0, 1, 2].map(() => startCli(['--memory', '--quiet', '--port', '0', '--redis', REDIS_URL, '--redis-prefix', PREFIX])),
  );
  for (const instance of instances) assert.match(instance.output(), /rate limits: shared through Redis/);
});

t.after(async () => {
  for (const instance of instances) instance.child.kill('SIGTERM');
  await Promise.all(instances.map((i) => i.exited));
  await cleaner.reset();
  await cleaner.close();
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

t('200 simultaneous requests on a fresh Free key, spread over three processes, admit exactly 60', async () => {
  const answers = await burst(200, 'Bearer test-free-key');
  const admitted = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 429);
  const perInstance = [0, 1, 2].map((i) => admitted.filter((a) => a.instance === i).length);
  process.stdout.write(`  [3 processes, Redis] 200 simultaneous: ${admitted.length} admitted (per instance ${perInstance.join('/')}), ${refused.length} refused\n`);
  assert.is(admitted.length, 60);
  assert.is(refused.length, 140);
  assert.ok(refused.every((a) => a.code === 'rate_limited_minute' || a.code === 'key_banned'));
});

t('the key stays limited on every instance afterwards', async () => {
  const answers = await burst(3, 'Bearer test-free-key');
  assert.equal(answers.map((a) => a.status), [429, 429, 429]);
});

t('the per-address limit for requests without a key is shared too: exactly 30 get 401', async () => {
  const answers = await burst(45, 'Bearer not-a-valid-key');
  const unauthorized = answers.filter((a) => a.status === 401).length;
  process.stdout.write(`  [3 processes, Redis] 45 bad keys from one address: ${unauthorized} got 401, ${45 - unauthorized} got 429\n`);
  assert.is(unauthorized, 30);
  assert.ok(answers.filter((a) => a.status === 429).every((a) => a.code === 'rate_limited_ip' || a.code === 'ip_blocked'));
});

t.run();
