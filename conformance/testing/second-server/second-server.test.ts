// The second implementation, driven over real sockets on a manual clock: every specified behaviour
// and every choice of choices.ts. Each test starts its own server, so that no rate-limit window or
// stored pet leaks from one into another.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../../server/clock.ts';
import { startTarget } from '../faults/harness.ts';
import type { ProxyResponse } from '../faults/proxy.ts';
import { PLAN_LIMITS } from '../../../spec/rules/contract.js';
import { parseHttpDate, parseInteger } from '../../../spec/rules/fields.js';
import { linkWithRel, parseLinks } from '../../../spec/rules/link.js';
import { parseRateLimit, parseRateLimitPolicy, type RateLimitPolicy, type RateLimitState } from '../../../spec/rules/structured-fields.js';
import {
  ADDRESS_LIMIT_PER_MINUTE,
  BODY_LIMIT_BYTES,
  SECOND_SERVER_CHOICES,
  startSecondServer,
  type SecondServer,
  type SecondServerOptions,
  type SeedPet,
} from './index.ts';

interface Running {
  server: SecondServer;
  clock: ManualClock;
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

interface Call {
  method?: string;
  /** The bearer key; null sends no Authorization. Default: the pro key. */
  key?: string | null;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Shorthand for a JSON body with Content-Type: application/json. */
  json?: unknown;
}

// A second after the window opened, not on a minute boundary: windows here are not clock-aligned.
const START_MS = Date.UTC(2026, 0, 1, 0, 0, 12, 345);

async function start(options: SecondServerOptions = {}): Promise<Running> {
  const clock = new ManualClock(START_MS);
  return { server: await startSecondServer({ clock, ...options }), clock };
}

async function withServer(options: SecondServerOptions, run: (r: Running) => Promise<void>): Promise<void> {
  const running = await start(options);
  try {
    await run(running);
  } finally {
    await running.server.close();
  }
}

const pets = (n: number, status: SeedPet['status'] = 'available'): SeedPet[] =>
  Array.from({ length: n }, (_, i) => ({ name: `Pet ${i + 1}`, categoryId: 1 + (i % 3), status }));

interface Ietf {
  policies: RateLimitPolicy[];
  states: RateLimitState[];
}

/**
 * RateLimit-Policy and RateLimit parsed back, held to what every answer of the API must show: the
 * same windows in the same order, each with at most its quota left and a reset ahead, the
 * X-RateLimit-Limit among the quotas, and one window with r = X-RateLimit-Remaining whose t from
 * `nowMs` (the server's clock) ends within the second before or after X-RateLimit-Reset, both being
 * the same instant rounded up.
 */
function ietfFields(get: (name: string) => string | null | undefined, nowMs: number, context: string): Ietf {
  const policies = parseRateLimitPolicy(get('ratelimit-policy'));
  const states = parseRateLimit(get('ratelimit'));
  assert.ok(policies && policies.length > 0, `${context}: RateLimit-Policy ${get('ratelimit-policy')}`);
  assert.ok(states, `${context}: RateLimit ${get('ratelimit')}`);
  assert.equal(
    states.map((st) => st.name),
    policies.map((p) => p.name),
    `${context}: the same windows in both fields`,
  );
  states.forEach((st, i) => {
    assert.ok(st.remaining <= policies[i]!.quota, `${context}: ${st.name} r=${st.remaining} over its quota`);
    assert.ok(st.reset !== undefined && st.reset >= 1, `${context}: ${st.name} t=${st.reset}`);
  });
  const limit = Number(get('x-ratelimit-limit'));
  const remaining = Number(get('x-ratelimit-remaining'));
  const reset = Number(get('x-ratelimit-reset'));
  assert.ok(
    policies.some((p) => p.quota === limit),
    `${context}: no policy has q=${limit} as X-RateLimit-Limit says`,
  );
  assert.ok(
    states.some((st) => st.remaining === remaining && Math.abs(nowMs / 1000 + st.reset! - reset) < 1),
    `${context}: no RateLimit item has r=${remaining} and t=${reset - nowMs / 1000} (±1) as X-RateLimit-* say: ${get('ratelimit')}`,
  );
  return { policies, states };
}

/** The IETF fields of a reply `call` has already checked. */
const ietf = (reply: Reply): Ietf => ({
  policies: parseRateLimitPolicy(reply.headers.get('ratelimit-policy'))!,
  states: parseRateLimit(reply.headers.get('ratelimit'))!,
});

/** Seconds from the clock's now until `endMs`, rounded up: the `t` RateLimit must name for a window ending then. */
const until = (r: Running, endMs: number) => Math.ceil((endMs - r.clock.now()) / 1000);

/** Sends one request; every answer of the API must carry X-RateLimit-* as integers, and the IETF fields agreeing with them. */
async function call({ server, clock }: Running, path: string, options: Call = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? server.keys.pro : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const url = /^https?:/.test(path) ? path : `${server.baseUrl}${path}`;
  const res = await fetch(url, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : new Uint8Array(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    assert.ok(parseInteger(res.headers.get(name)) !== null, `${res.status} to ${path} has ${name} ${res.headers.get(name)}`);
  }
  ietfFields((name) => res.headers.get(name), clock.now(), `${res.status} to ${path}`);
  return { status: res.status, headers: res.headers, text, body: parsed };
}

const rate = (reply: Reply) => ({
  limit: Number(reply.headers.get('x-ratelimit-limit')),
  remaining: Number(reply.headers.get('x-ratelimit-remaining')),
  reset: Number(reply.headers.get('x-ratelimit-reset')),
});

function assertError(reply: Reply, status: number, code: string, context = ''): void {
  assert.is(reply.status, status, `${context}: ${reply.text}`);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/json\b/, context);
  assert.equal(Object.keys(reply.body ?? {}).sort(), ['code', 'message', 'status'], `${context}: ${reply.text}`);
  assert.is(reply.body.code, code, context);
  assert.is(reply.body.status, status, context);
  assert.ok(typeof reply.body.message === 'string' && reply.body.message.length > 0, context);
}

function assertPet(value: unknown): void {
  assert.ok(value !== null && typeof value === 'object', JSON.stringify(value));
  assert.equal(Object.keys(value as object).sort(), ['categoryId', 'id', 'name', 'status'], JSON.stringify(value));
}

const ids = (reply: Reply) => (reply.body as Array<{ id: number }>).map((p) => p.id);

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `chunks` on a fresh connection and reads until the server closes it. */
function exchange(server: SecondServer, chunks: Array<string | Buffer>, limitMs = 3000): Promise<Raw> {
  const { hostname, port } = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => chunks.forEach((c) => socket.write(c)));
    const parts: Buffer[] = [];
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', reject);
    const timer = setTimeout(() => socket.destroy(new Error(`still open after ${limitMs} ms: ${Buffer.concat(parts).toString().slice(0, 200)}`)), limitMs);
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      if (hadError) return;
      const text = Buffer.concat(parts).toString('utf8');
      const cut = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, cut).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(cut + 4) });
    });
  });
}

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
const limits = suite('rate limits: a window from the first request, 429 with an HTTP-date, then a ban');

