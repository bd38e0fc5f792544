import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FREE, send, testServer, type Sent } from '../testing/helpers.ts';
import { LAST_ID } from '../store/id-space.ts';
import type { Pet } from '../types.ts';

const manyPets = (n: number): Pet[] =>
  Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: `Pet ${i + 1}`,
    categoryId: (i % 4) + 1,
    status: (['available', 'pending', 'sold'] as const)[i % 3]!,
  }));

function assertErrorBody(res: Sent, status: number, code: string, mentions?: string) {
  assert.is(res.status, status);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(Object.keys(res.body).sort(), ['code', 'message', 'status']);
  assert.is(res.body.status, status);
  assert.is(res.body.code, code);
  assert.type(res.body.message, 'string');
  if (mentions) assert.ok(res.body.message.includes(mentions), `message "${res.body.message}" should mention ${mentions}`);
}

// ---------------------------------------------------------------------------------------------
const list = suite('GET /v1/pets');

list('returns a bare array of at most 20 pets by default, in ascending id order', async () => {
  const server = await testServer({ seedPets: manyPets(45) });
  const res = await send(server, { method: 'GET', url: '/v1/pets' });
  assert.is(res.status, 200);
  assert.ok(Array.isArray(res.body));
  assert.equal(
    res.body.map((p: Pet) => p.id),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  assert.equal(Object.keys(res.body[0]).sort(), ['categoryId', 'id', 'name', 'status']);
});

const limits: Array<[string, number]> = [
  ['1', 1],
  ['7', 7],
  ['100', 45],
];
for (const [limit, expected] of limits) {
  list(`limit=${limit} returns ${expected} pets`, async () => {
    const server = await testServer({ seedPets: manyPets(45) });
    const res = await send(server, { method: 'GET', url: `/v1/pets?limit=${limit}` });
    assert.is(res.status, 200);
    assert.is(res.body.length, expected);
  });
}

list('limit=100 is honoured in full when there are more pets', async () => {
  const server = await testServer({ seedPets: manyPets(150) });
  const res = await send(server, { method: 'GET', url: '/v1/pets?limit=100' });
  assert.is(res.body.length, 100);
});

for (const status of ['available', 'pending', 'sold']) {
  list(`status=${status} returns only ${status} pets`, async () => {
    const server = await testServer({ seedPets: manyPets(30) });
    const res = await send(server, { method: 'GET', url: `/v1/pets?status=${status}&limit=100` });
    assert.is(res.status, 200);
    assert.is(res.body.length, 10);
    assert.ok(res.body.every((p: Pet) => p.status === status));
  });
}

const badQueries: Array<[string, string]> = [
  ['limit=0', 'limit'],
  ['limit=101', 'limit'],
  ['limit=-5', 'limit'],
  ['limit=1.5', 'limit'],
  ['limit=abc', 'limit'],
  ['limit=', 'limit'],
  ['limit=1&limit=2', 'limit'],
  ['status=adopted', 'status'],
  ['status=AVAILABLE', 'status'],
  ['status=', 'status'],
  ['cursor=not-a-cursor', 'cursor'],
];
for (const [query, field] of badQueries) {
  list(`${query} is a 400 invalid_parameter naming "${field}"`, async () => {
    const server = await testServer();
    const res = await send(server, { method: 'GET', url: `/v1/pets?${query}` });
    assertErrorBody(res, 400, 'invalid_parameter', field);
  });
}

list('unknown query parameters are ignored', async () => {
  const server = await testServer();
  const res = await send(server, { method: 'GET', url: '/v1/pets?page=2&sort=name' });
  assert.is(res.status, 200);
  assert.is(res.body.length, 10);
});

// ---------------------------------------------------------------------------------------------
const pages = suite('pagination');

async function walk(server: Awaited<ReturnType<typeof testServer>>, firstUrl: string, between?: () => Promise<void>) {
  const seen: number[] = [];
  let url: string | undefined = firstUrl;
  let requests = 0;
  while (url && requests++ < 1_000) {
    const res = await send(server, { method: 'GET', url });
    assert.is(res.status, 200);
    seen.push(...res.body.map((p: Pet) => p.id));
    const link = res.headers.link as string | undefined;
    if (link) assert.match(link, /^<\/v1\/pets\?[^>]+>; rel="next"$/);
    url = link ? /^<([^>]+)>/.exec(link)![1] : undefined;
    if (between) await between();
  }
  return seen;
}

pages('walking the Link rel="next" pages returns every pet exactly once, in order', async () => {
  const server = await testServer({ seedPets: manyPets(95) });
  const seen = await walk(server, '/v1/pets?limit=10');
  assert.equal(
    seen,
    Array.from({ length: 95 }, (_, i) => i + 1),
  );
});

pages('the last page has no next link, also when it is exactly full', async () => {
  const server = await testServer({ seedPets: manyPets(20) });
  const res = await send(server, { method: 'GET', url: '/v1/pets?limit=20' });
  assert.is(res.body.length, 20);
  assert.is(res.headers.link, undefined);
});

pages('the next link keeps the status filter and the limit', async () => {
  const server = await testServer({ seedPets: manyPets(60) });
  const seen = await walk(server, '/v1/pets?limit=3&status=pending');
  assert.equal(
    seen,
    manyPets(60)
      .filter((p) => p.status === 'pending')
      .map((p) => p.id),
  );
});

pages('pets created while walking: no pet is returned twice or skipped, new ones appear at the end', async () => {
  const server = await testServer({ seedPets: manyPets(50) });
  let pagesSeen = 0;
  const createdIds: number[] = [];
  // Two creations after each of the first six pages: all of them before the walk can reach the end.
  const seen = await walk(server, '/v1/pets?limit=7', async () => {
    if (++pagesSeen > 6) return;
    const created = await Promise.all(
      [1, 2].map((n) => send(server, { method: 'POST', url: '/v1/pets', payload: { name: `New ${pagesSeen}.${n}`, categoryId: 1 } })),
    );
    createdIds.push(...created.map((r) => r.body.id as number).sort((a, b) => a - b));
  });
  assert.is(new Set(seen).size, seen.length, 'no duplicates');
  assert.equal(seen, [...manyPets(50).map((p) => p.id), ...createdIds]);
});

// ---------------------------------------------------------------------------------------------
const create = suite('POST /v1/pets');

create('201 with the stored pet, its new id and a Location that resolves to it', async () => {
  const server = await testServer();
  const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'Mochi', categoryId: 2, status: 'pending' } });
  assert.is(res.status, 201);
  assert.equal(res.body, { id: 11, name: 'Mochi', categoryId: 2, status: 'pending' });
  assert.is(res.headers.location, '/v1/pets/11');
  const fetched = await send(server, { method: 'GET', url: '/v1/pets/11' });
  assert.equal(fetched.body, res.body);
});

