// The server takes what it enforces from the OpenAPI description: change the description and the
// server follows, and what the description shows as examples is exactly what the server sends.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { ManualClock } from './clock.ts';
import { DEFAULT_SPEC_PATH, loadContract } from './contract.ts';
import { ERRORS } from './errors.ts';
import { DatabaseUnavailableError } from './store/database-errors.ts';
import { LAST_ID } from './store/id-space.ts';
import { createServer } from './server.ts';
import { FREE, send, testServer } from './testing/helpers.ts';

const reading = suite('reading the contract');

reading('statuses, bounds, base path, plans and the deprecation come from the description', async () => {
  const contract = await loadContract();
  assert.equal(contract.petStatuses, ['available', 'pending', 'sold']);
  const limit = contract.parameters.listPets.find((p) => p.name === 'limit')!;
  assert.equal({ min: limit.schema.minimum, max: limit.schema.maximum, default: limit.schema.default }, { min: 1, max: 100, default: 20 });
  assert.is(contract.basePath, '/v1');
  assert.is(contract.apiVersion, '1.0.0');
  assert.equal(contract.plans.free, { perMinute: 60, perDay: 1000 });
  assert.is(contract.plans.enterprise, 'custom');
  assert.equal(contract.deprecation, { since: '2025-12-05T00:00:00Z', sunset: '2030-12-05T00:00:00Z', successor: '/pets?status=available' });
});

reading("the Error.code enumeration is the server's registry of codes, in the same order", async () => {
  const contract = await loadContract();
  assert.equal([...contract.errorCodes], Object.keys(ERRORS));
});

reading("the description's prose states the same sunset and plan limits as its x- facts", async () => {
  const doc = parse(readFileSync(DEFAULT_SPEC_PATH, 'utf8'));
  const contract = await loadContract();
  const sunsetDay = contract.deprecation.sunset.slice(0, 10);
  assert.ok(String(doc.paths['/pets/{petId}'].get.description).includes(`(${sunsetDay})`), 'getPet description names the sunset day');
  const prose = String(doc.info.description).replace(/,(?=\d{3})/g, '');
  for (const [plan, limits] of Object.entries(contract.plans)) {
    const name = plan[0]!.toUpperCase() + plan.slice(1);
    if (limits === 'custom') assert.match(prose, new RegExp(`${name} custom`));
    else assert.match(prose, new RegExp(`${name} ${limits.perMinute}[^,]*? ${limits.perDay}`), plan);
  }
});

reading.run();

const follows = suite('a modified copy of the description');

/** A server on a copy of the description, edited by `edit`. */
async function serverOn(edit: (doc: any) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  const doc = parse(readFileSync(DEFAULT_SPEC_PATH, 'utf8'));
  edit(doc);
  const specPath = join(dir, 'openapi.yaml');
  writeFileSync(specPath, stringify(doc));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const server = await createServer({ port: 0, specPath, clock: new ManualClock() });
    return { server, cleanup: async () => (await server.stop(), remove()) };
  } catch (error) {
    remove();
    throw error;
  }
}

follows('tighter and looser bounds on name, categoryId and limit are enforced as written', async () => {
  const { server, cleanup } = await serverOn((doc) => {
    const props = doc.components.schemas.NewPet.properties;
    props.name.maxLength = 10;
    props.categoryId.minimum = -5;
    const limit = doc.paths['/pets'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    limit.schema.maximum = 3;
    limit.schema.default = 2;
  });
  try {
    const long = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'x'.repeat(11), categoryId: 1 } });
    assert.equal(long.body, { code: 'invalid_body', message: '"name" must be at most 10 characters long', status: 400 });
    const negative = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'Neg', categoryId: -5 } });
    assert.is(negative.status, 201);
    const four = await send(server, { method: 'GET', url: '/v1/pets?limit=4' });
    assert.equal(four.body, { code: 'invalid_parameter', message: '"limit" must be less than or equal to 3', status: 400 });
    const byDefault = await send(server, { method: 'GET', url: '/v1/pets' });
    assert.is(byDefault.body.length, 2);
  } finally {
    await cleanup();
  }
});

