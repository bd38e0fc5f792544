// The rate limiter through the whole server (server.inject, memory store, manual clock).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from '@hapi/hapi';
import { ManualClock } from '../clock.ts';
import { createServer, EXPOSED_HEADERS } from '../server.ts';
import type { ServerOptions } from '../options.ts';
import { send, type Sent } from '../testing/helpers.ts';

const START = Date.UTC(2026, 0, 1, 9, 0, 0);
const KEYS = {
  free: 'Bearer test-free-key',
  pro: 'Bearer test-pro-key',
  business: 'Bearer test-business-key',
  enterprise: 'Bearer test-enterprise-key',
  custom: 'Bearer custom-enterprise-key',
};
// An enterprise key with limits of its own, small enough to exhaust in a test.
const API_KEYS: ServerOptions['apiKeys'] = [
  { key: 'test-free-key', plan: 'free' },
  { key: 'test-pro-key', plan: 'pro' },
  { key: 'test-business-key', plan: 'business' },
  { key: 'test-enterprise-key', plan: 'enterprise', limits: { perMinute: 100_000, perDay: 100_000_000 } },
  { key: 'custom-enterprise-key', plan: 'enterprise', limits: { perMinute: 75, perDay: 120 } },
];

async function setup(options: ServerOptions = {}) {
  const clock = new ManualClock(START);
  const server = await createServer({ port: 0, logger: false, clock, apiKeys: API_KEYS, ...options });
  return { clock, server };
}

const get = (server: Server, authorization: string | undefined, url = '/v1/pets?limit=1', extra: Record<string, unknown> = {}) =>
  send(server, { method: 'GET', url, headers: { authorization }, ...extra });

async function times(n: number, fn: () => Promise<Sent>): Promise<Sent[]> {
  const all: Sent[] = [];
  for (let i = 0; i < n; i++) all.push(await fn());
  return all;
}
const statuses = (all: Sent[]) => all.map((r) => r.status);
const count = (all: Sent[], status: number) => all.filter((r) => r.status === status).length;
const header = (res: Sent, name: string) => res.headers[name] as string | undefined;
const int = (res: Sent, name: string) => {
  const value = header(res, name);
  assert.ok(value !== undefined && /^[0-9]+$/.test(value), `${name} should be a non-negative integer, is ${value}`);
  return Number(value);
};

// ---------------------------------------------------------------------------------------------
const plans = suite('plan limits per minute');

const planTable: Array<[string, string, number]> = [
  ['Free', KEYS.free, 60],
  ['Pro', KEYS.pro, 300],
  ['Business', KEYS.business, 1_000],
  ['Enterprise (its own limits)', KEYS.custom, 75],
];
for (const [name, key, limit] of planTable) {
  plans(`${name}: ${limit} admitted, then 429 rate_limited_minute`, async () => {
    const { server } = await setup();
    const all = await times(limit + 2, () => get(server, key));
    assert.is(count(all, 200), limit);
    assert.equal(statuses(all).slice(limit), [429, 429]);
    assert.is(int(all[0]!, 'x-ratelimit-limit'), limit);
    assert.is(int(all[0]!, 'x-ratelimit-remaining'), limit - 1);
    assert.is(int(all[limit - 1]!, 'x-ratelimit-remaining'), 0);
    const refused = all[limit]!;
    assert.is(refused.body.code, 'rate_limited_minute');
    assert.equal(Object.keys(refused.body).sort(), ['code', 'message', 'status']);
    assert.is(refused.body.status, 429);
    assert.is(int(refused, 'x-ratelimit-remaining'), 0);
  });
}

plans('the fixture enterprise key reports its own limit of 100000 per minute', async () => {
  const { server } = await setup({ apiKeys: undefined });
  const res = await get(server, KEYS.enterprise);
  assert.is(int(res, 'x-ratelimit-limit'), 100_000);
  assert.is(header(res, 'ratelimit-policy'), '"minute";q=100000;w=60, "day";q=100000000;w=86400');
});

