import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from '@hapi/hapi';
import { ManualClock, SystemClock } from '../clock.ts';
import { createServer } from '../server.ts';
import type { ServerOptions } from '../options.ts';
import { send } from '../testing/helpers.ts';
import { formatHttpDate, parseHttpDate, parseRetryAfter } from '../../spec/rules/fields.js';
import { parseRateLimit } from '../../spec/rules/structured-fields.js';

const TOKEN = 'harness-admin-token';
const ADMIN = `Bearer ${TOKEN}`;
const FREE = 'Bearer test-free-key';
const START = Date.UTC(2026, 0, 1);

async function setup(options: ServerOptions = {}) {
  const clock = new ManualClock(START);
  const server = await createServer({ port: 0, logger: false, clock, adminToken: TOKEN, ...options });
  return { clock, server };
}
/** `authorization: null` sends none; `remoteAddress` is inject's 127.0.0.1 (this machine) unless given. */
const admin = (server: Server, method: string, url: string, payload?: unknown, authorization: string | null = ADMIN, remoteAddress?: string) =>
  send(server, {
    method,
    url: `/__admin${url}`,
    payload: payload as object | undefined,
    headers: { authorization: authorization ?? undefined },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
/** A harness on another machine: blocked like any address (this one never is). */
const REMOTE = '203.0.113.20';

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
  const guess = (i: number) => admin(server, 'GET', '/clock', undefined, `Bearer wrong-guess-${i}`, REMOTE);
  for (let i = 0; i < 30; i++) assert.is((await guess(i)).status, 401, `guess ${i}`);
  const over = await guess(30);
  assert.is(over.status, 429);
  assert.is(over.body.code, 'rate_limited_ip');
  for (let i = 31; i < 51; i++) await guess(i);
  const right = await admin(server, 'GET', '/clock', undefined, ADMIN, REMOTE);
  assert.is(right.status, 429, 'a blocked address learns nothing, not even from the right token');
  assert.is(right.body.code, 'ip_blocked');
  clock.advance(600_000);
  assert.is((await admin(server, 'GET', '/clock', undefined, ADMIN, REMOTE)).status, 200, 'the block lifts on time');
});

access('from this machine (loopback), token guesses are limited but never blocked, and the right token always works', async () => {
  const { server } = await setup();
  const codes = new Set<string>();
  for (let i = 0; i < 60; i++) codes.add((await admin(server, 'GET', '/clock', undefined, `Bearer wrong-guess-${i}`)).body.code);
  assert.equal([...codes].sort(), ['invalid_admin_token', 'rate_limited_ip']);
  const right = await admin(server, 'GET', '/clock');
  assert.is(right.status, 200);
  assert.is(right.headers['x-ratelimit-limit'], undefined, 'a harness call is not API traffic');
});

access('an address sending bad API keys does not lock its own harness out of the admin API', async () => {
  const { server } = await setup();
  const bad = () => send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer bad-key-123' }, remoteAddress: REMOTE });
  for (let i = 0; i < 60; i++) await bad();
  assert.is((await bad()).body.code, 'ip_blocked');
  const reset = await admin(server, 'POST', '/rate-limits/reset', undefined, ADMIN, REMOTE);
  assert.is(reset.status, 204);
  assert.is((await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE }, remoteAddress: REMOTE })).status, 200);
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
  ['zero', { ms: 0 }],
  ['a fraction', { seconds: 1.5 }],
  ['an unknown field', { minutes: 1 }],
  // No coercion, as pet bodies refuse it: JSON strings, booleans and nulls are not numbers.
  ['seconds as a string', { seconds: '1' }],
  ['ms as a string', { ms: '1000' }],
  ['ms as an exponent string', { ms: '1e3' }],
  ['seconds as a padded string', { seconds: ' 1' }],
  ['seconds as true', { seconds: true }],
  ['ms as null', { ms: null }],
  ['ms as an array', { ms: [1000] }],
  ['ms beyond 2^53', { ms: 2 ** 53 + 2 }],
];
for (const [name, body] of badBodies) {
  clock(`${name}: 400 and the clock stays`, async () => {
    const { server, clock: c } = await setup();
    const res = await admin(server, 'POST', '/clock/advance', body);
    assert.is(res.status, 400);
    assert.is(res.body.code, 'invalid_body');
    assert.equal(Object.keys(res.body).sort(), ['code', 'message', 'status']);
    assert.is(c.now(), START);
  });
}

