// --delay (json-server's convention): API answers are held, the admin API is not, and a held request
// is decided when its wait is over. Lower bounds only: a busy machine makes answers later, never sooner.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseServeArgs } from '../cli.ts';
import { startBanner } from '../banner.ts';
import { createServer } from '../server.ts';

const DELAY_MS = 1500;

test('--delay <ms> holds an API answer that long; the admin API answers while it waits', async () => {
  const server = await createServer({ port: 0, logger: false, storage: { type: 'memory' }, adminToken: 'delay-admin-token', delayMs: DELAY_MS });
  try {
    const started = Date.now();
    let apiDone = false;
    const api = server.inject({ url: '/v1/pets?limit=1', headers: { authorization: 'Bearer test-free-key' } }).then((res) => {
      apiDone = true;
      return res;
    });
    const admin = await server.inject({ url: '/__admin/clock', headers: { authorization: 'Bearer delay-admin-token' } });
    assert.is(admin.statusCode, 200);
    assert.not.ok(apiDone, 'the admin API answered while the API answer was held');
    const res = await api;
    assert.is(res.statusCode, 200);
    assert.ok(Date.now() - started >= DELAY_MS - 5, `held ${Date.now() - started} ms`);
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