create('without status the pet is "available"', async () => {
  const server = await testServer();
  const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'Mochi', categoryId: 2 } });
  assert.is(res.status, 201);
  assert.is(res.body.status, 'available');
});

create('unknown fields, id included, are not stored', async () => {
  const server = await testServer();
  const res = await send(server, {
    method: 'POST',
    url: '/v1/pets',
    payload: { name: 'Mochi', categoryId: 2, id: 999, owner: 'me', tags: ['x'] },
  });
  assert.is(res.status, 201);
  assert.equal(res.body, { id: 11, name: 'Mochi', categoryId: 2, status: 'available' });
  assert.is((await send(server, { method: 'GET', url: '/v1/pets/999' })).status, 404);
});

create('names in any script, with spaces and punctuation, are accepted as sent', async () => {
  const server = await testServer();
  // U+00A0 (no-break space) and U+00A1 border the C1 controls and are not controls.
  for (const name of ['Mochi', ' Rex the 2nd ', 'Ünïcødé', '猫', '🐈‍⬛ Shadow', "O'Malley", 'Señor\u00a0Bigotes', '\u00a1Olé!']) {
    const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name, categoryId: 1 } });
    assert.is(res.status, 201, name);
    assert.is(res.body.name, name);
  }
});

create('a name with a control character is refused, and the message says why', async () => {
  const server = await testServer();
  const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'Rex\u0000', categoryId: 1 } });
  assert.equal(res.body, {
    code: 'invalid_body',
    message: '"name" must contain a non-blank character and no control characters or unpaired surrogates',
    status: 400,
  });
});

