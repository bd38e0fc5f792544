import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from '@hapi/hapi';
import { ManualClock, SystemClock } from '../clock.ts';
import { createServer } from '../server.ts';
import type { ServerOptions } from '../options.ts';
import { send } from '../testing/helpers.ts';

const TOKEN = 'harness-admin-token';
const ADMIN = `Bearer ${TOKEN}`;
const FREE = 'Bearer test-free-key';
const START = Date.UTC(2026, 0, 1);

async function setup(options: ServerOptions = {}) {
  const clock = new ManualClock(START);
  const server = await createServer({ port: 0, logger: false, clock, adminToken: TOKEN, ...options });
  return { clock, server };
}
/** `authorization: null` sends none. */
const admin = (server: Server, method: string, url: string, payload?: unknown, authorization: string | null = ADMIN) =>
  send(server, { method, url: `/__admin${url}`, payload: payload as object | undefined, headers: { authorization: authorization ?? undefined } });

const access = suite('access');

access('without an admin token the admin API does not exist', async () => {
  const server = await createServer({ port: 0, logger: false });
  const res = await admin(server, 'POST', '/reset');
  assert.is(res.status, 404);
});

const denied: Array<[string, string | null, string]> = [
  ['no Authorization', null, 'Bearer realm="adoption-store-admin"'],
  ['a wrong token', 'Bearer not-the-admin-token', 'Bearer realm="adoption-store-admin", error="invalid_token"'],
  ['an API key', FREE, 'Bearer realm="adoption-store-admin", error="invalid_token"'],
  ['the token under another scheme', `Basic ${TOKEN}`, 'Bearer realm="adoption-store-admin"'],
];
for (const [name, authorization, challenge] of denied) {
  for (const [method, url] of [
    ['POST', '/reset'],
    ['POST', '/rate-limits/reset'],
    ['GET', '/clock'],
    ['POST', '/clock/advance'],
  ] as const) {
    access(`${name}: ${method} ${url} is 401 with a Bearer challenge`, async () => {
      const { server, clock } = await setup();
      const res = await admin(server, method, url, method === 'POST' ? { seconds: 60 } : undefined, authorization);
      assert.is(res.status, 401);
      assert.is(res.body.code, 'invalid_admin_token');
      assert.is(res.headers['www-authenticate'], challenge);
      assert.is(clock.now(), START, 'nothing moved');
    });
  }
}

access('admin requests are neither rate limited nor counted', async () => {
  const { server } = await setup();
  for (let i = 0; i < 100; i++) assert.is((await admin(server, 'GET', '/clock')).status, 200);
  const res = await admin(server, 'GET', '/clock');
  assert.is(res.headers['x-ratelimit-limit'], undefined);
  const api = await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: undefined } });
  assert.is(api.headers['x-ratelimit-remaining'], '29');
});

access('guessing the token is limited like guessing API keys, then blocked, and the block holds for the right token too', async () => {
  const { server, clock } = await setup();
  const guess = (i: number) => admin(server, 'GET', '/clock', undefined, `Bearer wrong-guess-${i}`);
  for (let i = 0; i < 30; i++) assert.is((await guess(i)).status, 401, `guess ${i}`);
  const over = await guess(30);
  assert.is(over.status, 429);
  assert.is(over.body.code, 'rate_limited_ip');
  for (let i = 31; i < 51; i++) await guess(i);
  const right = await admin(server, 'GET', '/clock');
  assert.is(right.status, 429, 'a blocked address learns nothing, not even from the right token');
  assert.is(right.body.code, 'ip_blocked');
  clock.advance(600_000);
  assert.is((await admin(server, 'GET', '/clock')).status, 200, 'the block lifts on time');
});

access('an address sending bad API keys does not lock its own harness out of the admin API', async () => {
  const { server } = await setup();
  for (let i = 0; i < 60; i++) await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer bad-key-123' } });
  const api = await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer bad-key-123' } });
  assert.is(api.body.code, 'ip_blocked');
  const reset = await admin(server, 'POST', '/rate-limits/reset');
  assert.is(reset.status, 204);
  assert.is((await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } })).status, 200);
});

access.run();

// ---------------------------------------------------------------------------------------------
const resets = suite('resets');

resets('POST /__admin/pets/reset puts the seed pets back', async () => {
  const { server } = await setup();
  const created = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'Mochi', categoryId: 2 } });
  assert.is(created.status, 201);
  const res = await admin(server, 'POST', '/pets/reset');
  assert.is(res.status, 200);
  assert.equal(res.body, { pets: 10 });
  assert.is((await send(server, { method: 'GET', url: `/v1/pets/${created.body.id}` })).status, 404);
});

resets('POST /__admin/rate-limits/reset forgets windows and bans', async () => {
  const { server } = await setup();
  for (let i = 0; i < 80; i++) await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } });
  assert.is((await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } })).body.code, 'key_banned');
  assert.is((await admin(server, 'POST', '/rate-limits/reset')).status, 204);
  const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } });
  assert.is(res.status, 200);
  assert.is(res.headers['x-ratelimit-remaining'], '59');
});