limits('the window starts at the key’s first request: Reset is 60 s after it, rounded up, and it reopens exactly then', async () => {
  await withServer({}, async (r) => {
    const key = r.server.keys.free;
    r.clock.advance(1_500);
    const opened = r.clock.now();
    const reset = Math.ceil((opened + 60_000) / 1000);
    assert.equal(rate(await call(r, '/pets', { key })), { limit: 60, remaining: 59, reset });
    r.clock.advance(30_000);
    assert.equal(rate(await call(r, '/pets/1', { key })), { limit: 60, remaining: 58, reset });
    r.clock.set(opened + 59_999);
    assert.equal(rate(await call(r, '/pets', { key })), { limit: 60, remaining: 57, reset });
    r.clock.set(opened + 60_000);
    assert.equal(rate(await call(r, '/pets', { key })), { limit: 60, remaining: 59, reset: Math.ceil((opened + 120_000) / 1000) });
    assert.equal(
      rate(await call(r, '/pets', { key: r.server.keys.pro })),
      { limit: 300, remaining: 299, reset: Math.ceil((opened + 120_000) / 1000) },
      'each key has its own',
    );
  });
});

limits(
  'the 61st request of a free key in a minute is 429 with Remaining 0, no-store and a Retry-After HTTP-date that is Reset; waiting it out is admitted',
  async () => {
    await withServer({}, async (r) => {
      const key = r.server.keys.free;
      for (let i = 1; i <= 60; i++) assert.is((await call(r, '/pets', { key })).status, 200, `request ${i}`);
      const refused = await call(r, '/pets', { key });
      assertError(refused, 429, 'RATE_LIMITED', 'the 61st');
      assert.equal(rate(refused), { limit: 60, remaining: 0, reset: Math.ceil((START_MS + 60_000) / 1000) });
      const retryAfter = refused.headers.get('retry-after') ?? '';
      assert.match(retryAfter, /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
      assert.is(parseHttpDate(retryAfter, START_MS), rate(refused).reset * 1000);
      assert.is(refused.headers.get('cache-control'), 'no-store');
      r.clock.set(rate(refused).reset * 1000);
      const again = await call(r, '/pets', { key });
      assert.is(again.status, 200);
      assert.is(rate(again).remaining, 59);
    });
  },
);

limits('after banAfter refused requests in one window the key is banned: 403 until exactly the Retry-After, then admitted', async () => {
  for (const { banAfter, banSeconds } of [
    { banAfter: undefined, banSeconds: undefined },
    { banAfter: 2, banSeconds: 90 },
  ]) {
    const options: SecondServerOptions = {};
    if (banAfter !== undefined) options.banAfter = banAfter;
    if (banSeconds !== undefined) options.banSeconds = banSeconds;
    await withServer(options, async (r) => {
      const refusals = banAfter ?? 5;
      const key = r.server.keys.free;
      const windowEnd = rate(await call(r, '/pets', { key })).reset * 1000;
      for (let i = 2; i <= 60; i++) await call(r, '/pets', { key });
      r.clock.advance(10_000);
      for (let i = 1; i <= refusals; i++) assertError(await call(r, '/pets', { key }), 429, 'RATE_LIMITED', `refusal ${i}`);
      const bannedAt = r.clock.now();
      // Never before the window it punishes ends: the Reset it announced stays true.
      const end = Math.max(Math.ceil((bannedAt + (banSeconds ?? 30) * 1000) / 1000) * 1000, windowEnd);
      r.clock.advance(1);
      const banned = await call(r, '/pets', { key });
      assertError(banned, 403, 'FORBIDDEN_BANNED', 'after the refusals');
      assert.equal(rate(banned), { limit: 60, remaining: 0, reset: end / 1000 });
      assert.is(parseHttpDate(banned.headers.get('retry-after'), bannedAt), end);
      r.clock.set(end - 1);
      assertError(await call(r, '/pets/1', { key }), 403, 'FORBIDDEN_BANNED', 'just before the end');
      assert.is((await call(r, '/pets', { key: r.server.keys.pro })).status, 200, 'other keys are not banned');
      r.clock.set(end);
      const admitted = await call(r, '/pets', { key });
      assert.is(admitted.status, 200, 'the ban lifts when Retry-After said');
      assert.equal(rate(admitted), { limit: 60, remaining: 59, reset: Math.ceil((end + 60_000) / 1000) });
    });
  }
});

limits('fewer than banAfter refusals in a window do not ban: the count starts again with the next window', async () => {
  await withServer({ banAfter: 3 }, async (r) => {
    const key = r.server.keys.free;
    for (let round = 0; round < 2; round++) {
      for (let i = 1; i <= 60; i++) await call(r, '/pets', { key });
      for (let i = 1; i <= 2; i++) assert.is((await call(r, '/pets', { key })).status, 429);
      r.clock.advance(60_000);
    }
    assert.is((await call(r, '/pets', { key })).status, 200);
  });
});

limits('the day limit applies in a 24 h window from the first request; Limit, Remaining and Reset then describe it', async () => {
  await withServer({}, async (r) => {
    const key = r.server.keys.free;
    const dayReset = Math.ceil((START_MS + 86_400_000) / 1000);
    let last: Reply | undefined;
    for (let minute = 0; minute < 20; minute++) {
      for (let i = 0; i < 50; i++) {
        last = await call(r, '/pets', { key });
        assert.is(last.status, 200);
      }
      if (minute === 18)
        assert.equal(rate(last!), { limit: 60, remaining: 10, reset: Math.ceil((START_MS + 18 * 61_000 + 60_000) / 1000) }, 'the minute is nearer');
      if (minute < 19) r.clock.advance(61_000);
    }
    assert.equal(rate(last!), { limit: 1000, remaining: 0, reset: dayReset }, 'the day is nearer');
    r.clock.advance(61_000);
    const refused = await call(r, '/pets', { key });
    assertError(refused, 429, 'RATE_LIMITED', 'the 1001st of the day');
    assert.equal(rate(refused), { limit: 1000, remaining: 0, reset: dayReset });
    assert.is(parseHttpDate(refused.headers.get('retry-after'), START_MS), dayReset * 1000);
    assert.equal(ietf(refused).states[1], { name: 'day', remaining: 0, reset: until(r, START_MS + 86_400_000) }, 'RateLimit: the day is spent until it ends');
    assert.is(ietf(refused).states[0]!.name, 'minute');
    for (let i = 2; i <= 5; i++) await call(r, '/pets', { key });
    const banned = await call(r, '/pets', { key });
    assertError(banned, 403, 'FORBIDDEN_BANNED', 'banned while the day is spent');
    assert.is(rate(banned).reset, dayReset, 'the ban lasts until the day window ends');
    assert.equal(ietf(banned).states, [
      { name: 'minute', remaining: 0, reset: until(r, dayReset * 1000) },
      { name: 'day', remaining: 0, reset: until(r, dayReset * 1000) },
    ]);
    r.clock.set(dayReset * 1000);
    assert.is((await call(r, '/pets', { key })).status, 200);
  });
});

limits.run();

// ---------------------------------------------------------------------------------------------
const fields = suite('IETF RateLimit-Policy and RateLimit: the windows really applied, agreeing with X-RateLimit-*');

fields('an admitted request: the plan’s minute and day policies, and r and t of each window as it stands', async () => {
  await withServer({}, async (r) => {
    r.clock.advance(1_500);
    const opened = r.clock.now();
    for (const plan of ['free', 'pro', 'business'] as const) {
      const reply = await call(r, '/pets', { key: r.server.keys[plan] });
      assert.is(reply.status, 200);
      const { perMinute, perDay } = PLAN_LIMITS[plan];
      assert.is(reply.headers.get('ratelimit-policy'), `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`, plan);
      assert.is(reply.headers.get('ratelimit'), `"minute";r=${perMinute - 1};t=60, "day";r=${perDay - 1};t=86400`, plan);
      assert.equal(rate(reply), { limit: perMinute, remaining: perMinute - 1, reset: Math.ceil((opened + 60_000) / 1000) }, plan);
    }
    const key = r.server.keys.free;
    r.clock.advance(20_250);
    const later = await call(r, '/pets/1', { key });
    assert.equal(ietf(later).policies, [
      { name: 'minute', quota: 60, window: 60 },
      { name: 'day', quota: 1000, window: 86400 },
    ]);
    assert.equal(ietf(later).states, [
      { name: 'minute', remaining: 58, reset: until(r, opened + 60_000) },
      { name: 'day', remaining: 998, reset: until(r, opened + 86_400_000) },
    ]);
    assert.equal(
      ietf(later).states.map((st) => st.reset),
      [40, 86380],
      't counts down with the clock, rounded up',
    );
    assert.is(rate(later).remaining, 58);
  });
});

fields('a 429: the spent minute has r=0 and t until it ends, when Retry-After lets in again; the day still says what it has left', async () => {
  await withServer({}, async (r) => {
    const key = r.server.keys.free;
    for (let i = 1; i <= 60; i++) await call(r, '/pets', { key });
    r.clock.advance(12_700);
    const refused = await call(r, '/pets', { key });
    assertError(refused, 429, 'RATE_LIMITED', 'the 61st');
    assert.equal(rate(refused), { limit: 60, remaining: 0, reset: Math.ceil((START_MS + 60_000) / 1000) });
    const { policies, states } = ietf(refused);
    assert.equal(policies, [
      { name: 'minute', quota: 60, window: 60 },
      { name: 'day', quota: 1000, window: 86400 },
    ]);
    assert.equal(states, [
      { name: 'minute', remaining: 0, reset: until(r, START_MS + 60_000) },
      { name: 'day', remaining: 940, reset: until(r, START_MS + 86_400_000) },
    ]);
    assert.is(states[0]!.reset, 48);
    const retryAt = parseHttpDate(refused.headers.get('retry-after'), START_MS)!;
    assert.ok(
      retryAt - 1000 < r.clock.now() + states[0]!.reset! * 1000 && r.clock.now() + states[0]!.reset! * 1000 <= retryAt + 1000,
      't and Retry-After name the same end',
    );
  });
});

fields('a 403 ban: every window has r=0 until the ban ends', async () => {
  await withServer({ banAfter: 2, banSeconds: 90 }, async (r) => {
    const key = r.server.keys.free;
    for (let i = 1; i <= 62; i++) await call(r, '/pets', { key });
    r.clock.advance(5_000);
    const banned = await call(r, '/pets', { key });
    assertError(banned, 403, 'FORBIDDEN_BANNED', 'banned');
    const endMs = rate(banned).reset * 1000;
    assert.equal(ietf(banned).policies, [
      { name: 'minute', quota: 60, window: 60 },
      { name: 'day', quota: 1000, window: 86400 },
    ]);
    assert.equal(ietf(banned).states, [
      { name: 'minute', remaining: 0, reset: until(r, endMs) },
      { name: 'day', remaining: 0, reset: until(r, endMs) },
    ]);
    assert.is(ietf(banned).states[0]!.reset, 86, 'the 90 s ban ends on a whole second: 85.655 s left, rounded up');
  });
});

fields('without a valid key (401, and a 429 beyond the address limit): only the address’s minute window', async () => {
  await withServer({}, async (r) => {
    const endMs = START_MS + 60_000;
    const first = await call(r, '/pets', { key: null });
    assertError(first, 401, 'UNAUTHORIZED', 'no key');
    assert.is(first.headers.get('ratelimit-policy'), `"address-minute";q=${ADDRESS_LIMIT_PER_MINUTE};w=60`);
    assert.is(first.headers.get('ratelimit'), `"address-minute";r=${ADDRESS_LIMIT_PER_MINUTE - 1};t=60`);
    r.clock.advance(30_000);
    const wrong = await call(r, '/pets', { key: 'wrong' });
    assertError(wrong, 401, 'UNAUTHORIZED', 'an unknown key');
    assert.equal(ietf(wrong).states, [{ name: 'address-minute', remaining: ADDRESS_LIMIT_PER_MINUTE - 2, reset: 30 }]);
    assert.is(rate(wrong).remaining, ADDRESS_LIMIT_PER_MINUTE - 2);
    for (let i = 3; i <= ADDRESS_LIMIT_PER_MINUTE; i++) await call(r, '/pets', { key: null });
    r.clock.advance(10_500);
    const refused = await call(r, '/pets', { key: null });
    assertError(refused, 429, 'RATE_LIMITED', 'over the address limit');
    assert.equal(ietf(refused).policies, [{ name: 'address-minute', quota: ADDRESS_LIMIT_PER_MINUTE, window: 60 }]);
    assert.equal(ietf(refused).states, [{ name: 'address-minute', remaining: 0, reset: until(r, endMs) }]);
    assert.is(ietf(refused).states[0]!.reset, 20);
  });
});

fields.run();

// ---------------------------------------------------------------------------------------------
const sliding = suite("window: 'sliding': each admission holds one of the minute's slots for exactly 60 s");

/** A whole second after START_MS, so that Reset and Retry-After name the slots' own moments. */
const SLIDE_MS = Date.UTC(2026, 0, 1, 0, 0, 13);

type Step = [atMs: number, status: 200 | 429, remaining: number, resetSecond: number];

/** Free key, Limit 60: a saturation, then the slots freeing one at a time; times and Reset from SLIDE_MS. */
const SATURATION: readonly Step[] = [
  ...Array.from({ length: 60 }, (_, i): Step => [i * 1000, 200, 59 - i, 60]),
  [59_500, 429, 0, 60],
  [59_700, 429, 0, 60],
  [59_800, 429, 0, 60],
  [59_999, 429, 0, 60],
  // The slot of t=0 frees: exactly one more, and the next slot to free is t=1's.
  [60_000, 200, 0, 61],
  [60_000, 429, 0, 61],
  [60_500, 429, 0, 61],
  [60_800, 429, 0, 61],
  [60_999, 429, 0, 61],
  [61_000, 200, 0, 62],
  // Held at t=90: t=31..59 and 60, 61.
  [90_000, 200, 28, 91],
  // Held at t=120: 61, 90.
  [120_000, 200, 57, 121],
];

sliding('Remaining, Reset, Retry-After and RateLimit over a saturation and the freeing of single slots; 4 refusals between admissions never ban', async () => {
  await withServer({ window: 'sliding' }, async (r) => {
    const key = r.server.keys.free;
    let admitted = 0;
    for (const [at, status, remaining, resetSecond] of SATURATION) {
      r.clock.set(SLIDE_MS + at);
      const reply = await call(r, '/pets', { key });
      const context = `t=${at / 1000}`;
      const resetMs = SLIDE_MS + resetSecond * 1000;
      if (status === 200) {
        assert.is(reply.status, 200, `${context}: ${reply.text}`);
        admitted++;
      } else {
        assertError(reply, 429, 'RATE_LIMITED', context);
        assert.is(parseHttpDate(reply.headers.get('retry-after'), r.clock.now()), resetMs, `${context}: Retry-After names the moment the next slot frees`);
      }
      assert.equal(rate(reply), { limit: 60, remaining, reset: resetMs / 1000 }, context);
      assert.equal(
        ietf(reply).states,
        [
          { name: 'minute', remaining, reset: until(r, resetMs) },
          { name: 'day', remaining: 1000 - admitted, reset: until(r, SLIDE_MS + 86_400_000) },
        ],
        context,
      );
    }
  });
});

sliding('a ban after banAfter 429s ends no earlier than the Reset announced; after it the slots still held count', async () => {
  const CASES = [
    // 60 one a second, banned at t=59.5 for 30 s: at t=90 the slots of t=31..59 are still held.
    { what: 'spread', banSeconds: 30, admittedAt: (i: number) => i * 1000, refusedAt: 59_500, endSecond: 90, after: { remaining: 30, reset: 91 } },
    // 60 at once, banned at t=1 for 1 s: the ban lasts until Reset (t=60) announced, when all free.
    { what: 'burst', banSeconds: 1, admittedAt: () => 0, refusedAt: 1_000, endSecond: 60, after: { remaining: 59, reset: 120 } },
  ];
  for (const { what, banSeconds, admittedAt, refusedAt, endSecond, after } of CASES) {
    await withServer({ window: 'sliding', banAfter: 2, banSeconds }, async (r) => {
      const key = r.server.keys.free;
      for (let i = 0; i < 60; i++) {
        r.clock.set(SLIDE_MS + admittedAt(i));
        assert.is((await call(r, '/pets', { key })).status, 200, `${what}: request ${i + 1}`);
      }
      r.clock.set(SLIDE_MS + refusedAt);
      for (let i = 1; i <= 2; i++) assertError(await call(r, '/pets', { key }), 429, 'RATE_LIMITED', `${what}: refusal ${i}`);
      const endMs = SLIDE_MS + endSecond * 1000;
      for (const at of [refusedAt + 1, endSecond * 1000 - 1]) {
        r.clock.set(SLIDE_MS + at);
        const banned = await call(r, '/pets', { key });
        assertError(banned, 403, 'FORBIDDEN_BANNED', `${what}: t=${at / 1000}`);
        assert.equal(rate(banned), { limit: 60, remaining: 0, reset: endMs / 1000 }, what);
        assert.is(parseHttpDate(banned.headers.get('retry-after'), r.clock.now()), endMs, what);
      }
      r.clock.set(endMs);
      const admitted = await call(r, '/pets', { key });
      assert.is(admitted.status, 200, `${what}: the ban lifts when Retry-After said`);
      assert.equal(rate(admitted), { limit: 60, ...after, reset: (SLIDE_MS + after.reset * 1000) / 1000 }, what);
    });
  }
});

sliding("window: 'fixed' (the default) is unchanged: the whole minute frees at once, 60 s after the key's first request", async () => {
  for (const options of [{}, { window: 'fixed' }] as const) {
    await withServer(options, async (r) => {
      const key = r.server.keys.free;
      const context = JSON.stringify(options);
      for (let i = 0; i < 60; i++) {
        r.clock.set(SLIDE_MS + i * 1000);
        assert.equal(rate(await call(r, '/pets', { key })), { limit: 60, remaining: 59 - i, reset: SLIDE_MS / 1000 + 60 }, `${context}: ${i}`);
      }
      r.clock.set(SLIDE_MS + 59_500);
      const refused = await call(r, '/pets', { key });
      assertError(refused, 429, 'RATE_LIMITED', context);
      assert.is(parseHttpDate(refused.headers.get('retry-after'), r.clock.now()), SLIDE_MS + 60_000, context);
      r.clock.set(SLIDE_MS + 60_000);
      const reopened = await call(r, '/pets', { key });
      assert.equal(rate(reopened), { limit: 60, remaining: 59, reset: SLIDE_MS / 1000 + 120 }, context);
      assert.equal(ietf(reopened).states[0], { name: 'minute', remaining: 59, reset: 60 }, context);
    });
  }
});

sliding.run();

// ---------------------------------------------------------------------------------------------
const racy = suite('race: the read-then-write gaps of a store read and written a few ms apart (test builds, faults on purpose)');

/** Opens `n` keep-alive connections first, so that the `n` requests of a burst reach the server together. */
async function warm(r: Running, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, () => call(r, '/pets?limit=1', { key: r.server.keys.business })));
}

