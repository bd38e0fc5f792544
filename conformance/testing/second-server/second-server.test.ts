// The second implementation, driven over real sockets on a manual clock: the operations, media
// types, methods, authentication and lifecycle. Each test starts its own server, so that no
// rate-limit window or stored pet leaks from one into another.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHttpDate } from '../../../spec/rules/fields.js';
import { linkWithRel, parseLinks } from '../../../spec/rules/link.js';
import { ADDRESS_LIMIT_PER_MINUTE, BODY_LIMIT_BYTES, SECOND_SERVER_CHOICES, startSecondServer, type SecondServerOptions } from './index.ts';
import {
  START_MS,
  assertError,
  assertPet,
  call,
  exchange,
  ids,
  ietfFields,
  pets,
  rate,
  start,
  withServer,
  type Raw,
  type Reply,
  type Running,
} from './test-support.ts';

// ---------------------------------------------------------------------------------------------
const listing = suite('listPets: bare array, newest first, limit clamped, status filter');

listing('200 with a bare array of Pet with exactly id, name, categoryId and status, newest first', async () => {
  await withServer({}, async (r) => {
    const reply = await call(r, '/pets');
    assert.is(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json\b/);
    assert.ok(Array.isArray(reply.body));
    reply.body.forEach(assertPet);
    assert.equal(ids(reply), [3, 2, 1], 'the default seed, newest first');
    assert.equal(reply.body[2], { id: 1, name: 'Juniper', categoryId: 3, status: 'available' });
  });
});

listing('empty: true starts with no pets; seed replaces the default pets', async () => {
  await withServer({ empty: true }, async (r) => assert.equal((await call(r, '/pets')).body, []));
  await withServer({ seed: [{ name: 'Only', categoryId: 9 }] }, async (r) =>
    assert.equal((await call(r, '/pets')).body, [{ id: 1, name: 'Only', categoryId: 9, status: 'pending' }]),
  );
});

const LIMITS: Array<[query: string, expected: number | 'refused']> = [
  ['', 20],
  ['limit=', 20],
  ['limit=1', 1],
  ['limit=7', 7],
  ['limit=100', 100],
  ['limit=0', 1],
  ['limit=-5', 1],
  ['limit=101', 100],
  ['limit=99999999999999999999', 100],
  ['limit=abc', 'refused'],
  ['limit=1.5', 'refused'],
  ['limit=1e2', 'refused'],
  ['limit=1&limit=50', 1],
];

listing('limit defaults to 20, is clamped into 1..100, and a non-integer is refused', async () => {
  await withServer({ seed: pets(120) }, async (r) => {
    for (const [query, expected] of LIMITS) {
      const reply = await call(r, `/pets?${query}`);
      if (expected === 'refused') assertError(reply, 400, 'VALIDATION_FAILED', query);
      else {
        assert.is(reply.status, 200, query);
        assert.is(reply.body.length, expected, query);
        assert.is(ids(reply)[0], 120, `${query}: newest first`);
      }
    }
  });
});

listing('status filters to that status, for every PetStatus; another value is 400', async () => {
  const seed = [...pets(2, 'available'), ...pets(3, 'pending'), ...pets(4, 'sold')];
  await withServer({ seed }, async (r) => {
    for (const [status, count] of [
      ['available', 2],
      ['pending', 3],
      ['sold', 4],
    ] as const) {
      const reply = await call(r, `/pets?status=${status}`);
      assert.is(reply.body.length, count, status);
      assert.ok(
        reply.body.every((p: { status: string }) => p.status === status),
        status,
      );
    }
    assert.is((await call(r, '/pets?status=sold&status=adopted')).body.length, 4, 'the first of a repeated parameter counts');
    for (const query of ['status=adopted', 'status=', 'status=AVAILABLE']) assertError(await call(r, `/pets?${query}`), 400, 'VALIDATION_FAILED', query);
  });
});