plans('keys are counted apart', async () => {
  const { server } = await setup();
  await times(60, () => get(server, KEYS.free));
  assert.is((await get(server, KEYS.free)).status, 429);
  assert.is((await get(server, KEYS.pro)).status, 200);
});

plans.run();

// ---------------------------------------------------------------------------------------------
const windows = suite('windows');

windows('the minute window rolls over exactly one minute after its first request', async () => {
  const { clock, server } = await setup();
  clock.advance(12_300); // the window starts with the first request, wherever the clock is
  await times(60, () => get(server, KEYS.free));
  clock.advance(60_000 - 1);
  const late = await get(server, KEYS.free);
  assert.is(late.status, 429);
  assert.is(int(late, 'retry-after'), 1);
  assert.is(int(late, 'x-ratelimit-reset'), Math.ceil((START + 12_300 + 60_000) / 1000));
  clock.advance(1);
  const fresh = await get(server, KEYS.free);
  assert.is(fresh.status, 200);
  assert.is(int(fresh, 'x-ratelimit-remaining'), 59);
});

windows('Retry-After is the rounded-up wait until the window resets, consistent with X-RateLimit-Reset', async () => {
  const { clock, server } = await setup();
  await get(server, KEYS.free);
  clock.advance(18_700);
  await times(59, () => get(server, KEYS.free));
  const refused = await get(server, KEYS.free);
  assert.is(refused.status, 429);
  assert.is(int(refused, 'retry-after'), 42); // 41.3 s left
  assert.is(int(refused, 'x-ratelimit-reset'), Math.ceil((START + 60_000) / 1000));
  assert.is(header(refused, 'cache-control'), 'no-store');
  assert.ok(refused.body.message.includes('42 seconds'));
  assert.is(header(refused, 'ratelimit'), `"minute";r=0;t=42, "day";r=940;t=${Math.ceil((86_400_000 - 18_700) / 1000)}`);
});

windows('the day window is enforced on its own: 1000 for Free across minutes, then rate_limited_day', async () => {
  const { clock, server } = await setup();
  const all: Sent[] = [];
  for (let minute = 0; minute < 17; minute++) {
    all.push(...(await times(60, () => get(server, KEYS.free))));
    clock.advance(60_000);
  }
  assert.is(count(all, 200), 1_000);
  const refused = all[1_000]!;
  assert.is(refused.status, 429);
  assert.is(refused.body.code, 'rate_limited_day');
  assert.is(int(refused, 'x-ratelimit-limit'), 1_000);
  assert.is(int(refused, 'x-ratelimit-reset'), Math.ceil((START + 86_400_000) / 1000));
  // The day window binds once it has fewer left than the minute.
  assert.is(int(all[999]!, 'x-ratelimit-limit'), 1_000);
  assert.is(int(all[999]!, 'x-ratelimit-remaining'), 0);
  clock.set(START + 86_400_000);
  assert.is((await get(server, KEYS.free)).status, 200);
});

windows('a 429 uses no quota: refusals never move the day counter', async () => {
  const { clock, server } = await setup({ rateLimit: { ban: { threshold: 0 } } });
  await times(60, () => get(server, KEYS.free));
  await times(25, () => get(server, KEYS.free));
  clock.advance(60_000);
  const next = await get(server, KEYS.free);
  assert.match(header(next, 'ratelimit') ?? '', /"day";r=939;/);
});

windows('400 and 404 answers count; the binding window is reported', async () => {
  const { server } = await setup();
  const table: Array<[string, string, number]> = [
    ['GET', '/v1/pets?limit=0', 400],
    ['GET', '/v1/pets/999', 404],
    ['GET', '/v1/no-such-path', 404],
    ['DELETE', '/v1/pets/1', 405],
  ];
  let expected = 59;
  for (const [method, url, status] of table) {
    const res = await send(server, { method, url, headers: { authorization: KEYS.free } });
    assert.is(res.status, status, url);
    assert.is(int(res, 'x-ratelimit-remaining'), expected--, url);
  }
});

