// Behind a reverse proxy every request comes from the proxy's address. Without trusting it, one
// misbehaving client blocks every client; trusting it, each client is counted on its own, and a
// client cannot choose its partition by writing the header itself.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from '@hapi/hapi';
import { ManualClock } from '../clock.ts';
import type { ServerOptions } from '../options.ts';
import { createServer } from '../server.ts';
import { send } from '../testing/helpers.ts';

const PROXY = '10.0.0.5';

const keyless = (server: Server, client: string, headers: Record<string, string> = { 'x-forwarded-for': client }) =>
  server.inject({ method: 'GET', url: '/v1/pets', remoteAddress: PROXY, headers: { authorization: 'Bearer bad-key-123', ...headers } });

async function block(server: Server, client: string) {
  for (let i = 0; i < 51; i++) await keyless(server, client);
  return keyless(server, client);
}

const proxies = suite('clients behind a reverse proxy');

const serverWith = (options: ServerOptions) => createServer({ port: 0, clock: new ManualClock(), ...options });

proxies('without trust, one client blocking its address blocks every client behind the proxy', async () => {
  const server = await serverWith({});
  assert.is(JSON.parse((await block(server, '203.0.113.7')).payload).code, 'ip_blocked');
  const other = await keyless(server, '198.51.100.1');
  assert.is(JSON.parse(other.payload).code, 'ip_blocked');
});

for (const [name, trustProxy] of [
  ['one hop', 1],
  ['the proxy range', ['10.0.0.0/8']],
] as const) {
  proxies(`trusting ${name}, each client is counted on its own`, async () => {
    const server = await serverWith({ trustProxy: trustProxy as ServerOptions['trustProxy'] });
    assert.is(JSON.parse((await block(server, '203.0.113.7')).payload).code, 'ip_blocked');
    const other = await keyless(server, '198.51.100.1');
    assert.is(other.statusCode, 401);
    assert.is(other.headers['x-ratelimit-remaining'], '29');
  });
}

proxies('a client cannot pick its own partition by writing X-Forwarded-For itself', async () => {
  const server = await serverWith({ trustProxy: 1 });
  // The proxy appends the real client after whatever the client sent.
  const spoofing = (i: number) => keyless(server, '', { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` });
  for (let i = 0; i < 51; i++) await spoofing(i);
  assert.is(JSON.parse((await spoofing(99)).payload).code, 'ip_blocked');
});

// An attack run found this: nginx appends the client to X-Forwarded-For and passes a Forwarded the
// client wrote untouched, so reading Forwarded let a guesser escape its block with a random one.
proxies('a client cannot escape its block with a Forwarded header of its own behind an X-Forwarded-For proxy', async () => {
  const server = await serverWith({ trustProxy: 1 });
  const guess = (i: number) => keyless(server, '', { forwarded: `for=198.51.${i % 250}.${i % 200}`, 'x-forwarded-for': '203.0.113.7' });
  for (let i = 0; i < 51; i++) await guess(i);
  const last = await guess(199);
  assert.is(last.statusCode, 429);
  assert.is(JSON.parse(last.payload).code, 'ip_blocked');
});

proxies('with trustProxyHeader forwarded, X-Forwarded-For is ignored', async () => {
  const server = await serverWith({ trustProxy: 1, trustProxyHeader: 'forwarded' });
  const guess = (i: number) => keyless(server, '', { 'x-forwarded-for': `198.51.${i % 250}.${i % 200}`, forwarded: 'for=203.0.113.7' });
  for (let i = 0; i < 51; i++) await guess(i);
  assert.is(JSON.parse((await guess(199)).payload).code, 'ip_blocked');
  // Another client behind the same proxy, named by Forwarded, is counted on its own.
  const other = await keyless(server, '', { forwarded: 'for=198.51.100.1' });
  assert.is(other.statusCode, 401);
});

// Loopback is spared blocks (the developer's machine), but a proxy on this machine forwards clients
// from the network: trusted, each is its forwarded address, not loopback, and is blocked as ever.
for (const trustProxy of [1, ['127.0.0.1']] as const) {
  proxies(`a proxy on this machine, trusted (${JSON.stringify(trustProxy)}): its clients are blocked, this machine never`, async () => {
    const server = await serverWith({ trustProxy: trustProxy as ServerOptions['trustProxy'] });
    const local = (client: string, headers: Record<string, string> = { 'x-forwarded-for': client }) =>
      server.inject({ method: 'GET', url: '/v1/pets', remoteAddress: '127.0.0.1', headers: { authorization: 'Bearer bad-key-123', ...headers } });
    for (let i = 0; i < 51; i++) await local('203.0.113.7');
    assert.is(JSON.parse((await local('203.0.113.7')).payload).code, 'ip_blocked');
    // A request that reached the server directly from this machine, forwarded by no one.
    for (let i = 0; i < 51; i++) await local('', {});
    const direct = await local('', {});
    assert.is(JSON.parse(direct.payload).code, 'rate_limited_ip');
    const keyed = await server.inject({ method: 'GET', url: '/v1/pets', remoteAddress: '127.0.0.1', headers: { authorization: 'Bearer test-free-key' } });
    assert.is(keyed.statusCode, 200);
  });
}

proxies('trustProxy is checked once, at start', async () => {
  for (const bad of [0, ['10.0.0.0/33'], ['not-an-address'], [] as string[]]) {
    try {
      await serverWith({ trustProxy: bad as ServerOptions['trustProxy'] });
      assert.unreachable(JSON.stringify(bad));
    } catch (error) {
      assert.match((error as Error).message, /Invalid server options: "trustProxy/);
    }
  }
  try {
    await serverWith({ trustProxy: 1, trustProxyHeader: 'x-real-ip' as ServerOptions['trustProxyHeader'] });
    assert.unreachable('x-real-ip');
  } catch (error) {
    assert.match((error as Error).message, /Invalid server options: "trustProxyHeader/);
  }
  const ok = await serverWith({ trustProxy: ['10.0.0.0/8', '::1', 'fd00::/8'] });
  assert.is((await send(ok, { method: 'GET', url: '/v1/pets' })).status, 200);
});

proxies.run();