listing.run();

// ---------------------------------------------------------------------------------------------
const paging = suite('paging: page parameter and an absolute Link rel="next"');

paging('a full page with more after it links to the next page; following the links walks every pet once', async () => {
  await withServer({ seed: pets(5) }, async (r) => {
    const seen: number[][] = [];
    let url: string | undefined = `${r.server.baseUrl}/pets?limit=2`;
    const links: string[] = [];
    while (url) {
      const reply = await call(r, url);
      assert.is(reply.status, 200);
      seen.push(ids(reply));
      const next = linkWithRel(parseLinks(reply.headers.get('link')), 'next');
      url = next?.target;
      if (url) links.push(url);
    }
    assert.equal(seen, [[5, 4], [3, 2], [1]]);
    assert.equal(links, [`${r.server.baseUrl}/pets?page=2&limit=2`, `${r.server.baseUrl}/pets?page=3&limit=2`]);
  });
});

paging('the link keeps the status filter and the clamped limit; a last page that is exactly full has no link', async () => {
  await withServer({ seed: [...pets(3, 'sold'), ...pets(2, 'pending')] }, async (r) => {
    const first = await call(r, '/pets?status=sold&limit=0');
    assert.equal(ids(first), [3]);
    assert.is(first.headers.get('link'), `<${r.server.baseUrl}/pets?page=2&limit=1&status=sold>; rel="next"`);
    const last = await call(r, '/pets?status=sold&limit=1&page=3');
    assert.equal(ids(last), [1]);
    assert.is(last.headers.get('link'), null);
    const exact = await call(r, '/pets?limit=5');
    assert.is(exact.body.length, 5);
    assert.is(exact.headers.get('link'), null);
  });
});

paging('a page beyond the end is an empty array; page 0, negative or not an integer is 400', async () => {
  await withServer({ seed: pets(3) }, async (r) => {
    const beyond = await call(r, '/pets?page=9');
    assert.is(beyond.status, 200);
    assert.equal(beyond.body, []);
    for (const page of ['0', '-1', 'abc', '1.5', 'two']) assertError(await call(r, `/pets?page=${page}`), 400, 'VALIDATION_FAILED', `page=${page}`);
  });
});

paging("paging: 'none' sends no Link, and page still works", async () => {
  await withServer({ seed: pets(5), paging: 'none' }, async (r) => {
    const first = await call(r, '/pets?limit=2');
    assert.is(first.headers.get('link'), null);
    assert.equal(ids(first), [5, 4]);
    assert.equal(ids(await call(r, '/pets?limit=2&page=2')), [3, 2]);
  });
});

paging.run();

// ---------------------------------------------------------------------------------------------
const creating = suite('createPet: the stored pet, absolute Location, strict NewPet');

creating('201 with the stored pet (status pending by default), an absolute Location that getPet answers, ids increasing', async () => {
  await withServer({}, async (r) => {
    const created = await call(r, '/pets', { json: { name: 'Mochi', categoryId: 2 } });
    assert.is(created.status, 201);
    assert.equal(created.body, { id: 4, name: 'Mochi', categoryId: 2, status: 'pending' });
    assert.is(created.headers.get('location'), `${r.server.baseUrl}/pets/4`);
    const fetched = await call(r, created.headers.get('location')!);
    assert.equal(fetched.body, created.body);
    const second = await call(r, '/pets', { json: { name: 'Tofu', categoryId: 2, status: 'sold' } });
    assert.equal(second.body, { id: 5, name: 'Tofu', categoryId: 2, status: 'sold' });
    assert.equal(ids(await call(r, '/pets?limit=2')), [5, 4], 'the newest first');
  });
});

