// The mock agrees with the reference server: the same paths (/v1 too), the same error codes, and
// rate-limit headers a client can act on.
import { createServer } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { DEFAULT_SPEC_PATH } from '../lib/openapi.ts';
import { freePort } from '../lib/processes.ts';
import { mockDescription, PortInUseError, startMock, type RunningMock } from './mock.ts';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';

const derived = suite('the description Prism reads');

derived('every path is served below the base path too, and Reset is a day after the start: in the future for a day of answers', () => {
  const source = parse(readFileSync(DEFAULT_SPEC_PATH, 'utf8'));
  const doc = mockDescription(source, Date.UTC(2030, 0, 1)) as any;
  assert.equal(Object.keys(doc.paths).sort(), ['/pets', '/pets/{petId}', '/v1/pets', '/v1/pets/{petId}']);
  assert.is(doc.paths['/v1/pets'], doc.paths['/pets']);
  assert.is(doc.components.headers['X-RateLimit-Reset'].example, Date.UTC(2030, 0, 1) / 1000 + 86_400);
  assert.is(source.components.headers['X-RateLimit-Reset'].example, 1794355260, 'the source is not changed');
  assert.is(doc.paths['/pets/{petId}'].get.deprecated, undefined, "Prism's own Deprecation: true is not wanted");
  assert.is(source.paths['/pets/{petId}'].get.deprecated, true);
});

derived.run();

const live = suite('the running mock');
let mock: RunningMock;

live.before(async () => {
  mock = await startMock({ port: 0, quiet: true, startTimeoutMs: START_BOUND_MS });
});
live.after(async () => {
  await mock?.stop();
});

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers: { authorization: 'Bearer any-key', ...headers } });

live('answers /v1/pets and /pets alike', async () => {
  for (const url of [`${mock.baseUrl}/pets`, `${mock.url}/pets`]) {
    const res = await get(url);
    assert.is(res.status, 200, url);
    assert.ok(Array.isArray(await res.json()));
  }
});

live("its error bodies carry the server's codes", async () => {
  const missing = await fetch(`${mock.baseUrl}/pets`);
  assert.is(missing.status, 401);
  assert.is(((await missing.json()) as { code: string }).code, 'missing_api_key');
  const notFound = await get(`${mock.baseUrl}/pets/9999`, { prefer: 'code=404' });
  assert.equal(await notFound.json(), { code: 'pet_not_found', message: 'Pet 9999 was not found.', status: 404 });
});

live('its 429 says Remaining 0, a Retry-After and a Reset in the future', async () => {
  const res = await get(`${mock.baseUrl}/pets`, { prefer: 'code=429' });
  assert.is(res.status, 429);
  assert.is(res.headers.get('x-ratelimit-remaining'), '0');
  assert.is(res.headers.get('retry-after'), '42');
  assert.ok(Number(res.headers.get('x-ratelimit-reset')) > Date.now() / 1000);
  assert.is(((await res.json()) as { code: string }).code, 'rate_limited_minute');
});

live("a 503 asked for is the server's injected fault, and getPet's Deprecation the server's form", async () => {
  const { createServer } = await import('../server/index.ts');
  const server = await createServer({ port: 0, logger: false, faults: true });
  try {
    const key = { authorization: 'Bearer test-free-key' };
    // The mock cannot know pet 9999 is missing: it is told to answer 404, as conform --prefer tells it.
    for (const [path, headers, mockOnly] of [
      ['/pets', { ...key, prefer: 'code=503' }, {}],
      ['/pets/1', key, {}],
      ['/pets/9999', key, { prefer: 'code=404' }],
    ] as const) {
      const real = await server.inject({ url: `/v1${path}`, headers });
      const mocked = await get(`${mock.baseUrl}${path}`, { ...headers, ...mockOnly });
      assert.is(mocked.status, real.statusCode, path);
      if (real.statusCode === 503) {
        assert.equal(await mocked.json(), JSON.parse(real.payload));
        assert.is(mocked.headers.get('retry-after'), real.headers['retry-after']);
      } else {
        assert.is(mocked.headers.get('deprecation'), real.headers.deprecation);
        assert.is(mocked.headers.get('sl-violations'), null, 'the mock does not break its own description');
      }
    }
  } finally {
    await server.stop();
  }
});

live.run();

const port = suite('a port already taken');

port('is refused at once with a one-line reason', async () => {
  const taken = await freePort();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
  try {
    await startMock({ port: taken });
    assert.unreachable('the mock started on a taken port');
  } catch (error) {
    assert.instance(error, PortInUseError);
    assert.match((error as Error).message, new RegExp(`port ${taken} on 127.0.0.1 is already in use`));
  } finally {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
});

port.run();
