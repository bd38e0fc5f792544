// HTTP rules hapi does not apply by itself, over real sockets (inject cannot send two Host fields,
// the asterisk-form or a chunked body): each refusal has the Error body, nothing is stored.
import { gzipSync } from 'node:zlib';
import type { Server } from '@hapi/hapi';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerOptions } from '../options.ts';
import { createServer } from '../server.ts';
import { exchange } from '../testing/raw-http.ts';

const KEY = 'Authorization: Bearer test-enterprise-key\r\n';
const close = 'Connection: close\r\n';
const MAX_BODY = 1024;

const rules = suite('HTTP rules');
let server: Server;
let port: number;

async function start(options: ServerOptions = {}): Promise<void> {
  server = await createServer({ port: 0, maxBodyBytes: MAX_BODY, ...options });
  await server.start();
  port = Number(server.info.port);
}
rules.after.each(() => server.stop());

/** One chunk of `size` bytes in chunked transfer coding. */
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

rules('OPTIONS * answers 204 with the methods the server has, with or without Origin', async () => {
  await start();
  for (const origin of ['', 'Origin: http://example.test\r\n']) {
    const res = await exchange(port, [`OPTIONS * HTTP/1.1\r\nHost: x\r\n${origin}${close}\r\n`]);
    assert.is(res.status, 204, res.body);
    assert.is(res.headers.allow, 'GET, HEAD, POST, OPTIONS');
  }
});

rules('OPTIONS * counts the admin API among the server’s methods when it is on', async () => {
  await start({ adminToken: 'admin-token-123' });
  const res = await exchange(port, [`OPTIONS * HTTP/1.1\r\nHost: x\r\n${close}\r\n`]);
  assert.is(res.headers.allow, 'GET, HEAD, POST, DELETE, OPTIONS');
});

rules('another method with the asterisk-form is 400 with the Error body', async () => {
  await start();
  const res = await exchange(port, [`GET * HTTP/1.1\r\nHost: x\r\n${KEY}${close}\r\n`]);
  assert.is(res.status, 400);
  assert.is(JSON.parse(res.body).code, 'bad_request');
});

for (const [name, hosts] of [
  ['two different Host fields', 'Host: x\r\nHost: y\r\n'],
  ['the same Host twice', 'Host: x\r\nhost: x\r\n'],
] as const) {
  rules(`${name}: 400 bad_request with the Error body (RFC 9110 §7.2)`, async () => {
    await start();
    const res = await exchange(port, [`GET /v1/pets HTTP/1.1\r\n${hosts}${KEY}${close}\r\n`]);
    assert.is(res.status, 400, res.body);
    assert.equal(JSON.parse(res.body), { code: 'bad_request', message: 'A request must carry one Host header, not several.', status: 400 });
  });
}

rules('one Host field is still answered, over a socket and injected', async () => {
  await start();
  assert.is((await exchange(port, [`GET /v1/pets HTTP/1.1\r\nHost: x\r\n${KEY}${close}\r\n`])).status, 200);
  assert.is((await server.inject({ url: '/v1/pets', headers: { authorization: 'Bearer test-enterprise-key' } })).statusCode, 200);
});

for (const coding of ['GZIP', 'Gzip', ' gzip ']) {
  rules(`Content-Encoding "${coding}" is gzip: codings are case-insensitive (RFC 9110 §8.4.1)`, async () => {
    await start();
    const body = gzipSync('{"name":"Zipped","categoryId":1}');
    const res = await exchange(port, [
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${KEY}${close}Content-Type: application/json\r\nContent-Encoding: ${coding}\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    ]);
    assert.is(res.status, 201, res.body);
    assert.is(JSON.parse(res.body).name, 'Zipped');
  });
}

const chunkedPost = `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${KEY}${close}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;

rules('a chunked body over the size limit is answered 413 with the Error body, not a reset', async () => {
  await start();
  const name = 'a'.repeat(MAX_BODY * 4);
  const res = await exchange(port, [chunkedPost, chunk(`{"name":"${name.slice(0, MAX_BODY)}`), chunk(name), chunk('","categoryId":1}'), '0\r\n\r\n']);
  assert.is(res.status, 413, res.body);
  assert.equal(JSON.parse(res.body), { code: 'payload_too_large', message: `The request body is larger than the ${MAX_BODY} bytes allowed.`, status: 413 });
  assert.is(await server.app.store.count(), 10);
});

rules('a chunked body within the limit is read', async () => {
  await start();
  const res = await exchange(port, [chunkedPost, chunk('{"name":"Chunked",'), chunk('"categoryId":1}'), '0\r\n\r\n']);
  assert.is(res.status, 201, res.body);
});

rules.run();