const ACCEPTED: Array<[what: string, body: Record<string, unknown>]> = [
  ['categoryId 0', { name: 'a', categoryId: 0 }],
  ['a negative categoryId', { name: 'a', categoryId: -7 }],
  ['the largest safe categoryId', { name: 'a', categoryId: Number.MAX_SAFE_INTEGER }],
  ['a blank name', { name: ' ', categoryId: 1 }],
  ['a name with a control character', { name: 'a\u0001b', categoryId: 1 }],
  ['a name of 1000 characters', { name: 'n'.repeat(1000), categoryId: 1 }],
  ['every status', { name: 'a', categoryId: 1, status: 'available' }],
];

creating('accepted as sent: any safe integer categoryId, any non-empty name', async () => {
  await withServer({}, async (r) => {
    for (const [what, body] of ACCEPTED) {
      const reply = await call(r, '/pets', { json: body });
      assert.is(reply.status, 201, `${what}: ${reply.text}`);
      assert.equal(reply.body, { id: reply.body.id, status: 'pending', ...body }, what);
    }
  });
});

const REFUSED: Array<[what: string, body: string, mentions?: string]> = [
  ['a client-sent id', '{"id":99,"name":"a","categoryId":1}', '"id"'],
  ['an unknown field', '{"name":"a","categoryId":1,"colour":"grey"}', '"colour"'],
  ['__proto__ as a field', '{"name":"a","categoryId":1,"__proto__":{}}', '"__proto__"'],
  ['categoryId as a string', '{"name":"a","categoryId":"2"}', 'categoryId'],
  ['categoryId with a fraction', '{"name":"a","categoryId":1.5}', 'categoryId'],
  ['categoryId beyond 2^53 - 1', '{"name":"a","categoryId":9007199254740993}', 'categoryId'],
  ['categoryId true', '{"name":"a","categoryId":true}', 'categoryId'],
  ['categoryId null', '{"name":"a","categoryId":null}', 'categoryId'],
  ['no categoryId', '{"name":"a"}', 'categoryId'],
  ['no name', '{"categoryId":1}', 'name'],
  ['an empty name', '{"name":"","categoryId":1}', 'name'],
  ['a number as name', '{"name":123,"categoryId":1}', 'name'],
  ['another status', '{"name":"a","categoryId":1,"status":"adopted"}', 'status'],
  ['status null', '{"name":"a","categoryId":1,"status":null}', 'status'],
  ['an array', '[{"name":"a","categoryId":1}]'],
  ['a string', '"Mochi"'],
  ['null', 'null'],
];

creating('unknown fields (id included), missing or wrong-typed fields and non-objects are 400 VALIDATION_FAILED; nothing is coerced or stored', async () => {
  await withServer({}, async (r) => {
    for (const [what, body, mentions] of REFUSED) {
      const reply = await call(r, '/pets', { body, headers: { 'content-type': 'application/json' } });
      assertError(reply, 400, 'VALIDATION_FAILED', what);
      if (mentions) assert.ok(reply.body.message.includes(mentions), `${what}: ${reply.body.message}`);
    }
    assert.equal(ids(await call(r, '/pets')), [3, 2, 1], 'nothing was stored');
  });
});

creating.run();

// ---------------------------------------------------------------------------------------------
const getting = suite('getPet: 200, 404 for anything not stored, Deprecation and Sunset');

