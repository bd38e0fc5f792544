// Fault injection (--faults): X-Fault-Injected says what a response really got, never what was
// only asked for, and a browser client may ask (its preflight allows Prefer).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import type { ServerOptions } from '../options.ts';
import { createServer } from '../server.ts';
import { send } from '../testing/helpers.ts';

const faults = suite('fault injection');
const serverWith = (options: ServerOptions = {}) => createServer({ port: 0, clock: new ManualClock(), faults: true, ...options });

const asked: Array<[string, Record<string, string | undefined>, number, string | undefined]> = [
  ['code=503 with a valid key', { prefer: 'code=503' }, 503, 'code=503'],
  ['code=500 with a valid key', { prefer: 'code=500' }, 500, 'code=500'],
  ['code=429 with a valid key', { prefer: 'code=429' }, 429, 'code=429'],
  ['code=503 with an unknown key', { prefer: 'code=503', authorization: 'Bearer not-a-key-123' }, 401, undefined],
  ['code=429 with an unknown key', { prefer: 'code=429', authorization: 'Bearer not-a-key-123' }, 401, undefined],
  ['code=500 without a key', { prefer: 'code=500', authorization: undefined }, 401, undefined],
  ['code=503 and a delay with an unknown key: only the delay happened', { prefer: 'code=503, delay=5', authorization: 'Bearer not-a-key-123' }, 401, 'delay=5'],
  ['delay=0', { prefer: 'delay=0' }, 200, undefined],
  ['a preference the server does not inject', { prefer: 'return=minimal' }, 200, undefined],
];
for (const [name, headers, status, injected] of asked) {
  faults(`Prefer ${name}: ${status}, X-Fault-Injected ${injected ?? 'absent'}`, async () => {
    const server = await serverWith();
    const res = await send(server, { method: 'GET', url: '/v1/pets', headers });
    assert.is(res.status, status);
    assert.is(res.headers['x-fault-injected'], injected);
  });
}

faults('a key already over its limit gets its real 429, not marked as injected', async () => {
  const server = await serverWith({ apiKeys: [{ key: 'tiny-enterprise-key', plan: 'enterprise', limits: { perMinute: 1, perDay: 100 } }] });
  const authorization = 'Bearer tiny-enterprise-key';
  assert.is((await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization } })).status, 200);
  const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization, prefer: 'code=429' } });
  assert.is(res.status, 429);
  assert.is(res.body.code, 'rate_limited_minute');
  assert.is(res.headers['x-fault-injected'], undefined);
});

faults('with rate limiting off, an injected 429 is the plain one: Retry-After 60 and no rate-limit headers', async () => {
  const server = await serverWith({ rateLimit: { enabled: false } });
  const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { prefer: 'code=429' } });
  assert.is(res.status, 429);
  assert.is(res.body.code, 'rate_limited_minute');
  assert.is(res.headers['retry-after'], '60');
  assert.is(res.headers['x-ratelimit-limit'], undefined);
  assert.is(res.headers['x-fault-injected'], 'code=429');
});

// An injected 429 is asked of the limiter where it decides a request, so with limits on it comes
// before the rest of onPostAuth (getPet's 410 after its sunset) as a real 429 does; with limits off
// nothing is decided there, and the 410 comes first.
const sunsetOrder: Array<[boolean, number]> = [
  [true, 429],
  [false, 410],
];
for (const [enabled, status] of sunsetOrder) {
  faults(`Prefer code=429 on getPet after its sunset, rate limiting ${enabled ? 'on' : 'off'}: ${status}`, async () => {
    const server = await serverWith({ rateLimit: { enabled }, clock: new ManualClock(Date.UTC(2031, 0, 1)) });
    const res = await send(server, { method: 'GET', url: '/v1/pets/1', headers: { prefer: 'code=429' } });
    assert.is(res.status, status);
    assert.is(res.headers['x-fault-injected'], status === 429 ? 'code=429' : undefined);
  });
}

faults('an injected 429 counts nothing: the next request sees the whole minute but one', async () => {
  const server = await serverWith();
  assert.is((await send(server, { method: 'GET', url: '/v1/pets', headers: { prefer: 'code=429' } })).status, 429);
  const next = await send(server, { method: 'GET', url: '/v1/pets' });
  assert.is(next.headers['x-ratelimit-remaining'], String(Number(next.headers['x-ratelimit-limit']) - 1));
});

faults('an out-of-range Prefer is 400 with the Error body and nothing injected', async () => {
  const server = await serverWith();
  const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { prefer: 'code=418' } });
  assert.is(res.status, 400);
  assert.is(res.body.code, 'bad_request');
  assert.is(res.headers['x-fault-injected'], undefined);
});

const preflight = {
  method: 'OPTIONS',
  url: '/v1/pets',
  headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, prefer' },
};

faults('with faults on, the CORS preflight allows Prefer', async () => {
  const server = await serverWith();
  const res = await server.inject(preflight);
  assert.is(res.statusCode, 200, res.payload);
  assert.match(String(res.headers['access-control-allow-headers']).toLowerCase(), /\bprefer\b/);
});

faults('with faults off, the preflight does not allow Prefer', async () => {
  const server = await serverWith({ faults: false });
  const res = await server.inject(preflight);
  assert.not.match(String(res.headers['access-control-allow-headers'] ?? '').toLowerCase(), /\bprefer\b/);
});

