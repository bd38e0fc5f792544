// Discovery without a key: the index, the contract, the health check, and the API reference page,
// which is tested in a real headless Chromium: it shows the three operations, sends a request with a
// fixture key through "Try it out", and no request it makes leaves this server.
import { mkdirSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { DEFAULT_SPEC_PATH } from '../contract.ts';
import { createServer } from '../server.ts';
import type { ServerOptions } from '../options.ts';
import { chromiumAvailable, launchChromium } from '../../lib/testing/chromium.ts';
import { START_BOUND_MS } from '../../lib/testing/eventually.ts';

const inject = suite('discovery, in process');

inject('/, the contract, the page and /healthz need no key and are neither limited nor counted', async () => {
  const server = await createServer({ port: 0 });
  for (let i = 0; i < 40; i++) {
    for (const url of ['/', '/v1', '/v1/openapi.json', '/v1/openapi.yaml', '/docs', '/docs/init.js', '/docs/deprecations', '/healthz']) {
      const res = await server.inject({ url });
      assert.is(res.statusCode, 200, url);
      assert.is(res.headers['x-ratelimit-limit'], undefined, url);
    }
  }
  const keyless = await server.inject({ url: '/v1/pets' });
  assert.is(keyless.statusCode, 401);
  assert.is(keyless.headers['x-ratelimit-remaining'], '29', 'the 320 discovery requests counted nothing');
});

inject('the deprecation Link of getPet names a page this server serves, listing the operation and its sunset', async () => {
  const server = await createServer({ port: 0 });
  const res = await server.inject({ url: '/v1/pets/1', headers: { authorization: 'Bearer test-free-key' } });
  const target = /<([^>]+)>; rel="deprecation"/.exec(String(res.headers.link))?.[1];
  assert.is(target, '/docs/deprecations');
  const page = await server.inject({ url: target! });
  assert.is(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /text\/html/);
  assert.match(page.payload, /getPet<\/td><td>[^<]+<\/td><td>[^<]*2030[^<]*<\/td><td><code>GET \/v1\/pets\?status=available<\/code>/);
});

const WRITTEN = parse(readFileSync(DEFAULT_SPEC_PATH, 'utf8'));

/** `served` is the kit's contract naming `url` first, then its own servers less the local `npm start` one. */
function assertServers(served: { servers: Array<{ url: string; description: string }> }, url: string) {
  assert.is(served.servers[0]!.url, url);
  assert.match(served.servers[0]!.description, /this server/i);
  const others = WRITTEN.servers.filter((s: { url: string }) => !s.url.startsWith('http://127.0.0.1:'));
  assert.equal({ ...served, servers: served.servers.slice(1) }, { ...WRITTEN, servers: others });
}

inject('the contract is served as written but for its servers, in YAML and in JSON, with an ETag', async () => {
  const server = await createServer({ port: 0 });
  const written = readFileSync(DEFAULT_SPEC_PATH, 'utf8');
  const yaml = await server.inject({ url: '/v1/openapi.yaml', headers: { host: 'adoption.example:8080' } });
  assertServers(parse(yaml.payload), 'http://adoption.example:8080/v1');
  // Comments and layout as written: only the servers block differs.
  const outside = (text: string) => text.replace(/\nservers:\n(?: .*\n)+/, '\nservers: ...\n');
  assert.is(outside(yaml.payload), outside(written));
  assert.ok(yaml.payload.includes('# '), 'comments kept');
  const json = await server.inject({ url: '/v1/openapi.json', headers: { host: 'adoption.example:8080' } });
  assertServers(JSON.parse(json.payload), 'http://adoption.example:8080/v1');
  assert.match(String(json.headers.vary), /host/i);
  const again = await server.inject({ url: '/v1/openapi.json', headers: { host: 'adoption.example:8080', 'if-none-match': json.headers.etag as string } });
  assert.is(again.statusCode, 304);
  const elsewhere = await server.inject({ url: '/v1/openapi.json', headers: { host: 'other.example', 'if-none-match': json.headers.etag as string } });
  assert.is(elsewhere.statusCode, 200, 'another address is another document');
  assertServers(JSON.parse(elsewhere.payload), 'http://other.example/v1');
});

inject('served on another port, the contract names that port, not 3000', async () => {
  const server = await createServer({ port: 0, host: '127.0.0.1' });
  await server.start();
  try {
    for (const file of ['openapi.json', 'openapi.yaml']) {
      const served = parse(await (await fetch(`${server.info.uri}/v1/${file}`)).text());
      assertServers(served, `${server.info.uri}/v1`);
      assert.not.ok(JSON.stringify(served.servers).includes(':3000/'), file);
    }
  } finally {
    await server.stop();
  }
});

// What the request reached: Host, or behind trusted proxies what the nearest one says the client
// asked for; anything else that claims it is not believed.
const reached: Array<[string, ServerOptions, Record<string, string>, string]> = [
  ['Host with a port', {}, { host: 'pets.example:8443' }, 'http://pets.example:8443/v1'],
  ['an IPv6 Host', {}, { host: '[::1]:3001' }, 'http://[::1]:3001/v1'],
  ['a Host that is not a host[:port]: the listener', {}, { host: 'x"><script>' }, 'http://127.0.0.1/v1'],
  ['a Host with port 0: the listener', {}, { host: 'pets.example:0' }, 'http://127.0.0.1/v1'],
  [
    'forwarding headers without --trust-proxy: ignored',
    {},
    { host: 'pets.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    'http://pets.example/v1',
  ],
  [
    'X-Forwarded-Host and -Proto from a trusted proxy: the last value, the one the nearest proxy wrote',
    { trustProxy: 1 },
    { host: '10.0.0.9:3000', 'x-forwarded-host': 'client-wrote.example, api.example.org', 'x-forwarded-proto': 'http, https' },
    'https://api.example.org/v1',
  ],
  ['X-Forwarded-Proto alone: with Host', { trustProxy: 1 }, { host: 'api.example.org', 'x-forwarded-proto': 'https' }, 'https://api.example.org/v1'],
  [
    'a proxy outside the trusted range: ignored',
    { trustProxy: ['10.0.0.0/8'] },
    { host: 'pets.example', 'x-forwarded-host': 'api.example.org' },
    'http://pets.example/v1',
  ],
  ['a forwarded proto other than http(s): ignored', { trustProxy: 1 }, { host: 'pets.example', 'x-forwarded-proto': 'javascript' }, 'http://pets.example/v1'],
  [
    'Forwarded host= and proto= with --trust-proxy-header forwarded; X-Forwarded-* ignored',
    { trustProxy: 1, trustProxyHeader: 'forwarded' },
    {
      host: '10.0.0.9',
      forwarded: 'for=192.0.2.1;host=client.example, for=198.51.100.2;host="api.example.org:8443";proto=https',
      'x-forwarded-host': 'no.example',
    },
    'https://api.example.org:8443/v1',
  ],
];
for (const [name, options, headers, url] of reached) {
  inject(`the served contract names what the request reached: ${name}`, async () => {
    const server = await createServer({ port: 0, ...options });
    const res = await server.inject({ url: '/v1/openapi.json', headers, remoteAddress: '127.0.0.1' });
    assert.is(JSON.parse(res.payload).servers[0].url, url);
  });
}

inject('the page forbids every other origin, and / links everything', async () => {
  const server = await createServer({ port: 0 });
  const page = await server.inject({ url: '/docs' });
  assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
  const index = JSON.parse((await server.inject({ url: '/' })).payload);
  assert.equal(index.links, { api: '/v1', docs: '/docs', openapi: '/v1/openapi.json', openapiYaml: '/v1/openapi.yaml', health: '/healthz' });
  // Every link leads somewhere: none answers 404 (the collection wants a key: 401).
  const version = JSON.parse((await server.inject({ url: '/v1' })).payload);
  for (const link of [...Object.values(index.links), ...Object.values(version.links)] as string[]) {
    assert.is.not((await server.inject({ url: link })).statusCode, 404, link);
  }
  assert.equal(version.links, { pets: '/v1/pets', openapi: '/v1/openapi.json', openapiYaml: '/v1/openapi.yaml', deprecations: '/docs/deprecations' });
  assert.is((await server.inject({ url: '/docs/assets/swagger-ui.js' })).statusCode, 404, 'only the files the page needs');
});

inject('an asset name that is a property of every object is 404, like any file the page does not need', async () => {
  const server = await createServer({ port: 0 });
  for (const name of ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf']) {
    const res = await server.inject({ url: `/docs/assets/${name}` });
    assert.is(res.statusCode, 404, name);
    assert.is(JSON.parse(res.payload).code, 'route_not_found', name);
  }
  assert.is((await server.inject({ url: '/docs/assets/swagger-ui.css' })).statusCode, 200);
});

inject('/healthz says 503 with the reason when the store does not answer', async () => {
  const server = await createServer({ port: 0 });
  server.app.store.count = () => Promise.reject(new Error('connection refused'));
  const res = await server.inject({ url: '/healthz' });
  assert.is(res.statusCode, 503);
  assert.is(res.headers['retry-after'], '2');
  assert.equal(JSON.parse(res.payload), { code: 'storage_unavailable', message: 'The store does not answer: connection refused', status: 503 });
});

inject('/healthz says 503 when the store does not answer within --storage-timeout, and 200 once it does', async () => {
  const server = await createServer({ port: 0, storageTimeoutMs: 100 });
  const count = server.app.store.count.bind(server.app.store);
  server.app.store.count = () => new Promise(() => undefined);
  const res = await server.inject({ url: '/healthz' });
  assert.is(res.statusCode, 503);
  assert.equal(JSON.parse(res.payload), { code: 'storage_unavailable', message: 'The store does not answer: no answer within 100 ms', status: 503 });
  server.app.store.count = count;
  assert.is((await server.inject({ url: '/healthz' })).statusCode, 200);
});

inject('/healthz says 503 storage_unavailable with the reason while the store cannot make writes durable, 200 again once it can', async () => {
  const server = await createServer({ port: 0 });
  let failure: string | undefined = 'storage: ENOSPC writing the journal';
  server.app.store.failure = async () => failure;
  const failing = await server.inject({ url: '/healthz' });
  assert.is(failing.statusCode, 503);
  assert.equal(JSON.parse(failing.payload), {
    code: 'storage_unavailable',
    message: 'The store cannot make writes durable: storage: ENOSPC writing the journal.',
    status: 503,
  });
  failure = undefined;
  assert.is((await server.inject({ url: '/healthz' })).statusCode, 200);
});

// What a store's failure looks like when it reaches /healthz: the part and the code, never the address,
// the user, the database or the path (the server guide promises it); the log keeps the whole reason.
const unhealthy: Array<[string, () => Promise<never>, string]> = [
  [
    'PostgreSQL down',
    () =>
      Promise.reject(
        Object.assign(new Error('The database postgres://postgres@127.0.0.1:5298/pets is unavailable'), { reason: 'connect ECONNREFUSED 127.0.0.1:5298' }),
      ),
    'The store does not answer: connection refused (ECONNREFUSED)',
  ],
  [
    'an unknown database host',
    () => Promise.reject(Object.assign(new Error('unavailable'), { reason: 'getaddrinfo ENOTFOUND db.internal.example' })),
    'The store does not answer: host not found (ENOTFOUND)',
  ],
  [
    'a database that is gone',
    () => Promise.reject(Object.assign(new Error('unavailable'), { reason: 'database "pets_prod" does not exist (SQLSTATE 3D000)' })),
    'The store does not answer: the database does not exist (SQLSTATE 3D000)',
  ],
  [
    'a refused login',
    () => Promise.reject(Object.assign(new Error('unavailable'), { reason: 'password authentication failed for user "app" (SQLSTATE 28P01)' })),
    'The store does not answer: password authentication failed for the user (SQLSTATE 28P01)',
  ],
  [
    'an error without a reason',
    () => Promise.reject(new Error("EACCES: permission denied, open '/var/lib/adoption/db.json'")),
    'The store does not answer: permission denied (EACCES)',
  ],
];
for (const [name, count, message] of unhealthy) {
  inject(`/healthz with ${name}: 503 naming the part and the code only, the whole reason in the log once`, async () => {
    const stream = new PassThrough();
    let log = '';
    stream.on('data', (d: Buffer) => (log += d.toString()));
    const server = await createServer({ port: 0, logger: { level: 'warn', stream } });
    server.app.store.count = count;
    for (let i = 0; i < 3; i++) {
      const res = await server.inject({ url: '/healthz' });
      assert.is(res.statusCode, 503);
      assert.equal(JSON.parse(res.payload), { code: 'storage_unavailable', message, status: 503 });
    }
    await server.stop();
    const lines = log.split('\n').filter((line) => line.includes('/healthz answers 503'));
    assert.is(lines.length, 1, 'logged once while it lasts');
    const reason = await count().catch((error: { reason?: string; message: string }) => error.reason ?? error.message);
    assert.ok(lines[0]!.includes(JSON.stringify(reason).slice(1, -1)), `the log keeps ${reason}`);
  });
}

inject.run();

const browser = suite('the API reference page in headless Chromium');
const available = chromiumAvailable('the API reference page is not rendered');

(available ? browser : browser.skip)('shows the three operations and sends a request with a fixture key, never leaving the server', async () => {
  const server = await createServer({ port: 0, host: '127.0.0.1' });
  await server.start();
  const origin = server.info.uri;
  const instance = await launchChromium();
  try {
    const page = await instance.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${origin}/docs`);
    for (const summary of ['List animals', 'Add an animal', 'Get an animal (deprecated)']) {
      await page.getByText(summary, { exact: true }).first().waitFor({ timeout: START_BOUND_MS });
    }
    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click();
    await page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill('test-free-key');
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();
    await page
      .locator('.opblock-get .opblock-summary-path', { hasText: /^\/pets$/ })
      .first()
      .click();
    await page.getByRole('button', { name: 'Try it out' }).first().click();
    const sent = page.waitForRequest((r) => r.url().startsWith(`${origin}/v1/pets`) && r.method() === 'GET');
    await page.getByRole('button', { name: 'Execute' }).first().click();
    const request = await sent;
    assert.is(request.headers().authorization, 'Bearer test-free-key');
    const response = await request.response();
    assert.is(response?.status(), 200);
    await page.locator('.live-responses-table .response-col_status', { hasText: '200' }).first().waitFor({ timeout: START_BOUND_MS });
    if (process.env.SCREENSHOT_DIR) {
      mkdirSync(process.env.SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/docs-page.png`, fullPage: true });
    }
    const elsewhere = requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'));
    assert.equal(elsewhere, [], 'every request of the page goes to the server that served it');
  } finally {
    await instance.close();
    await server.stop();
  }
});

browser.run();