const LIMITER_BUILDS: Array<[options: SecondServerOptions, racy: boolean]> = [
  [{}, false],
  [{ window: 'sliding' }, false],
  [{ race: { limiter: true } }, true],
  [{ race: { limiter: true }, window: 'sliding' }, true],
];

racy('race.limiter: alone it counts like the correct build; 20 at once with Remaining 5 repeat Remaining and are over-admitted', async () => {
  for (const [options, isRacy] of LIMITER_BUILDS) {
    await withServer({ ...options, banAfter: 100 }, async (r) => {
      const context = JSON.stringify(options);
      const key = r.server.keys.free;
      await warm(r, 20);
      for (let i = 1; i <= 55; i++) assert.is(rate(await call(r, '/pets', { key })).remaining, 60 - i, `${context}: sequential ${i}`);
      const burst = await Promise.all(Array.from({ length: 20 }, () => call(r, '/pets', { key })));
      const admitted = burst.filter((reply) => reply.status === 200).map((reply) => rate(reply).remaining);
      assert.ok(
        burst.every((reply) => reply.status === 200 || reply.status === 429),
        context,
      );
      if (isRacy) {
        assert.ok(admitted.length > 5, `${context}: ${admitted.length} admitted, no more than the announced Remaining 5`);
        assert.ok(new Set(admitted).size < admitted.length, `${context}: Remaining never repeated: ${admitted.join(', ')}`);
      } else {
        assert.equal(
          admitted.sort((a, b) => a - b),
          [0, 1, 2, 3, 4],
          context,
        );
      }
    });
  }
});