getting('200 with the pet, carrying Deprecation @<2026-01-01> and the Sunset of 5 December 2030', async () => {
  await withServer({}, async (r) => {
    const reply = await call(r, '/pets/2');
    assert.is(reply.status, 200);
    assert.equal(reply.body, { id: 2, name: 'Quill', categoryId: 7, status: 'pending' });
    assert.is(reply.headers.get('deprecation'), `@${Date.UTC(2026, 0, 1) / 1000}`);
    assert.is(reply.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT');
    for (const other of [await call(r, '/pets'), await call(r, '/pets', { json: { name: 'a', categoryId: 1 } })]) {
      assert.is(other.headers.get('deprecation'), null, 'only getPet is deprecated');
      assert.is(other.headers.get('sunset'), null);
    }
  });
});

getting('an id that is not an integer, or an integer not stored, is 404 NOT_FOUND (still deprecated)', async () => {
  await withServer({}, async (r) => {
    for (const id of ['abc', '1.5', '0', '-1', '4', '9007199254740991', '99999999999999999999', '%31x']) {
      const reply = await call(r, `/pets/${id}`);
      assertError(reply, 404, 'NOT_FOUND', `/pets/${id}`);
      assert.ok(reply.headers.get('deprecation'), `/pets/${id}`);
    }
  });
});

getting('from the sunset on, getPet is gone: 404 without Deprecation', async () => {
  await withServer({}, async (r) => {
    r.clock.set(Date.UTC(2030, 11, 5) - 1);
    assert.is((await call(r, '/pets/1')).status, 200);
    r.clock.set(Date.UTC(2030, 11, 5));
    const gone = await call(r, '/pets/1');
    assertError(gone, 404, 'NOT_FOUND', 'after the sunset');
    assert.is(gone.headers.get('deprecation'), null);
  });
});

getting.run();

// ---------------------------------------------------------------------------------------------
const media = suite('media types, content codings, malformed bodies and the 4096-byte limit');

const JSON_BODY = '{"name":"Mochi","categoryId":2}';
const MEDIA: Array<[what: string, headers: Record<string, string>, body: string | Buffer, status: number, code?: string]> = [
  ['application/json', { 'content-type': 'application/json' }, JSON_BODY, 201],
  ['in capitals', { 'content-type': 'APPLICATION/JSON' }, JSON_BODY, 201],
  ['charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }, JSON_BODY, 201],
  ['charset="UTF-8"', { 'content-type': 'application/json;charset="UTF-8"' }, JSON_BODY, 201],
  ['Content-Encoding: identity', { 'content-type': 'application/json', 'content-encoding': 'identity' }, JSON_BODY, 201],
  ['text/plain', { 'content-type': 'text/plain' }, JSON_BODY, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ['no Content-Type', {}, Buffer.from(JSON_BODY), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ['application/json-patch+json', { 'content-type': 'application/json-patch+json' }, JSON_BODY, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ['charset=iso-8859-1', { 'content-type': 'application/json; charset=iso-8859-1' }, JSON_BODY, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ['Content-Encoding: gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, JSON_BODY, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ['JSON cut short', { 'content-type': 'application/json' }, JSON_BODY.slice(0, -2), 400, 'MALFORMED_JSON'],
  ['a form body', { 'content-type': 'application/json' }, 'name=x&categoryId=1', 400, 'MALFORMED_JSON'],
  ['an empty body', { 'content-type': 'application/json' }, '', 400, 'MALFORMED_JSON'],
  [
    'bytes that are not UTF-8',
    { 'content-type': 'application/json' },
    Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","categoryId":1}')]),
    400,
    'MALFORMED_JSON',
  ],
];

media('application/json in any letters and UTF-8 only, no coding; malformed JSON or UTF-8 is 400', async () => {
  await withServer({}, async (r) => {
    for (const [what, headers, body, status, code] of MEDIA) {
      const reply = await call(r, '/pets', { method: 'POST', headers, body });
      if (code) assertError(reply, status, code, what);
      else assert.is(reply.status, status, `${what}: ${reply.text}`);
    }
  });
});

const padded = (bytes: number) => {
  const body = '{"name":"x","categoryId":1}';
  return body.slice(0, -1) + ' '.repeat(bytes - body.length) + '}';
};

media(`a body of exactly ${BODY_LIMIT_BYTES} bytes is accepted; one byte more is 413 and the connection closes`, async () => {
  await withServer({}, async (r) => {
    assert.is((await call(r, '/pets', { json: undefined, body: padded(BODY_LIMIT_BYTES), headers: { 'content-type': 'application/json' } })).status, 201);
    const reply = await call(r, '/pets', { body: padded(BODY_LIMIT_BYTES + 1), headers: { 'content-type': 'application/json' } });
    assertError(reply, 413, 'PAYLOAD_TOO_LARGE', 'one byte over');
    assert.is(reply.headers.get('connection'), 'close');
  });
});

media('a declared Content-Length over the limit is refused before any body arrives, and the connection closes', async () => {
  await withServer({}, async (r) => {
    const raw = await exchange(r.server, [
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${r.server.keys.pro}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    ]);
    assert.is(raw.status, 413);
    assert.is(JSON.parse(raw.body).code, 'PAYLOAD_TOO_LARGE');
  });
});

media('a chunked body that grows past the limit is 413 at once, without waiting for its end, and the connection closes', async () => {
  await withServer({}, async (r) => {
    const chunk = `3e8\r\n${'x'.repeat(1000)}\r\n`;
    const raw = await exchange(r.server, [
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${r.server.keys.pro}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      ...Array.from({ length: 5 }, () => chunk),
    ]);
    assert.is(raw.status, 413);
    assert.equal(JSON.parse(raw.body), { code: 'PAYLOAD_TOO_LARGE', message: `The body is larger than ${BODY_LIMIT_BYTES} bytes.`, status: 413 });
    assert.ok(raw.headers['x-ratelimit-remaining'] !== undefined);
    assert.equal(ids(await call(r, '/pets')), [3, 2, 1], 'nothing was stored');
  });
});

media.run();

// ---------------------------------------------------------------------------------------------
const methods = suite('methods and paths: HEAD as GET, 405 with Allow, OPTIONS, 404');

const METHODS: Array<[method: string, path: string, status: number, allow?: string]> = [
  ['PUT', '/pets', 405, 'GET, HEAD, POST'],
  ['PATCH', '/pets', 405, 'GET, HEAD, POST'],
  ['DELETE', '/pets', 405, 'GET, HEAD, POST'],
  ['POST', '/pets/1', 405, 'GET, HEAD'],
  ['PUT', '/pets/1', 405, 'GET, HEAD'],
  ['DELETE', '/pets/abc', 405, 'GET, HEAD'],
  ['OPTIONS', '/pets', 204, 'GET, HEAD, POST'],
  ['OPTIONS', '/pets/1', 204, 'GET, HEAD'],
  ['GET', '/categories', 404],
  ['GET', '/pets/1/photos', 404],
  ['GET', '', 404],
];

methods('a method a path does not describe is 405 naming the described ones; OPTIONS is 204 with Allow; an unknown path is 404', async () => {
  await withServer({}, async (r) => {
    for (const [method, path, status, allow] of METHODS) {
      const reply = await call(r, path, { method });
      const what = `${method} ${path}`;
      if (status === 204) assert.is(reply.status, 204, what);
      else assertError(reply, status, status === 405 ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND', what);
      assert.is(reply.headers.get('allow'), allow ?? null, what);
    }
  });
});

/** A HEAD on a connection of its own, read off the wire until the server closes it: content Node sent would show here. */
function head(r: Running, path: string, key: string | null): Promise<Raw> {
  const authorization = key === null ? '' : `Authorization: Bearer ${key}\r\n`;
  return exchange(r.server, [`HEAD /v1${path} HTTP/1.1\r\nHost: x\r\n${authorization}Connection: close\r\n\r\n`]);
}

const HEADS: Array<[what: string, path: string, key: 'pro' | null, status: number]> = [
  ['listPets', '/pets', 'pro', 200],
  ['getPet of a known id', '/pets/2', 'pro', 200],
  ['getPet of an unknown id', '/pets/9007199254740991', 'pro', 404],
  ['listPets without a key', '/pets', null, 401],
];

/** Header fields that are the window's count, which the HEAD between two GETs moves on by one. */
const COUNTED = new Set(['x-ratelimit-remaining', 'ratelimit', 'date']);

methods('HEAD answers as GET does: same status and header fields, Content-Length of GET’s content, no content, counted as a GET', async () => {
  await withServer({}, async (r) => {
    for (const [what, path, plan, status] of HEADS) {
      const key = plan === null ? null : r.server.keys[plan];
      const before = await call(r, path, { key });
      const raw = await head(r, path, key);
      const after = await call(r, path, { key });
      assert.is(before.status, status, what);
      assert.is(raw.status, status, what);
      assert.is(raw.body, '', `${what}: content after a HEAD answer`);
      const fields = (reply: Reply) =>
        Object.fromEntries([...reply.headers].filter(([name]) => !COUNTED.has(name) && name !== 'connection' && name !== 'keep-alive'));
      const headFields = Object.fromEntries(Object.entries(raw.headers).filter(([name]) => !COUNTED.has(name) && name !== 'connection'));
      assert.equal(headFields, fields(before), `${what}: HEAD's fields against GET's`);
      assert.is(raw.headers['content-length'], String(Buffer.byteLength(before.text)), what);
      ietfFields((name) => raw.headers[name], r.clock.now(), `HEAD ${what}`);
      const remaining = [before, after].map((reply) => rate(reply).remaining);
      assert.equal(
        [remaining[0], Number(raw.headers['x-ratelimit-remaining']), remaining[1]],
        [remaining[0], remaining[0]! - 1, remaining[0]! - 2],
        `${what}: HEAD counts in the window as a GET does`,
      );
    }
  });
});

methods('a path outside /v1 is 404 even without a key, with the address window', async () => {
  await withServer({}, async (r) => {
    const reply = await call(r, `${r.server.origin}/pets`, { key: null });
    assertError(reply, 404, 'NOT_FOUND', '/pets');
    assert.is(rate(reply).limit, ADDRESS_LIMIT_PER_MINUTE);
  });
});

methods('a request that is not HTTP, CONNECT, or HTTP/1.1 without Host is 400 BAD_REQUEST with an Error body, and the server carries on', async () => {
  await withServer({}, async (r) => {
    const requests = [
      'GARBAGE\r\n\r\n',
      `CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\nAuthorization: Bearer ${r.server.keys.pro}\r\n\r\n`,
      `GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${r.server.keys.pro}\r\nConnection: close\r\n\r\n`,
    ];
    for (const request of requests) {
      const raw = await exchange(r.server, [request]);
      assert.is(raw.status, 400, request);
      const body = JSON.parse(raw.body);
      assert.equal(Object.keys(body).sort(), ['code', 'message', 'status'], request);
      assert.is(body.code, 'BAD_REQUEST', request);
      assert.ok(raw.headers['x-ratelimit-limit'] !== undefined, request);
      const { policies } = ietfFields((name) => raw.headers[name], r.clock.now(), request);
      // Framing errors and CONNECT count in the address window; a request without Host, in its key's.
      const windows = request.startsWith('GET') ? ['minute', 'day'] : ['address-minute'];
      assert.equal(
        policies.map((p) => p.name),
        windows,
        request,
      );
    }
    assert.is((await call(r, '/pets')).status, 200);
  });
});

methods.run();

// ---------------------------------------------------------------------------------------------
const auth = suite('authentication: 401 UNAUTHORIZED with WWW-Authenticate, limited per address');

auth('a missing, unknown or non-Bearer Authorization is 401 on every operation; the scheme is case-insensitive', async () => {
  await withServer({}, async (r) => {
    const key = r.server.keys.free;
    const cases: Array<[string, Record<string, string>]> = [
      ['no Authorization', {}],
      ['an unknown key', { authorization: 'Bearer not-a-key' }],
      ['Basic', { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }],
      ['the key without a scheme', { authorization: key }],
      ['Bearer and nothing', { authorization: 'Bearer ' }],
    ];
    for (const [what, headers] of cases) {
      for (const [method, path] of [
        ['GET', '/pets'],
        ['POST', '/pets'],
        ['GET', '/pets/1'],
        ['DELETE', '/pets'],
        ['GET', '/nowhere'],
      ]) {
        const reply = await call(r, path!, { method: method!, key: null, headers, ...(method === 'POST' ? { json: { name: 'a', categoryId: 1 } } : {}) });
        assertError(reply, 401, 'UNAUTHORIZED', `${what}, ${method} ${path}`);
        assert.is(reply.headers.get('www-authenticate'), 'Bearer realm="pets"');
      }
    }
    assert.is((await call(r, '/pets', { key: null, headers: { authorization: `bearer ${key}` } })).status, 200);
  });
});

auth(`requests without a valid key share one window per address: ${ADDRESS_LIMIT_PER_MINUTE} a minute, then 429`, async () => {
  await withServer({}, async (r) => {
    for (let i = 1; i <= ADDRESS_LIMIT_PER_MINUTE; i++) {
      const reply = await call(r, '/pets', { key: i % 2 ? null : 'wrong' });
      assert.is(reply.status, 401);
      assert.equal(rate(reply), { limit: ADDRESS_LIMIT_PER_MINUTE, remaining: ADDRESS_LIMIT_PER_MINUTE - i, reset: Math.ceil((START_MS + 60_000) / 1000) });
    }
    const refused = await call(r, '/pets', { key: null });
    assertError(refused, 429, 'RATE_LIMITED', 'over the address limit');
    assert.is(rate(refused).remaining, 0);
    assert.is(parseHttpDate(refused.headers.get('retry-after'), START_MS), rate(refused).reset * 1000);
    assert.is((await call(r, '/pets')).status, 200, 'a valid key has its own window');
    r.clock.set(rate(refused).reset * 1000);
    assert.is((await call(r, '/pets', { key: null })).status, 401, 'the address window reopens at its Reset');
  });
});

auth('options.keys replaces the default keys', async () => {
  await withServer({ keys: { 'mine-1': 'business' } }, async (r) => {
    assert.equal(r.server.keys, { free: '', pro: '', business: 'mine-1' });
    assert.is((await call(r, '/pets', { key: 'second-pro-key' })).status, 401);
    const reply = await call(r, '/pets', { key: 'mine-1' });
    assert.is(reply.status, 200);
    assert.is(rate(reply).limit, 1000);
  });
});

auth.run();

// ---------------------------------------------------------------------------------------------
const lifecycle = suite('lifecycle and documentation');

lifecycle('close() ends open keep-alive connections and resolves', async () => {
  const r = await start();
  assert.is((await call(r, '/pets')).status, 200);
  await r.server.close();
  try {
    await fetch(`${r.server.baseUrl}/pets`);
    assert.unreachable('the server still answers');
  } catch (error) {
    assert.instance(error, TypeError);
  }
});

lifecycle('invalid options are refused where they enter', async () => {
  for (const options of [
    { banAfter: 0 },
    { banSeconds: 1.5 },
    { paging: 'cursor' },
    { keys: { 'a key': 'free' } },
    { keys: { k: 'gold' } },
    { seed: [{ name: '', categoryId: 1 }] },
    { window: 'rolling' },
    { race: true },
    { race: { limiter: 'yes' } },
    { race: { clock: true } },
  ]) {
    try {
      await startSecondServer(options as SecondServerOptions);
      assert.unreachable(JSON.stringify(options));
    } catch (error) {
      assert.instance(error, TypeError, JSON.stringify(options));
    }
  }
});

lifecycle('the README’s Decisions table names every choice', () => {
  const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
  const rows = readme.split('\n').filter((line) => line.startsWith('| '));
  for (const { point } of SECOND_SERVER_CHOICES)
    assert.ok(
      rows.some((row) => row.startsWith(`| ${point} |`)),
      `README has no row for ${point}`,
    );
});

lifecycle.run();