create('a store that stops answering is 503 storage_unavailable with Retry-After, not a 500', async () => {
  const server = await testServer();
  server.app.store.create = () =>
    Promise.reject(Object.assign(new Error('The database postgres://x:***@db/pets is unavailable: connection terminated.'), { code: 'database_unavailable' }));
  const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'A', categoryId: 1 } });
  assert.equal(res.body, { code: 'storage_unavailable', message: 'The store is unavailable; retry after 2 seconds.', status: 503 });
  assert.is(res.headers['retry-after'], '2');
});

create(
  'past the last id (a file store whose journal holds 2^53 - 2): one 201 with 2^53 - 1, then 507 id_space_exhausted with the Error body and no Retry-After; a restart serves every pet',
  async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pets-ids-')), 'db.json');
    writeFileSync(path, JSON.stringify({ nextId: 2, pets: [{ id: 1, name: 'First', categoryId: 1, status: 'sold' }] }));
    writeFileSync(`${path}.journal`, `${JSON.stringify({ id: LAST_ID - 1, name: 'Late', categoryId: 1, status: 'sold' })}\n`);
    const server = await testServer({ storage: { type: 'file', path } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: `Attack ${i}`, categoryId: 1 } });
      statuses.push(res.status);
      if (i === 0) assert.equal(res.body, { id: LAST_ID, name: 'Attack 0', categoryId: 1, status: 'available' });
      if (i === 0) continue;
      assertErrorBody(res, 507, 'id_space_exhausted', String(LAST_ID));
      assert.is(res.headers['retry-after'], undefined, 'waiting frees no id');
    }
    assert.equal(statuses, [201, 507, 507, 507]);
    await server.stop();

    const again = await testServer({ storage: { type: 'file', path } });
    const listed = await send(again, { method: 'GET', url: '/v1/pets' });
    assert.equal(
      listed.body.map((p: Pet) => p.id),
      [1, LAST_ID - 1, LAST_ID],
    );
    assertErrorBody(await send(again, { method: 'POST', url: '/v1/pets', payload: { name: 'After', categoryId: 1 } }), 507, 'id_space_exhausted');
    await again.stop();
  },
);

create('a name of exactly 100 characters is accepted', async () => {
  const server = await testServer();
  const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'n'.repeat(100), categoryId: Number.MAX_SAFE_INTEGER } });
  assert.is(res.status, 201);
});

create('a name of 100 astral characters is accepted: lengths count code points, as JSON Schema does', async () => {
  const server = await testServer();
  const name = '🐈'.repeat(100);
  assert.is(name.length, 200, 'two UTF-16 units each');
  const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name, categoryId: 1 } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.is(res.body.name, name);
});

const invalidBodies: Array<[string, unknown, string]> = [
  ['name missing', { categoryId: 1 }, 'name'],
  ['name empty', { name: '', categoryId: 1 }, 'name'],
  ['name blank', { name: '   ', categoryId: 1 }, 'name'],
  ['name too long', { name: 'n'.repeat(101), categoryId: 1 }, 'name'],
  ['name of 101 astral characters', { name: '🐈'.repeat(101), categoryId: 1 }, 'name'],
  ['name with a NUL character (no store can keep it faithfully)', { name: 'Rex\u0000', categoryId: 1 }, 'name'],
  ['name with a line break', { name: 'Rex\nMax', categoryId: 1 }, 'name'],
  ['name with NEL, a C1 control that breaks lines (U+0085)', { name: 'Rex\u0085Max', categoryId: 1 }, 'name'],
  ['name with the first C1 control (U+0080)', { name: 'Rex\u0080', categoryId: 1 }, 'name'],
  ['name with the last C1 control (U+009F)', { name: '\u009fRex', categoryId: 1 }, 'name'],
  ['name with DEL (U+007F)', { name: 'Rex\u007f', categoryId: 1 }, 'name'],
  ['name not a string', { name: 42, categoryId: 1 }, 'name'],
  ['name null', { name: null, categoryId: 1 }, 'name'],
  ['categoryId missing', { name: 'A' }, 'categoryId'],
  ['categoryId zero', { name: 'A', categoryId: 0 }, 'categoryId'],
  ['categoryId negative', { name: 'A', categoryId: -3 }, 'categoryId'],
  ['categoryId fractional', { name: 'A', categoryId: 1.5 }, 'categoryId'],
  ['categoryId as a string', { name: 'A', categoryId: '2' }, 'categoryId'],
  ['categoryId beyond safe integers', { name: 'A', categoryId: 2 ** 60 }, 'categoryId'],
  ['status unknown', { name: 'A', categoryId: 1, status: 'adopted' }, 'status'],
  ['status not a string', { name: 'A', categoryId: 1, status: 1 }, 'status'],
  ['body an array', [{ name: 'A', categoryId: 1 }], 'request body'],
  ['body a string', '"A"', 'request body'],
  ['body null', 'null', 'request body'],
];
for (const [name, payload, field] of invalidBodies) {
  create(`400 invalid_body naming "${field}", nothing stored: ${name}`, async () => {
    const server = await testServer();
    const res = await send(server, {
      method: 'POST',
      url: '/v1/pets',
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      headers: { 'content-type': 'application/json' },
    });
    assertErrorBody(res, 400, 'invalid_body', field);
    assert.is(await server.app.store.count(), 10);
  });
}