racy('race.ids: alone creates get increasing ids; overlapping creates share an id and the last one wins', async () => {
  for (const [options, isRacy] of [
    [{}, false],
    [{ race: { ids: true } }, true],
  ] as const) {
    await withServer({ ...options, empty: true }, async (r) => {
      const context = JSON.stringify(options);
      await warm(r, 5);
      for (const id of [1, 2]) assert.is((await call(r, '/pets', { json: { name: `Alone ${id}`, categoryId: 1 } })).body.id, id, context);
      const names = ['Ash', 'Birch', 'Cedar', 'Damson', 'Elder'];
      const created = await Promise.all(names.map((name) => call(r, '/pets', { json: { name, categoryId: 1 } })));
      assert.ok(
        created.every((reply) => reply.status === 201),
        context,
      );
      const createdIds = created.map((reply) => reply.body.id as number);
      const listed = (await call(r, '/pets?limit=100')).body as Array<{ id: number; name: string }>;
      const listedNames = new Set(listed.map((p) => p.name));
      if (!isRacy) {
        assert.equal(
          [...createdIds].sort((a, b) => a - b),
          [3, 4, 5, 6, 7],
          context,
        );
        assert.ok(
          names.every((name) => listedNames.has(name)),
          context,
        );
        return;
      }
      const shared = createdIds.find((id, i) => createdIds.indexOf(id) !== i);
      assert.ok(shared !== undefined, `${context}: no id was given twice: ${createdIds.join(', ')}`);
      const lost = names.filter((name) => !listedNames.has(name));
      assert.ok(lost.length > 0, `${context}: every name is still listed`);
      const sharers = names.filter((_, i) => createdIds[i] === shared);
      const fetched = await call(r, `/pets/${shared}`);
      assert.ok(sharers.includes(fetched.body.name), context);
      assert.is(sharers.filter((name) => listedNames.has(name)).length, 1, `${context}: one of ${sharers.join(', ')} is stored under ${shared}`);
      assert.is(new Set(listed.map((p) => p.id)).size, listed.length, `${context}: the list holds each id once`);
    });
  }
});

racy("the fault harness starts a fault's secondBuild on the second implementation, with no proxy; the reference keeps the proxy", async () => {
  const fault = { secondBuild: { race: { ids: true } }, response: (res: ProxyResponse) => ({ ...res, status: 418 }) };
  const second = await startTarget(fault, 'second');
  try {
    const headers = { authorization: `Bearer ${second.apiKey}`, 'content-type': 'application/json' };
    const created = await Promise.all(
      ['Ash', 'Birch'].map((name) => fetch(`${second.baseUrl}/pets`, { method: 'POST', headers, body: JSON.stringify({ name, categoryId: 1 }) })),
    );
    assert.equal(
      created.map((res) => res.status),
      [201, 201],
      'no proxy in front',
    );
    const [a, b] = await Promise.all(created.map(async (res) => ((await res.json()) as { id: number }).id));
    assert.is(a, b, 'the racy build itself');
  } finally {
    await second.stop();
  }
  const reference = await startTarget(fault);
  try {
    assert.is((await fetch(`${reference.baseUrl}/pets`, { headers: { authorization: `Bearer ${reference.apiKey}` } })).status, 418, 'proxied');
  } finally {
    await reference.stop();
  }
});

racy.run();

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