clock('a number JSON reads as Infinity (1e400): 400 and the clock stays', async () => {
  const { server, clock: c } = await setup();
  const res = await send(server, {
    method: 'POST',
    url: '/__admin/clock/advance',
    payload: '{"ms": 1e400}',
    headers: { authorization: ADMIN, 'content-type': 'application/json' },
  });
  assert.is(res.status, 400);
  assert.is(res.body.code, 'invalid_body');
  assert.is(c.now(), START);
});

/** The last instant a header or report can print (IMF-fixdate and ISO 8601 with a four-digit year). */
const LAST = Date.UTC(9999, 11, 31, 23, 59, 59);
const DAY = 86_400_000;
/** A year of real time after the largest move (clock.ts RUNNING_MARGIN_MS). */
const YEAR = 366 * DAY;

// The latest the clock may reach is LAST less a year and the longest span the server adds to now: the
// day window, or a longer ban when one is configured. Exactly there is accepted, one step further refused.
const limits: Array<[string, ServerOptions, number]> = [
  ['the default limits (day window, 600 s bans)', {}, LAST - YEAR - DAY],
  ['a key ban of two days', { rateLimit: { ban: { durationSeconds: 2 * 86_400 } } }, LAST - YEAR - 2 * DAY],
  ['an address block of five days', { rateLimit: { ip: { ban: { durationSeconds: 5 * 86_400 } } } }, LAST - YEAR - 5 * DAY],
];
for (const [name, options, latest] of limits) {
  const boundary: Array<[string, unknown, number]> = [
    ['ms up to the limit', { ms: latest - START }, 200],
    ['ms one past it', { ms: latest - START + 1 }, 400],
    ['seconds up to the limit', { seconds: Math.floor((latest - START) / 1000) }, 200],
    ['seconds one past it', { seconds: Math.floor((latest - START) / 1000) + 1 }, 400],
    ['the old limit (the last Date)', { ms: 8.64e15 - START }, 400],
    ['Number.MAX_SAFE_INTEGER seconds', { seconds: Number.MAX_SAFE_INTEGER }, 400],
  ];
  for (const [what, body, status] of boundary) {
    clock(`${name}: ${what} is ${status}`, async () => {
      const { server, clock: c } = await setup(options);
      const res = await admin(server, 'POST', '/clock/advance', body);
      assert.is(res.status, status, JSON.stringify(res.body));
      if (status === 200) {
        assert.ok(c.now() <= latest && c.now() > latest - 1000);
        assert.is(res.body.epochMs, c.now());
        return;
      }
      assert.is(res.body.code, 'invalid_body');
      const field = 'ms' in (body as object) ? 'ms' : 'seconds';
      const most = field === 'ms' ? latest - START : Math.floor((latest - START) / 1000);
      assert.ok(
        (res.body.message as string).startsWith(`"${field}" must be at most ${most}: the clock cannot move past ${new Date(latest).toISOString()}`),
        res.body.message,
      );
      assert.ok((res.body.message as string).includes('Nothing was changed.'));
      assert.is(c.now(), START, 'nothing moved');
    });
  }
}

clock('at the limit, the clock moves no further: every move is 400 and says so', async () => {
  const { server, clock: c } = await setup();
  assert.is((await admin(server, 'POST', '/clock/advance', { ms: LAST - YEAR - DAY - START })).status, 200);
  for (const body of [{ ms: 1 }, { seconds: 1 }]) {
    const res = await admin(server, 'POST', '/clock/advance', body);
    assert.is(res.status, 400);
    assert.match(res.body.message, /^"(ms|seconds)" must be at most 0: /);
  }
  assert.is(c.now(), LAST - YEAR - DAY);
});

// Issue 30: the old limit let the clock reach the last Date less 30 s, and 31 s later the admin API
// answered 500 and X-RateLimit-Reset said 8640000000031. The move is refused now; and even after the
// largest move allowed and 31 s more, nothing answers 500.
for (const [name, move] of [
  ['the last Date less 30 s (refused)', 8.64e15 - 30_000 - START],
  ['the largest move allowed', LAST - YEAR - DAY - START],
] as const) {
  clock(`advancing to ${name}, then 31 s later: the admin API and the API never answer 500`, async () => {
    const { server, clock: c } = await setup();
    const moved = await admin(server, 'POST', '/clock/advance', { ms: move });
    assert.is(moved.status, move === LAST - YEAR - DAY - START ? 200 : 400);
    const at = c.now();
    c.advance(31_000);
    for (const [method, url] of [
      ['GET', '/clock'],
      ['GET', '/clients'],
      ['POST', '/reset'],
    ] as const) {
      const res = await admin(server, method, url);
      assert.is(res.status, 200, `${method} ${url}: ${JSON.stringify(res.body)}`);
    }
    const api = await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: FREE } });
    assert.is(api.status, 200);
    assert.ok(Number(api.headers['x-ratelimit-reset']) <= Math.ceil((at + 31_000 + DAY) / 1000));
  });
}

