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

faults.run();