follows('a status added to PetStatus is accepted, and plan limits and the sunset move with the description', async () => {
  const { server, cleanup } = await serverOn((doc) => {
    doc.components.schemas.PetStatus.enum.push('adopted');
    doc.info['x-rate-limits'].plans.free = { perMinute: 2, perDay: 5 };
    doc.paths['/pets/{petId}'].get['x-deprecation'].sunset = '2020-01-01T00:00:00Z';
    doc.paths['/pets/{petId}'].get['x-deprecation'].since = '2019-01-01T00:00:00Z';
  });
  try {
    const adopted = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'Rex', categoryId: 1, status: 'adopted' } });
    assert.is(adopted.status, 201);
    const first = await send(server, { method: 'GET', url: '/v1/pets?status=adopted', headers: { authorization: FREE } });
    assert.is(first.headers['x-ratelimit-limit'], '2');
    const gone = await send(server, { method: 'GET', url: '/v1/pets/1' });
    assert.is(gone.status, 410);
    assert.is(gone.headers.sunset, 'Wed, 01 Jan 2020 00:00:00 GMT');
  } finally {
    await cleanup();
  }
});

follows('a description the server cannot use stops createServer with the reason', async () => {
  for (const [edit, reason] of [
    [(doc: any) => delete doc.paths['/pets/{petId}'], /operation getPet is not described/],
    [(doc: any) => delete doc.info['x-rate-limits'], /cannot be used: the description has no object at info.x-rate-limits/],
    [(doc: any) => (doc.servers[2].url = 'http://127.0.0.1:3000/v2'), /the servers disagree on the base path/],
  ] as const) {
    try {
      await (await serverOn(edit)).cleanup();
      assert.unreachable(`expected ${reason}`);
    } catch (error) {
      assert.match((error as Error).message, reason);
    }
  }
});

follows.run();

const examples = suite('the examples in the description are what the server sends');

interface Example {
  where: string;
  value: { code: string; message: string; status: number };
}

/** Every Error example of every documented response, by response component and example name. */
function errorExamples(): Example[] {
  const doc = parse(readFileSync(DEFAULT_SPEC_PATH, 'utf8'));
  const found: Example[] = [];
  for (const [name, response] of Object.entries<any>(doc.components.responses)) {
    const media = response.content['application/json'];
    if (media.example) found.push({ where: name, value: media.example });
    for (const [exampleName, ex] of Object.entries<any>(media.examples ?? {})) found.push({ where: `${name}.${exampleName}`, value: ex.value });
  }
  return found;
}