clock('after the largest move allowed and a year of real time, every header and report the clock feeds is valid', async () => {
  const { server, clock: c } = await setup({ apiKeys: [{ key: 'tiny-enterprise-key', plan: 'enterprise', limits: { perMinute: 3, perDay: 3 } }] });
  assert.is((await admin(server, 'POST', '/clock/advance', { ms: LAST - YEAR - DAY - START })).status, 200);
  // A moved system clock goes on running: a year later its dates are still printable.
  c.advance(YEAR);
  const now = c.now();
  const answers = [];
  // Three admitted (the day window binds: it ties with the minute's and resets later), refused for the day, then banned.
  for (let i = 0; i < 3 + 21; i++)
    answers.push(await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer tiny-enterprise-key' } }));
  for (let i = 0; i < 31; i++) answers.push(await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: undefined } }));
  answers.push(await send(server, { method: 'GET', url: '/v1/pets/1', headers: { authorization: FREE } }));
  const codes = new Set(answers.map((a) => a.body?.code ?? a.status));
  for (const expected of [200, 'rate_limited_day', 'key_banned', 'missing_api_key', 'rate_limited_ip'])
    assert.ok(codes.has(expected), `saw ${expected}: ${[...codes].join(', ')}`);
  const printable = (ms: number) => ms >= now && ms <= LAST && formatHttpDate(ms).endsWith(' GMT') && /^\d{4}-/.test(new Date(ms).toISOString());
  let day = false;
  for (const a of answers) {
    const date = parseHttpDate(a.headers.date as string, Date.now());
    assert.ok(date !== null, `Date: ${a.headers.date}`);
    const reset = a.headers['x-ratelimit-reset'];
    if (reset !== undefined) {
      assert.match(String(reset), /^\d{1,12}$/);
      assert.ok(printable(Number(reset) * 1000), `X-RateLimit-Reset: ${reset}`);
      if (Number(reset) * 1000 === LAST) day = true;
    }
    const retryAfter = parseRetryAfter(a.headers['retry-after'] as string | undefined, now);
    if (retryAfter.form !== 'missing') {
      assert.is(retryAfter.form, 'delay-seconds', JSON.stringify(retryAfter));
      if (retryAfter.form === 'delay-seconds')
        assert.ok(retryAfter.seconds >= 1 && printable(now + retryAfter.seconds * 1000), `Retry-After: ${a.headers['retry-after']}`);
    }
    if (a.headers.ratelimit !== undefined) {
      const states = parseRateLimit(a.headers.ratelimit as string);
      assert.ok(states, `RateLimit: ${a.headers.ratelimit}`);
      for (const state of states!) assert.ok(printable(now + (state.reset ?? 0) * 1000), `RateLimit: ${a.headers.ratelimit}`);
    }
    if (a.headers.sunset !== undefined) assert.ok(parseHttpDate(a.headers.sunset as string, now) !== null, `Sunset: ${a.headers.sunset}`);
  }
  assert.ok(day, 'a day window reset at exactly the last printable second');
  const clients = await admin(server, 'GET', '/clients');
  assert.is(clients.status, 200);
  assert.match(clients.body.generatedAt, /^\d{4}-\d\d-\d\dT/);
  const state = await admin(server, 'GET', '/clock');
  assert.is(state.body.now, new Date(now).toISOString());
  assert.match(state.body.now, /^9999-12-30T23:59:59/);
});

clock('a clock without advance() is 409', async () => {
  const server = await createServer({ port: 0, logger: false, clock: { now: () => START }, adminToken: TOKEN });
  const res = await admin(server, 'POST', '/clock/advance', { seconds: 1 });
  assert.is(res.status, 409);
  assert.is(res.body.code, 'clock_not_movable');
});

clock.run();