create('both invalid fields are named at once', async () => {
  const server = await testServer();
  const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: '', categoryId: 'x' } });
  assertErrorBody(res, 400, 'invalid_body', 'name');
  assert.ok(res.body.message.includes('categoryId'));
});

const unparsable: Array<[string, string, Record<string, string>, number, string]> = [
  ['malformed JSON', '{"name": "A",', { 'content-type': 'application/json' }, 400, 'malformed_json'],
  ['empty body', '', { 'content-type': 'application/json' }, 400, 'invalid_body'],
  [
    'a body over 16 KiB',
    JSON.stringify({ name: 'A', categoryId: 1, pad: 'x'.repeat(17_000) }),
    { 'content-type': 'application/json' },
    413,
    'payload_too_large',
  ],
  ['text/plain', 'name=A', { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
  ['form encoding', 'name=A&categoryId=1', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'unsupported_media_type'],
];
for (const [name, payload, headers, status, code] of unparsable) {
  create(`${status} ${code} for ${name}, nothing stored`, async () => {
    const server = await testServer();
    const res = await send(server, { method: 'POST', url: '/v1/pets', payload, headers });
    assertErrorBody(res, status, code);
    assert.is(await server.app.store.count(), 10);
  });
}

// ---------------------------------------------------------------------------------------------
const get = suite('GET /v1/pets/{petId}');

get('200 with the pet', async () => {
  const server = await testServer();
  const res = await send(server, { method: 'GET', url: '/v1/pets/3' });
  assert.is(res.status, 200);
  assert.equal(res.body, { id: 3, name: 'Rocky', categoryId: 1, status: 'sold' });
});

for (const id of ['999', '0', '-1', '99999999999999999999999']) {
  get(`404 pet_not_found for ${id}`, async () => {
    const server = await testServer();
    assertErrorBody(await send(server, { method: 'GET', url: `/v1/pets/${id}` }), 404, 'pet_not_found', id);
  });
}

for (const id of ['abc', '1.5', '1e3', '0x10', '%20']) {
  get(`400 invalid_parameter naming petId for "${id}"`, async () => {
    const server = await testServer();
    assertErrorBody(await send(server, { method: 'GET', url: `/v1/pets/${id}` }), 400, 'invalid_parameter', 'petId');
  });
}

// ---------------------------------------------------------------------------------------------
const auth = suite('authentication');

const refused: Array<[string, string | undefined, string, string]> = [
  ['no Authorization header', undefined, 'missing_api_key', 'Bearer realm="adoption-store"'],
  ['Basic scheme', 'Basic dGVzdDp0ZXN0', 'missing_api_key', 'Bearer realm="adoption-store"'],
  ['the bare key without a scheme', 'test-free-key', 'missing_api_key', 'Bearer realm="adoption-store"'],
  ['an empty bearer token', 'Bearer ', 'invalid_api_key', 'Bearer realm="adoption-store", error="invalid_token"'],
  ['an unknown key', 'Bearer not-a-key', 'invalid_api_key', 'Bearer realm="adoption-store", error="invalid_token"'],
  ['a near-miss key', 'Bearer test-free-keY', 'invalid_api_key', 'Bearer realm="adoption-store", error="invalid_token"'],
];
const operations: Array<[string, string, unknown]> = [
  ['GET', '/v1/pets', undefined],
  ['POST', '/v1/pets', { name: 'A', categoryId: 1 }],
  ['GET', '/v1/pets/1', undefined],
];
for (const [method, url, payload] of operations) {
  for (const [name, header, code, challenge] of refused) {
    auth(`${method} ${url}: 401 ${code} with WWW-Authenticate for ${name}`, async () => {
      const server = await testServer();
      const res = await send(server, { method, url, payload: payload as object, headers: { authorization: header } });
      assertErrorBody(res, 401, code);
      assert.is(res.headers['www-authenticate'], challenge);
      assert.is(await server.app.store.count(), 10);
    });
  }
}

auth('the scheme name is case-insensitive (RFC 7235)', async () => {
  const server = await testServer();
  const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: 'bearer test-free-key' } });
  assert.is(res.status, 200);
});