windows.run();

// ---------------------------------------------------------------------------------------------
const everyStatus = suite('rate-limit headers on every status');

interface Case {
  name: string;
  status: number;
  prepare?: (server: Server, clock: ManualClock) => Promise<void>;
  request: { method: string; url: string; payload?: unknown; headers?: Record<string, string | undefined> };
  limit: number;
}
const json = { 'content-type': 'application/json' };
const statusCases: Case[] = [
  { name: 'listPets 200', status: 200, request: { method: 'GET', url: '/v1/pets' }, limit: 60 },
  { name: 'createPet 201', status: 201, request: { method: 'POST', url: '/v1/pets', payload: { name: 'Mochi', categoryId: 2 } }, limit: 60 },
  { name: 'createPet 400 (invalid body)', status: 400, request: { method: 'POST', url: '/v1/pets', payload: { name: 7 } }, limit: 60 },
  { name: 'createPet 400 (malformed JSON)', status: 400, request: { method: 'POST', url: '/v1/pets', payload: '{"name"', headers: json }, limit: 60 },
  { name: 'createPet 413', status: 413, request: { method: 'POST', url: '/v1/pets', payload: `{"name":"${'x'.repeat(20_000)}"}`, headers: json }, limit: 60 },
  { name: 'createPet 415', status: 415, request: { method: 'POST', url: '/v1/pets', payload: 'name=x', headers: { 'content-type': 'text/plain' } }, limit: 60 },
  { name: 'getPet 200', status: 200, request: { method: 'GET', url: '/v1/pets/1' }, limit: 60 },
  { name: 'getPet 404', status: 404, request: { method: 'GET', url: '/v1/pets/999' }, limit: 60 },
  { name: 'unknown path 404 (hapi)', status: 404, request: { method: 'GET', url: '/v1/nowhere' }, limit: 60 },
  { name: "hapi's own 400 (malformed URL)", status: 400, request: { method: 'GET', url: '/v1/pets/%' }, limit: 60 },
  { name: 'wrong method 405', status: 405, request: { method: 'PUT', url: '/v1/pets/1' }, limit: 60 },
  { name: 'missing key 401', status: 401, request: { method: 'GET', url: '/v1/pets', headers: { authorization: undefined } }, limit: 30 },
  { name: 'unknown key 401', status: 401, request: { method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer not-a-key' } }, limit: 30 },
  { name: 'unknown path without a key 404', status: 404, request: { method: 'GET', url: '/nowhere', headers: { authorization: undefined } }, limit: 30 },
  {
    name: 'over the limit 429',
    status: 429,
    prepare: async (server) => void (await times(60, () => get(server, KEYS.free))),
    request: { method: 'GET', url: '/v1/pets' },
    limit: 60,
  },
  {
    name: 'unknown path over the limit 429',
    status: 429,
    prepare: async (server) => void (await times(60, () => get(server, KEYS.free))),
    request: { method: 'GET', url: '/v1/nowhere' },
    limit: 60,
  },
  {
    name: 'getPet after its sunset 410',
    status: 410,
    prepare: async (_server, clock) => clock.set(Date.UTC(2030, 11, 5)),
    request: { method: 'GET', url: '/v1/pets/1' },
    limit: 60,
  },
];
for (const c of statusCases) {
  everyStatus(`${c.name}: X-RateLimit-*, RateLimit-Policy, RateLimit`, async () => {
    const { clock, server } = await setup();
    await c.prepare?.(server, clock);
    const res = await send(server, { ...c.request, headers: { authorization: KEYS.free, ...c.request.headers } } as never);
    assert.is(res.status, c.status);
    assert.is(int(res, 'x-ratelimit-limit'), c.limit);
    const remaining = int(res, 'x-ratelimit-remaining');
    assert.ok(remaining < c.limit);
    const reset = int(res, 'x-ratelimit-reset');
    const now = clock.now() / 1000;
    assert.ok(reset > now && reset <= now + 86_400, `Reset ${reset} is epoch seconds ahead of ${now}`);
    assert.ok(header(res, 'ratelimit-policy'));
    assert.match(header(res, 'ratelimit') ?? '', /^"[a-z-]+";r=\d+;t=\d+/);
    if (c.status === 429) {
      assert.is(remaining, 0);
      assert.ok(int(res, 'retry-after') >= 1);
      assert.is(header(res, 'cache-control'), 'no-store');
    } else {
      assert.is(header(res, 'retry-after'), undefined);
    }
    if (c.status >= 400) assert.equal(Object.keys(res.body).sort(), ['code', 'message', 'status']);
  });
}

everyStatus('browsers may read every rate-limit header (Access-Control-Expose-Headers)', async () => {
  const { server } = await setup();
  const res = await get(server, KEYS.free, '/v1/pets', { headers: { authorization: KEYS.free, origin: 'https://app.example' } });
  const exposed = String(header(res, 'access-control-expose-headers')).toLowerCase().split(',');
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy', 'Retry-After']) {
    assert.ok(exposed.includes(name.toLowerCase()), name);
    assert.ok(EXPOSED_HEADERS.includes(name), name);
  }
});

everyStatus('CORS preflights are neither limited nor counted', async () => {
  const { server } = await setup();
  const preflight = () =>
    send(server, {
      method: 'OPTIONS',
      url: '/v1/pets',
      headers: { authorization: undefined, origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
  const all = await times(40, preflight);
  assert.ok(
    all.every((r) => r.status === 200 || r.status === 204),
    String(statuses(all)),
  );
  assert.is(header(all[0]!, 'x-ratelimit-limit'), undefined);
  const after = await get(server, undefined);
  assert.is(int(after, 'x-ratelimit-remaining'), 29, 'the 40 preflights used none of the 30');
});

everyStatus('rateLimit.enabled=false: no limits and no headers', async () => {
  const { server } = await setup({ rateLimit: { enabled: false } });
  const all = await times(70, () => get(server, KEYS.free));
  assert.is(count(all, 200), 70);
  assert.is(header(all[0]!, 'x-ratelimit-limit'), undefined);
});

everyStatus.run();

// ---------------------------------------------------------------------------------------------
const bans = suite('temporary ban');

bans('20 refusals within a minute ban the key for 600 s; it lifts by itself', async () => {
  const { clock, server } = await setup();
  await times(60, () => get(server, KEYS.free));
  const refused = await times(20, () => get(server, KEYS.free));
  assert.equal(
    refused.slice(0, 19).map((r) => r.body.code),
    Array(19).fill('rate_limited_minute'),
  );
  const banned = refused[19]!;
  assert.is(banned.status, 429);
  assert.is(banned.body.code, 'key_banned');
  assert.is(int(banned, 'retry-after'), 600);
  assert.is(int(banned, 'x-ratelimit-remaining'), 0);
  assert.is(int(banned, 'x-ratelimit-reset'), Math.ceil(START / 1000) + 600);

  clock.advance(60_000); // the minute window is fresh; the ban is not over
  const during = await get(server, KEYS.free);
  assert.is(during.status, 429);
  assert.is(during.body.code, 'key_banned');
  assert.is(int(during, 'retry-after'), 540);
  assert.is(int(during, 'x-ratelimit-remaining'), 0);
  // The ban spent nothing: the day still has its 940, the fresh minute its 60; the ban says wait.
  assert.is(header(during, 'ratelimit'), `"ban";r=0;t=540, "minute";r=60;t=60, "day";r=940;t=${86_400 - 60}`);
  assert.is(int(during, 'x-ratelimit-limit'), 60);

  clock.advance(540_000 - 1);
  assert.is((await get(server, KEYS.free)).body.code, 'key_banned');
  clock.advance(1);
  const after = await get(server, KEYS.free);
  assert.is(after.status, 200);
  assert.is(int(after, 'x-ratelimit-remaining'), 59);
});

bans('a client that waits for Retry-After after each 429 is never banned', async () => {
  const { clock, server } = await setup();
  const codes = new Set<string>();
  let admitted = 0;
  for (let i = 0; i < 1_200; i++) {
    const res = await get(server, KEYS.free);
    if (res.status === 200) {
      admitted++;
      continue;
    }
    codes.add(res.body.code);
    clock.advance(int(res, 'retry-after') * 1000);
  }
  assert.equal([...codes].sort(), ['rate_limited_day', 'rate_limited_minute']);
  assert.ok(admitted > 1_000, 'it went on into the next day');
});

bans('threshold, period and duration are configurable; threshold 0 never bans', async () => {
  const short = await setup({ rateLimit: { ban: { threshold: 3, periodSeconds: 10, durationSeconds: 30 } } });
  await times(60, () => get(short.server, KEYS.free));
  const refused = await times(3, () => get(short.server, KEYS.free));
  assert.equal(
    refused.map((r) => r.body.code),
    ['rate_limited_minute', 'rate_limited_minute', 'key_banned'],
  );
  assert.is(int(refused[2]!, 'retry-after'), 30);

  const never = await setup({ rateLimit: { ban: { threshold: 0 } } });
  await times(60, () => get(never.server, KEYS.free));
  const all = await times(200, () => get(never.server, KEYS.free));
  assert.ok(all.every((r) => r.body.code === 'rate_limited_minute'));
});

bans('invalid options are refused when the server is built', async () => {
  for (const rateLimit of [{ ban: { threshold: -1 } }, { ip: { perMinute: 0 } }, { ban: { durationSeconds: 1.5 } }]) {
    try {
      await setup({ rateLimit } as ServerOptions);
      assert.unreachable(JSON.stringify(rateLimit));
    } catch (error) {
      assert.instance(error, Error);
      assert.not.instance(error, assert.Assertion);
    }
  }
});

bans.run();

// ---------------------------------------------------------------------------------------------
const unauthenticated = suite('requests without a valid key: per-address limit and block');

// An address on the network (inject's default, 127.0.0.1, is this machine: spared blocks, below).
const REMOTE = { remoteAddress: '203.0.113.9' };

unauthenticated('30 per minute per address get 401, then 429 rate_limited_ip, then a 600 s block', async () => {
  const { clock, server } = await setup();
  const from = (authorization: string | undefined) => get(server, authorization, '/v1/pets?limit=1', REMOTE);
  const guesses = await times(30, () => from('Bearer guess-guess-guess'));
  assert.ok(guesses.every((r) => r.status === 401));
  assert.equal(
    guesses.slice(0, 3).map((r) => int(r, 'x-ratelimit-remaining')),
    [29, 28, 27],
  );
  assert.is(int(guesses[0]!, 'x-ratelimit-limit'), 30);
  assert.is(header(guesses[0]!, 'ratelimit-policy'), '"ip-minute";q=30;w=60');

  const limited = await from('Bearer guess-guess-guess');
  assert.is(limited.status, 429);
  assert.is(limited.body.code, 'rate_limited_ip');
  assert.is(int(limited, 'retry-after'), 60);

  // While the address is over its allowance a valid key is refused too: a guesser cannot tell a
  // good key from a bad one by the answer.
  const valid = await from(KEYS.free);
  assert.is(valid.status, 429);
  assert.is(valid.body.code, 'rate_limited_ip');

  // Another address is not affected.
  assert.is((await get(server, 'Bearer guess-guess-guess', '/v1/pets', { remoteAddress: '198.51.100.4' })).status, 401);

  const more = await times(17, () => from(undefined)); // refusals 3 to 19
  assert.ok(more.every((r) => r.body.code === 'rate_limited_ip'));
  const blocked = await from(undefined);
  assert.is(blocked.body.code, 'ip_blocked');
  assert.is(int(blocked, 'retry-after'), 600);
  assert.is(header(blocked, 'ratelimit'), '"ip-block";r=0;t=600, "ip-minute";r=0;t=60');

  clock.advance(60_000);
  const stillBlocked = await from(KEYS.free);
  assert.is(stillBlocked.body.code, 'ip_blocked');
  assert.is(int(stillBlocked, 'retry-after'), 540);
  assert.is(header(stillBlocked, 'ratelimit'), '"ip-block";r=0;t=540, "ip-minute";r=30;t=60');
  clock.advance(540_000);
  assert.is((await from('Bearer guess-guess-guess')).status, 401);
  assert.is((await from(KEYS.free)).status, 200);
});

unauthenticated('this machine (loopback): the same allowance, but never blocked, and a valid key always served', async () => {
  for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
    const { server } = await setup();
    const all = await times(60, () => get(server, 'Bearer guess-guess-guess', '/v1/pets', { remoteAddress }));
    assert.is(count(all, 401), 30, remoteAddress);
    assert.ok(
      all.slice(30).every((r) => r.body.code === 'rate_limited_ip'),
      `${remoteAddress}: ${[...new Set(all.map((r) => r.body.code))].join(', ')}`,
    );
    const valid = await get(server, KEYS.free, '/v1/pets', { remoteAddress });
    assert.is(valid.status, 200, remoteAddress);
    assert.is(int(valid, 'x-ratelimit-limit'), 60, 'the key headers, not the address ones');
  }
});

unauthenticated('with --ip-ban-loopback this machine is blocked like any address', async () => {
  const { server } = await setup({ rateLimit: { ip: { banLoopback: true } } });
  const all = await times(50, () => get(server, 'Bearer guess-guess-guess'));
  assert.is(all.at(-1)!.body.code, 'ip_blocked');
  assert.is((await get(server, KEYS.free)).body.code, 'ip_blocked');
});

unauthenticated('requests with a valid key do not use the address allowance', async () => {
  const { server } = await setup();
  await times(100, () => get(server, KEYS.pro));
  const res = await get(server, undefined);
  assert.is(res.status, 401);
  assert.is(int(res, 'x-ratelimit-remaining'), 29);
});

unauthenticated('IPv6 clients are counted per /64', async () => {
  const { server } = await setup({ rateLimit: { ip: { perMinute: 2 } } });
  const from = (remoteAddress: string) => get(server, undefined, '/v1/pets', { remoteAddress });
  assert.is((await from('2001:db8:1:2::1')).status, 401);
  assert.is((await from('2001:db8:1:2::ffff')).status, 401);
  assert.is((await from('2001:db8:1:2:aaaa::9')).status, 429);
  assert.is((await from('2001:db8:1:3::1')).status, 401);
});

unauthenticated('the per-address limit and its block are configurable', async () => {
  const { server } = await setup({ rateLimit: { ip: { perMinute: 5, ban: { threshold: 2, periodSeconds: 60, durationSeconds: 90 } } } });
  const all = await times(7, () => get(server, undefined, '/v1/pets', REMOTE));
  assert.equal(statuses(all), [401, 401, 401, 401, 401, 429, 429]);
  assert.equal(
    all.slice(5).map((r) => r.body.code),
    ['rate_limited_ip', 'ip_blocked'],
  );
  assert.is(int(all[6]!, 'retry-after'), 90);
});

unauthenticated.run();

// ---------------------------------------------------------------------------------------------
const concurrency = suite('concurrency, one instance');

concurrency('200 simultaneous requests on a fresh Free key admit exactly 60', async () => {
  const { server } = await setup();
  await server.start();
  try {
    const url = `${server.info.uri}/v1/pets?limit=1`;
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => fetch(url, { headers: { authorization: KEYS.free } }).then(async (r) => ({ status: r.status, body: await r.text() }))),
    );
    const admitted = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 429).length;
    process.stdout.write(`  [one instance, memory store] 200 simultaneous: ${admitted} admitted, ${refused} refused\n`);
    assert.is(admitted, 60);
    assert.is(refused, 140);
  } finally {
    await server.stop();
  }
});

concurrency.run();
