import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Hapi from '@hapi/hapi';
import { ManualClock } from '../clock.ts';
import { createServer } from '../server.ts';
import { send, type Sent } from '../testing/helpers.ts';
import { deprecationHeaders, deprecationPlugin } from './deprecation.ts';

const SUNSET = Date.UTC(2030, 11, 5);
const FREE = 'Bearer test-free-key';

async function setup(startMs = Date.UTC(2026, 5, 1)) {
  const clock = new ManualClock(startMs);
  const server = await createServer({ port: 0, logger: false, clock });
  return { clock, server };
}

function assertDeprecated(res: Sent) {
  assert.is(res.headers.deprecation, `@${Date.UTC(2025, 11, 5) / 1000}`);
  assert.is(res.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT');
  const link = String(res.headers.link);
  assert.match(link, /<\/docs\/deprecations>; rel="deprecation"/);
  assert.match(link, /<\/docs\/deprecations>; rel="sunset"/);
  assert.match(link, /<\/v1\/pets\?status=available>; rel="successor-version"/);
}

const headers = suite('getPet: Deprecation, Sunset and Link on every status');

const getPetCases: Array<[string, number, string, string | undefined, number?]> = [
  ['200', 200, '/v1/pets/1', FREE],
  ['400 (invalid id)', 400, '/v1/pets/abc', FREE],
  ['401', 401, '/v1/pets/1', undefined],
  ['404', 404, '/v1/pets/999', FREE],
  ['429', 429, '/v1/pets/1', FREE, 60],
];
for (const [name, status, url, authorization, before = 0] of getPetCases) {
  headers(name, async () => {
    const { server } = await setup();
    for (let i = 0; i < before; i++) await send(server, { method: 'GET', url: '/v1/pets', headers: { authorization } });
    const res = await send(server, { method: 'GET', url, headers: { authorization } });
    assert.is(res.status, status);
    assertDeprecated(res);
    if (status === 429) assert.ok(res.headers['retry-after']);
  });
}

headers('HEAD answers carry them too', async () => {
  const { server } = await setup();
  const res = await send(server, { method: 'HEAD', url: '/v1/pets/1', headers: { authorization: FREE } });
  assert.is(res.status, 200);
  assertDeprecated(res);
});

const others: Array<[string, string, string, number]> = [
  ['listPets', 'GET', '/v1/pets', 200],
  ['createPet', 'POST', '/v1/pets', 201],
  ['405 on the getPet path', 'DELETE', '/v1/pets/1', 405],
  ['unknown path', 'GET', '/v1/pets/1/photos', 404],
];
for (const [name, method, url, status] of others) {
  headers(`nothing else carries them: ${name}`, async () => {
    const { server } = await setup();
    const res = await send(server, {
      method,
      url,
      headers: { authorization: FREE },
      payload: method === 'POST' ? { name: 'Mochi', categoryId: 2 } : undefined,
    });
    assert.is(res.status, status);
    assert.is(res.headers.deprecation, undefined);
    assert.is(res.headers.sunset, undefined);
    assert.not.match(String(res.headers.link ?? ''), /rel="(deprecation|sunset)"/);
  });
}

headers('the Deprecation date is not later than the Sunset date', () => {
  const h = deprecationHeaders({ since: '2025-12-05T00:00:00Z', sunset: '2030-12-05T00:00:00Z' }, 'https://example.test/d');
  assert.ok(Number(h.deprecation!.slice(1)) * 1000 <= Date.parse(h.sunset!));
});

headers.run();

// ---------------------------------------------------------------------------------------------
const sunset = suite('after the sunset');

sunset('one millisecond before the sunset getPet still answers 200', async () => {
  const { server } = await setup(SUNSET - 1);
  const res = await send(server, { method: 'GET', url: '/v1/pets/1', headers: { authorization: FREE } });
  assert.is(res.status, 200);
});

const goneCases: Array<[string, string]> = [
  ['an existing pet', '/v1/pets/1'],
  ['a missing pet', '/v1/pets/999'],
  ['an invalid id', '/v1/pets/abc'],
];
for (const [name, url] of goneCases) {
  sunset(`from the sunset on, getPet for ${name} is 410 Gone with an Error body and the headers`, async () => {
    const { clock, server } = await setup(SUNSET - 60_000);
    clock.advance(60_000);
    const res = await send(server, { method: 'GET', url, headers: { authorization: FREE } });
    assert.is(res.status, 410);
    assert.equal(Object.keys(res.body).sort(), ['code', 'message', 'status']);
    assert.is(res.body.code, 'operation_sunset');
    assert.is(res.body.status, 410);
    assert.ok(res.body.message.includes('/v1/pets?status=available'), res.body.message);
    assertDeprecated(res);
    assert.ok(res.headers['x-ratelimit-remaining'], 'a removed operation still counts');
  });
}

sunset('after the sunset a request without a key is still 401, and listPets still works', async () => {
  const { server } = await setup(SUNSET + 1);
  assert.is((await send(server, { method: 'GET', url: '/v1/pets/1', headers: { authorization: undefined } })).status, 401);
  assert.is((await send(server, { method: 'GET', url: '/v1/pets?status=available', headers: { authorization: FREE } })).status, 200);
});

sunset.run();

// ---------------------------------------------------------------------------------------------
const routes = suite('deprecation is route configuration');

async function bare(settings: Record<string, unknown>) {
  const server = Hapi.server();
  await server.register({
    plugin: deprecationPlugin,
    options: { clock: new ManualClock(Date.UTC(2026, 0, 1)), link: 'https://docs.example.test/deprecations' },
  });
  server.route({ method: 'GET', path: '/old', options: { plugins: { deprecation: settings as never }, handler: () => 'ok' } });
  server.route({ method: 'GET', path: '/new', handler: () => 'ok' });
  return server;
}

routes('marking another route deprecated is one block of its options', async () => {
  const server = await bare({ since: '2026-01-01T00:00:00Z', sunset: '2027-06-30T00:00:00Z', successor: '/new' });
  const old = await server.inject('/old');
  assert.is(old.headers.deprecation, `@${Date.UTC(2026, 0, 1) / 1000}`);
  assert.is(old.headers.sunset, 'Wed, 30 Jun 2027 00:00:00 GMT');
  assert.is(
    old.headers.link,
    '<https://docs.example.test/deprecations>; rel="deprecation"; type="text/html", <https://docs.example.test/deprecations>; rel="sunset"; type="text/html", </new>; rel="successor-version"',
  );
  assert.is((await server.inject('/new')).headers.deprecation, undefined);
});

routes('a Link the handler set stays first and the deprecation links follow it; its own Sunset is replaced', async () => {
  const server = await bare({ since: '2026-01-01T00:00:00Z', sunset: '2027-06-30T00:00:00Z' });
  server.route({
    method: 'GET',
    path: '/old/page',
    options: {
      plugins: { deprecation: { since: '2026-01-01T00:00:00Z', sunset: '2027-06-30T00:00:00Z' } },
      handler: (_request, h) => h.response('ok').header('Link', '</old/page?cursor=x>; rel="next"').header('Sunset', 'never'),
    },
  });
  const res = await server.inject('/old/page');
  assert.is(
    res.headers.link,
    '</old/page?cursor=x>; rel="next", <https://docs.example.test/deprecations>; rel="deprecation"; type="text/html", <https://docs.example.test/deprecations>; rel="sunset"; type="text/html"',
  );
  assert.is(res.headers.sunset, 'Wed, 30 Jun 2027 00:00:00 GMT');
});

const invalid: Array<[string, Record<string, unknown>]> = [
  ['a sunset before the deprecation', { since: '2031-01-01T00:00:00Z', sunset: '2030-12-05T00:00:00Z' }],
  ['no sunset', { since: '2025-01-01T00:00:00Z' }],
  ['a date that is not ISO 8601', { since: 'yesterday', sunset: '2030-12-05T00:00:00Z' }],
];
for (const [name, settings] of invalid) {
  routes(`a route with ${name} is refused when it is added`, async () => {
    try {
      await bare(settings);
      assert.unreachable();
    } catch (error) {
      assert.not.instance(error, assert.Assertion);
      assert.match((error as Error).message, /invalid deprecation settings/);
    }
  });
}

routes.run();