auth('every fixture key is accepted', async () => {
  const server = await testServer();
  for (const key of ['test-free-key', 'test-pro-key', 'test-business-key', 'test-enterprise-key']) {
    const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization: `Bearer ${key}` } });
    assert.is(res.status, 200, key);
  }
});

// ---------------------------------------------------------------------------------------------
const hapiErrors = suite("hapi's own errors");

hapiErrors('an unknown route is 404 route_not_found', async () => {
  const server = await testServer();
  assertErrorBody(await send(server, { method: 'GET', url: '/v1/orders' }), 404, 'route_not_found', '/v1/orders');
  assertErrorBody(await send(server, { method: 'GET', url: '/v2/pets', headers: { authorization: FREE } }), 404, 'route_not_found');
});

const wrongMethods: Array<[string, string, string]> = [
  ['DELETE', '/v1/pets', 'GET, HEAD, POST'],
  ['PUT', '/v1/pets', 'GET, HEAD, POST'],
  ['PATCH', '/v1/pets/1', 'GET, HEAD'],
  ['DELETE', '/v1/pets/1', 'GET, HEAD'],
  ['POST', '/v1/pets/1', 'GET, HEAD'],
];
for (const [method, url, allow] of wrongMethods) {
  hapiErrors(`${method} ${url} is 405 method_not_allowed with Allow: ${allow}`, async () => {
    const server = await testServer();
    const res = await send(server, { method, url });
    assertErrorBody(res, 405, 'method_not_allowed', method);
    assert.is(res.headers.allow, allow);
    assert.is(await server.app.store.count(), 10);
  });
}

hapiErrors('a handler failure is a 500 internal_error that leaks nothing', async () => {
  const server = await testServer();
  server.app.store.get = async () => {
    throw new Error('disk on fire at /secret/path');
  };
  const res = await send(server, { method: 'GET', url: '/v1/pets/1' });
  assertErrorBody(res, 500, 'internal_error');
  assert.not.ok(res.body.message.includes('secret'));
});

hapiErrors('a create whose write fails is a 500, not acknowledged, and the server goes on', async () => {
  const server = await testServer();
  const create = server.app.store.create.bind(server.app.store);
  server.app.store.create = async () => {
    throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
  };
  assertErrorBody(await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'A', categoryId: 1 } }), 500, 'internal_error');
  server.app.store.create = create;
  assert.is((await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'B', categoryId: 1 } })).status, 201);
});

hapiErrors('CORS: a browser may read the rate-limit, pagination and deprecation headers', async () => {
  const server = await testServer({ seedPets: manyPets(30) });
  const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { origin: 'http://localhost:5173' } });
  assert.is(res.headers['access-control-allow-origin'], 'http://localhost:5173');
  const exposed = String(res.headers['access-control-expose-headers']).split(',');
  for (const header of [
    'Link',
    'Location',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'Retry-After',
    'RateLimit',
    'RateLimit-Policy',
    'Deprecation',
    'Sunset',
  ]) {
    assert.ok(exposed.includes(header), header);
  }
});

hapiErrors('CORS off: no CORS headers', async () => {
  const server = await testServer({ cors: false });
  const res = await send(server, { method: 'GET', url: '/v1/pets', headers: { origin: 'http://localhost:5173' } });
  assert.is(res.headers['access-control-allow-origin'], undefined);
});

for (const s of [list, pages, create, get, auth, hapiErrors]) s.run();
