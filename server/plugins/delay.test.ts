// --delay (json-server's convention): API answers are held, the admin API is not, a stop ends the
// wait, and the request is decided when its wait is over. No test here depends on the machine's
// speed: the hold is a minute where only the order matters, and only a lower bound is asserted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseServeArgs } from '../cli.ts';
import { startBanner } from '../banner.ts';
import { MAX_DELAY_MS } from '../options.ts';
import { createServer } from '../server.ts';

const FREE = { authorization: 'Bearer test-free-key' };

test('--delay holds an API answer; the admin API answers meanwhile, and a stop ends the wait', async () => {
  const server = await createServer({ port: 0, logger: false, storage: { type: 'memory' }, adminToken: 'delay-admin-token', delayMs: MAX_DELAY_MS });
  let apiDone = false;
  const api = server.inject({ url: '/v1/pets?limit=1', headers: FREE }).then((res) => {
    apiDone = true;
    return res;
  });
  try {
    const admin = await server.inject({ url: '/__admin/clock', headers: { authorization: 'Bearer delay-admin-token' } });
    assert.is(admin.statusCode, 200);
    assert.not.ok(apiDone, 'the API answer is still held while the admin API answers');
  } finally {
    await server.stop();
  }
  // The stop ended the minute's wait: the held request was answered, not left hanging. Half the
  // delay is a generous bound that only a wait the stop did not end can reach.
  const bound = new Promise<'still held'>((resolve) => setTimeout(() => resolve('still held'), MAX_DELAY_MS / 2).unref());
  const after = await Promise.race([api, bound]);
  assert.is.not(after, 'still held', 'the stop did not end the wait');
});

test('a held answer comes no sooner than the delay', async () => {
  const server = await createServer({ port: 0, logger: false, storage: { type: 'memory' }, delayMs: 300 });
  try {
    const started = Date.now();
    const res = await server.inject({ url: '/v1/pets?limit=1', headers: FREE });
    assert.is(res.statusCode, 200);
    assert.ok(Date.now() - started >= 295, `held ${Date.now() - started} ms`);
  } finally {
    await server.stop();
  }
});

test('--delay and DELAY_MS reach the server, and the banner says so', async () => {
  assert.is((parseServeArgs(['--delay', '250'], {}) as { delayMs: number }).delayMs, 250);
  assert.is((parseServeArgs([], { DELAY_MS: '40' }) as { delayMs: number }).delayMs, 40);
  assert.throws(() => parseServeArgs(['--delay', '60001'], {}), /60000/);
  const server = await createServer({ host: '127.0.0.1', port: 0, logger: false, storage: { type: 'memory' }, delayMs: 250 });
  await server.start();
  try {
    assert.match(await startBanner(server), /^ {2}every API answer held 250 ms \(--delay\)$/m);
  } finally {
    await server.stop();
  }
});

test.run();