/** Puts a server into the situation each example describes and returns the body it sends. */
const SITUATIONS: Record<string, () => Promise<unknown>> = {
  'InvalidBody.missingName': async () => (await send(await testServer(), { method: 'POST', url: '/v1/pets', payload: { categoryId: 3 } })).body,
  'InvalidBody.malformedJson': async () =>
    (await send(await testServer(), { method: 'POST', url: '/v1/pets', payload: '{"name":', headers: { 'content-type': 'application/json' } })).body,
  InvalidParameter: async () => (await send(await testServer(), { method: 'GET', url: '/v1/pets?limit=101' })).body,
  'Unauthorized.missingKey': async () => (await send(await testServer(), { method: 'GET', url: '/v1/pets', headers: { authorization: undefined } })).body,
  'Unauthorized.invalidKey': async () =>
    (await send(await testServer(), { method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer not-a-known-key' } })).body,
  NotFound: async () => (await send(await testServer(), { method: 'GET', url: '/v1/pets/9999' })).body,
  Gone: async () => {
    const clock = new ManualClock(Date.parse('2031-01-01T00:00:00Z'));
    return (await send(await testServer({ clock }), { method: 'GET', url: '/v1/pets/1' })).body;
  },
  PayloadTooLarge: async () => (await send(await testServer(), { method: 'POST', url: '/v1/pets', payload: { name: 'x'.repeat(20_000), categoryId: 1 } })).body,
  UnsupportedMediaType: async () =>
    (await send(await testServer(), { method: 'POST', url: '/v1/pets', payload: 'name=x', headers: { 'content-type': 'text/plain' } })).body,
  'TooManyRequests.minute': () => refusedAfter(FREE, 60, 18_000),
  'TooManyRequests.day': () => refusedAfter(FREE, 1000, 86_400_000 - 42_000, 60_000),
  'TooManyRequests.keyBanned': () => bannedAfter(FREE, 60),
  'TooManyRequests.address': () => refusedAfter('Bearer unknown-key', 30, 18_000),
  // From the network: this machine (inject's 127.0.0.1) is never blocked.
  'TooManyRequests.addressBlocked': () => bannedAfter('Bearer unknown-key', 30, '203.0.113.30'),
  StorageUnavailable: async () => {
    const server = await testServer();
    server.app.store.list = () => Promise.reject(new DatabaseUnavailableError('postgres://db/pets', 'Connection terminated unexpectedly'));
    const res = await send(server, { method: 'GET', url: '/v1/pets' });
    assert.is(res.headers['retry-after'], '2');
    assert.ok(res.headers['x-ratelimit-remaining'] !== undefined, 'the rate-limit headers are sent with it');
    return res.body;
  },
  IdSpaceExhausted: async () => {
    const server = await testServer({ seedPets: [{ id: LAST_ID, name: 'Last', categoryId: 1, status: 'sold' }] });
    const res = await send(server, { method: 'POST', url: '/v1/pets', payload: { name: 'One too many', categoryId: 1 } });
    assert.is(res.headers['retry-after'], undefined, 'waiting frees no id');
    return res.body;
  },
  UnexpectedError: async () => {
    const server = await testServer();
    server.route({ method: 'GET', path: '/v1/explode', handler: () => Promise.reject(new Error('secret internals')) });
    return (await send(server, { method: 'GET', url: '/v1/explode' })).body;
  },
};

/**
 * The first refusal after `count` requests with `authorization`, sent so that the refusal comes
 * 42 s before the window ends: at `at` ms after the first request (spread evenly, each window
 * advancing `stepMs` between batches when given).
 */
async function refusedAfter(authorization: string, count: number, at: number, stepMs = 0): Promise<unknown> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const server = await testServer({ clock });
  for (let i = 0; i < count; i++) {
    await send(server, { method: 'GET', url: '/v1/pets?limit=1', headers: { authorization } });
    if (stepMs && (i + 1) % 50 === 0) clock.advance(stepMs);
  }
  clock.set(Date.UTC(2026, 0, 1) + at);
  const refused = await send(server, { method: 'GET', url: '/v1/pets?limit=1', headers: { authorization } });
  assert.is(refused.status, 429);
  assert.is(refused.headers['retry-after'], '42');
  assert.is(refused.headers['x-ratelimit-remaining'], '0');
  return refused.body;
}

/** The refusal that starts a ban, moved so that the ban has 42 s left. */
async function bannedAfter(authorization: string, count: number, remoteAddress?: string): Promise<unknown> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const server = await testServer({ clock, rateLimit: { ban: { durationSeconds: 42 }, ip: { ban: { durationSeconds: 42 } } } });
  const request = { method: 'GET', url: '/v1/pets?limit=1', headers: { authorization }, ...(remoteAddress ? { remoteAddress } : {}) };
  for (let i = 0; i < count + 20; i++) await send(server, request);
  const banned = await send(server, request);
  assert.is(banned.headers['retry-after'], '42');
  return banned.body;
}

examples('every Error example has a situation in this test', () => {
  assert.equal(
    errorExamples()
      .map((e) => e.where)
      .sort(),
    Object.keys(SITUATIONS).sort(),
  );
});

for (const example of errorExamples()) {
  examples(`${example.where}: ${example.value.code}`, async () => {
    const situation = SITUATIONS[example.where];
    assert.ok(situation, `no situation for ${example.where}`);
    assert.equal(await situation(), example.value);
  });
}

examples('the 429 header examples are what a refused Free key is sent: Remaining 0, Retry-After 42', async () => {
  const doc = parse(readFileSync(DEFAULT_SPEC_PATH, 'utf8'));
  const headers = doc.components.headers;
  // The minute example's refusal, at the moment the spec's X-RateLimit-Reset example names.
  const reset = Number(headers['X-RateLimit-Reset'].example);
  const clock = new ManualClock(reset * 1000 - 60_000);
  const server = await testServer({ clock });
  for (let i = 0; i < 60; i++) await send(server, { method: 'GET', url: '/v1/pets?limit=1', headers: { authorization: FREE } });
  clock.advance(18_000);
  const refused = await send(server, { method: 'GET', url: '/v1/pets?limit=1', headers: { authorization: FREE } });
  assert.is(refused.headers['retry-after'], String(headers['Retry-After'].example));
  assert.is(refused.headers['x-ratelimit-remaining'], String(headers['X-RateLimit-Remaining-Exhausted'].example));
  assert.is(refused.headers['x-ratelimit-limit'], String(headers['X-RateLimit-Limit'].example));
  assert.is(refused.headers['x-ratelimit-reset'], String(reset));
});

examples.run();
