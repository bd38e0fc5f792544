// The library server's own behaviour, from a table of cases (method, path, body → status, code),
// then the rate limits and the ban on a shared clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SharedClock, startClockedLibraryServer } from './clocked.ts';
import { startLibraryServer } from './index.ts';
import { resolveOptions } from './options.ts';

const server = await startLibraryServer({});
const KEY = { authorization: `Bearer ${server.keys.pro}` };
const JSON_TYPE = { 'content-type': 'application/json' };

const CASES: Array<[string, string, Record<string, string>, string | undefined, number, string | undefined]> = [
  ['GET', '/v1/pets', KEY, undefined, 200, undefined],
  ['GET', '/v1/pets?limit=0', KEY, undefined, 400, 'invalid-request'],
  ['GET', '/v1/pets?limit=101', KEY, undefined, 400, 'invalid-request'],
  ['GET', '/v1/pets?limit=1&limit=2', KEY, undefined, 400, 'invalid-request'],
  ['GET', '/v1/pets?status=lost', KEY, undefined, 400, 'invalid-request'],
  ['GET', '/v1/pets', {}, undefined, 401, 'unauthorized'],
  ['GET', '/v1/pets', { authorization: 'Bearer nobody' }, undefined, 401, 'unauthorized'],
  ['GET', '/v1/pets/1', KEY, undefined, 200, undefined],
  ['GET', '/v1/pets/abc', KEY, undefined, 400, 'invalid-request'],
  ['GET', '/v1/pets/999', KEY, undefined, 404, 'not-found'],
  ['POST', '/v1/pets', { ...KEY, ...JSON_TYPE }, '{"name":"Rex","categoryId":2,"extra":1}', 201, undefined],
  ['POST', '/v1/pets', { ...KEY, ...JSON_TYPE }, '{"name":"Rex"}', 400, 'invalid-request'],
  ['POST', '/v1/pets', { ...KEY, ...JSON_TYPE }, '{"name":', 400, 'malformed-json'],
  ['POST', '/v1/pets', { ...KEY, 'content-type': 'text/plain' }, 'Rex', 415, 'unsupported-media-type'],
  ['DELETE', '/v1/pets/1', KEY, undefined, 405, 'method-not-allowed'],
  ['OPTIONS', '/v1/pets', KEY, undefined, 204, undefined],
  ['GET', '/v2/pets', KEY, undefined, 404, 'not-found'],
];

for (const [method, path, headers, body, status, code] of CASES) {
  test(`${method} ${path} ${headers.authorization ?? 'without a key'} → ${status} ${code ?? ''}`, async () => {
    const res = await fetch(`${server.origin}${path}`, { method, headers, body });
    assert.is(res.status, status);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.ok(res.headers.get(name), name);
    const text = await res.text();
    if (code === undefined) return;
    assert.equal(JSON.parse(text), { code, message: (JSON.parse(text) as { message: string }).message, status });
  });
}

test('the deprecated getPet carries Deprecation and Sunset; a 201 names the pet in Location and drops unknown fields', async () => {
  const got = await fetch(`${server.baseUrl}/pets/1`, { headers: KEY });
  assert.is(got.headers.get('deprecation'), '@1748736000');
  assert.is(got.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT');
  const made = await fetch(`${server.baseUrl}/pets`, { method: 'POST', headers: { ...KEY, ...JSON_TYPE }, body: '{"name":"Ivy","categoryId":3,"id":1,"x":2}' });
  const pet = (await made.json()) as { id: number };
  assert.equal(pet, { id: pet.id, name: 'Ivy', categoryId: 3, status: 'available' });
  assert.is(made.headers.get('location'), `/v1/pets/${pet.id}`);
});

test('a full page links to the next one by offset', async () => {
  const res = await fetch(`${server.baseUrl}/pets?limit=2&status=available`, { headers: KEY });
  assert.is(res.headers.get('link'), '</v1/pets?offset=2&limit=2&status=available>; rel="next"');
});

test('on a shared clock: 61st request refused with Retry-After, the fifth refusal bans until the window is over, then a fresh window', async () => {
  const clock = new SharedClock(Date.UTC(2026, 0, 1, 0, 0, 0, 250));
  const lib = await startClockedLibraryServer({ banAfter: 5, banSeconds: 30 }, clock);
  const get = async () => {
    const res = await fetch(`${lib.baseUrl}/pets?limit=1`, { headers: { authorization: `Bearer ${lib.keys.free}` } });
    const body = (await res.json()) as { code?: string };
    return {
      status: res.status,
      code: body.code,
      remaining: res.headers.get('x-ratelimit-remaining'),
      reset: res.headers.get('x-ratelimit-reset'),
      retry: res.headers.get('retry-after'),
      date: res.headers.get('date'),
    };
  };
  try {
    const first = await get();
    assert.equal([first.remaining, first.reset, first.date], ['59', String(Date.UTC(2026, 0, 1, 0, 1, 1) / 1000), 'Thu, 01 Jan 2026 00:00:00 GMT']);
    for (let i = 0; i < 59; i++) await get();
    clock.advance(10_000);
    const refused = await get();
    assert.equal([refused.status, refused.code, refused.remaining, refused.retry], [429, 'too-many-requests', '0', '50']);
    for (let i = 0; i < 4; i++) await get();
    const banned = await get();
    assert.equal([banned.status, banned.code, banned.retry], [429, 'key-banned', '50']);
    clock.advance(50_000);
    const after = await get();
    assert.equal([after.status, after.remaining], [200, '59']);
  } finally {
    await lib.close();
  }
});

test('options are checked where they enter', () => {
  assert.throws(() => resolveOptions({ keys: { k: 'gold' as never } }), /not a plan/);
  assert.throws(() => resolveOptions({ banAfter: 0 }), /positive integer/);
  assert.throws(() => resolveOptions({ bug: 'nope' as never }), /bug: one of/);
});

test.after(() => server.close());
test.run();