// Prism's convention (issue 39): any status the operation documents, with its documented example (or
// the one named); what an operation does not document is a 400 the key is not charged for.
const documented: Array<{
  name: string;
  method?: string;
  url: string;
  prefer: string;
  status: number;
  code?: string;
  body?: unknown;
  header?: [string, string];
}> = [
  { name: "getPet's documented 404", url: '/v1/pets/1', prefer: 'code=404', status: 404, code: 'pet_not_found' },
  { name: "getPet's documented 410", url: '/v1/pets/1', prefer: 'code=410', status: 410, code: 'operation_sunset' },
  {
    name: "listPets' 401, with its challenge",
    url: '/v1/pets',
    prefer: 'code=401',
    status: 401,
    code: 'missing_api_key',
    header: ['www-authenticate', 'Bearer realm="adoption-store"'],
  },
  { name: 'a named example alone finds its response', url: '/v1/pets', prefer: 'example=invalidKey', status: 401, code: 'invalid_api_key' },
  { name: 'a status and a named example', method: 'POST', url: '/v1/pets', prefer: 'code=400, example=malformedJson', status: 400, code: 'malformed_json' },
  { name: "createPet's 413", method: 'POST', url: '/v1/pets', prefer: 'code=413', status: 413, code: 'payload_too_large' },
  { name: "createPet's 507", method: 'POST', url: '/v1/pets', prefer: 'code=507', status: 507 },
  {
    name: "listPets' documented 200 is its example",
    url: '/v1/pets',
    prefer: 'code=200',
    status: 200,
    body: [
      { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' },
      { id: 4, name: 'Pepper', categoryId: 2, status: 'available' },
    ],
  },
  {
    name: "createPet's 201, with its Location",
    method: 'POST',
    url: '/v1/pets',
    prefer: 'code=201',
    status: 201,
    body: { id: 11, name: 'Mochi', categoryId: 2, status: 'available' },
    header: ['location', '/v1/pets/11'],
  },
];
for (const c of documented) {
  faults(`Prefer ${c.prefer} on ${c.method ?? 'GET'} ${c.url} (${c.name}): ${c.status}, injected, counted, nothing stored`, async () => {
    const server = await serverWith();
    const res = await send(server, {
      method: c.method ?? 'GET',
      url: c.url,
      headers: { prefer: c.prefer },
      ...(c.method === 'POST' ? { payload: { name: 'Real', categoryId: 1 } } : {}),
    });
    assert.is(res.status, c.status, JSON.stringify(res.body));
    assert.is(res.headers['x-fault-injected'], `code=${c.status}`);
    if (c.code) assert.is(res.body.code, c.code);
    if (c.body) assert.equal(res.body, c.body);
    if (c.header) assert.is(res.headers[c.header[0]], c.header[1]);
    assert.is(res.headers['x-ratelimit-remaining'], String(Number(res.headers['x-ratelimit-limit']) - 1), 'counted like any answer');
    assert.is(await server.app.store.count(), 10);
  });
}

const refusedPrefer: Array<[string, string, string, RegExp]> = [
  [
    'a status listPets does not document',
    '/v1/pets',
    'code=404',
    /^Prefer: code=404 is not a status listPets documents \(it documents 200, 400, 401, 429, 503; 429, 500, 503 are injected everywhere\)\.$/,
  ],
  ['a status no operation documents', '/v1/pets/1', 'code=418', /code=418 is not a status getPet documents/],
  ['an example the operation does not have', '/v1/pets', 'example=nope', /^Prefer: example=nope is not an example of listPets/],
  ['an example of another status', '/v1/pets', 'code=401, example=day', /example=day is not an example of listPets's 401 \(it has missingKey, invalidKey\)/],
  ['an example with an injected code', '/v1/pets', 'code=429, example=day', /cannot be combined with code=429/],
];
for (const [name, url, prefer, message] of refusedPrefer) {
  faults(`Prefer ${prefer} on ${url} (${name}): 400 bad_request, the window shown, nothing counted`, async () => {
    const server = await serverWith();
    const res = await send(server, { method: 'GET', url, headers: { prefer } });
    assert.is(res.status, 400);
    assert.is(res.body.code, 'bad_request');
    assert.match(res.body.message, message);
    assert.is(res.headers['x-fault-injected'], undefined);
    const next = await send(server, { method: 'GET', url: '/v1/pets' });
    assert.is(next.headers['x-ratelimit-remaining'], String(Number(next.headers['x-ratelimit-limit']) - 1), 'the refused Prefer was not counted');
  });
}

faults('a Prefer that cannot be had from a key over its limit: its real 429', async () => {
  const server = await serverWith({ apiKeys: [{ key: 'tiny-enterprise-key', plan: 'enterprise', limits: { perMinute: 1, perDay: 100 } }] });
  const authorization = 'Bearer tiny-enterprise-key';
  assert.is((await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization } })).status, 200);
  const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization, prefer: 'code=404' } });
  assert.is(res.status, 429);
  assert.is(res.body.code, 'rate_limited_minute');
});

faults('the admin API names a key with scheduled faults by its label, as every other report does', async () => {
  const server = await serverWith({ adminToken: 'faults-admin-token' });
  const admin = { authorization: 'Bearer faults-admin-token' };
  const posted = await send(server, { method: 'POST', url: '/__admin/faults', headers: admin, payload: { key: 'test-free-key', code: 503, count: 2 } });
  assert.is(posted.status, 201);
  assert.equal(posted.body, { key: 'test…(13 chars)', scheduled: [{ code: 503, remaining: 2 }] });
  const listed = await send(server, { method: 'GET', url: '/__admin/faults', headers: admin });
  assert.equal(listed.body, { 'test…(13 chars)': [{ code: 503, remaining: 2 }] });
  assert.not.match(JSON.stringify(listed.body), /test-free-key/);
});

faults.run();