resets('POST /__admin/reset does both and reports the clock', async () => {
  const { server } = await setup();
  await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'Mochi', categoryId: 2 } });
  for (let i = 0; i < 60; i++) await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } });
  const res = await admin(server, 'POST', '/reset');
  assert.is(res.status, 200);
  assert.equal(res.body, { pets: 10, rateLimits: 'reset', clock: { now: new Date(START).toISOString(), epochMs: START } });
  assert.is((await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } })).status, 200);
});

resets('a reset restores the pets the server was seeded with', async () => {
  const { server } = await setup({ seedPets: [{ id: 1, name: 'Solo', categoryId: 1, status: 'sold' }] });
  assert.equal((await admin(server, 'POST', '/pets/reset')).body, { pets: 1 });
});

resets.run();

// ---------------------------------------------------------------------------------------------
const clock = suite('moving the clock');

clock('GET /__admin/clock reports the server time', async () => {
  const { server } = await setup();
  assert.equal((await admin(server, 'GET', '/clock')).body, { now: '2026-01-01T00:00:00.000Z', epochMs: START });
});

clock('advancing a day ends the day window', async () => {
  const { server } = await setup({ apiKeys: [{ key: 'tiny-enterprise-key', plan: 'enterprise', limits: { perMinute: 3, perDay: 3 } }] });
  const get = () => send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer tiny-enterprise-key' } });
  for (let i = 0; i < 3; i++) await get();
  // A minute later the minute window is fresh; the day's is still spent.
  await admin(server, 'POST', '/clock/advance', { seconds: 60 });
  assert.is((await get()).body.code, 'rate_limited_day');
  const moved = await admin(server, 'POST', '/clock/advance', { seconds: 86_340 });
  assert.is(moved.status, 200);
  assert.equal(moved.body, { advancedMs: 86_340_000, now: '2026-01-02T00:00:00.000Z', epochMs: START + 86_400_000 });
  assert.is((await get()).status, 200);
});

clock('advancing lifts a ban and reaches the sunset', async () => {
  const { server } = await setup();
  for (let i = 0; i < 80; i++) await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } });
  await admin(server, 'POST', '/clock/advance', { ms: 600_000 });
  assert.is((await send(server, { method: 'GET', url: '/v1/pets/1', headers: { authorization: FREE } })).status, 200);
  await admin(server, 'POST', '/clock/advance', { ms: Date.UTC(2030, 11, 5) - START });
  assert.is((await send(server, { method: 'GET', url: '/v1/pets/1', headers: { authorization: FREE } })).status, 410);
});

clock('the default system clock moves too', async () => {
  const server = await createServer({ port: 0, logger: false, clock: new SystemClock(), adminToken: TOKEN });
  const before = Date.now();
  const res = await admin(server, 'POST', '/clock/advance', { seconds: 3_600 });
  assert.ok(res.body.epochMs >= before + 3_600_000);
});

const badBodies: Array<[string, unknown]> = [
  ['no body', undefined],
  ['both ms and seconds', { ms: 1, seconds: 1 }],
  ['a negative amount', { seconds: -5 }],
  ['a fraction', { seconds: 1.5 }],
  ['an unknown field', { minutes: 1 }],
];
for (const [name, body] of badBodies) {
  clock(`${name}: 400 and the clock stays`, async () => {
    const { server, clock: c } = await setup();
    const res = await admin(server, 'POST', '/clock/advance', body);
    assert.is(res.status, 400);
    assert.equal(Object.keys(res.body).sort(), ['code', 'message', 'status']);
    assert.is(c.now(), START);
  });
}

for (const body of [{ seconds: 1e15 }, { ms: 8.64e15 }, { seconds: Number.MAX_SAFE_INTEGER }]) {
  clock(`${JSON.stringify(body)}, past the last representable date: 400 invalid_body, and the clock stays and still works`, async () => {
    const { server, clock: c } = await setup();
    const res = await admin(server, 'POST', '/clock/advance', body);
    assert.is(res.status, 400);
    assert.is(res.body.code, 'invalid_body');
    assert.is(res.body.status, 400);
    assert.match(res.body.message, /^"(ms|seconds)" must be at most \d+/);
    assert.is(c.now(), START);
    assert.is((await admin(server, 'GET', '/clock')).status, 200);
    assert.is((await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } })).status, 200);
  });
}

clock('advancing to the last representable date is allowed', async () => {
  const { server } = await setup();
  const res = await admin(server, 'POST', '/clock/advance', { ms: 8.64e15 - START });
  assert.is(res.status, 200);
  assert.is(res.body.now, '+275760-09-13T00:00:00.000Z');
});

clock('a clock without advance() is 409', async () => {
  const server = await createServer({ port: 0, logger: false, clock: { now: () => START }, adminToken: TOKEN });
  const res = await admin(server, 'POST', '/clock/advance', { seconds: 1 });
  assert.is(res.status, 409);
  assert.is(res.body.code, 'clock_not_movable');
});

clock.run();
