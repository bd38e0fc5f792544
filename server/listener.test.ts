// What goes wrong below hapi, over real sockets: stalled and oversized requests, bad framing, a
// missing Host, unmet Expect, bodies the server cannot decode, and OPTIONS. Each is answered with
// the Error body (or the Allow list) on time, and nothing is stored.
import { gzipSync } from 'node:zlib';
import type { Server } from '@hapi/hapi';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from './server.ts';
import { exchange } from './testing/raw-http.ts';

const KEY = 'Authorization: Bearer test-enterprise-key\r\n';
const close = 'Connection: close\r\n';
let server: Server;
let port: number;

const timeouts = suite('a client that stops sending');
timeouts.before(async () => {
  server = await createServer({ port: 0, headersTimeoutMs: 300, requestTimeoutMs: 600 });
  await server.start();
  port = Number(server.info.port);
});
timeouts.after(() => server.stop());

timeouts('a body that stops mid-way is answered 408 within the request timeout, and nothing is stored', async () => {
  const res = await exchange(port, [`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${KEY}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`]);
  assert.is(res.status, 408);
  assert.equal(JSON.parse(res.body), { code: 'request_timeout', message: 'The request did not arrive in time.', status: 408 });
  assert.is(res.headers.connection, 'close');
  // Answered by the request timeout, not before it (a busy machine can only make it later).
  assert.ok(res.closedAfterMs >= 600 - 50, `closed after ${res.closedAfterMs} ms`);
  assert.is(await server.app.store.count(), 10);
});

timeouts('headers that never end are answered 408 within the headers timeout', async () => {
  const res = await exchange(port, [`GET /v1/pets HTTP/1.1\r\nHost: x\r\n${KEY}`]);
  assert.is(res.status, 408);
  assert.is(JSON.parse(res.body).code, 'request_timeout');
  assert.ok(res.closedAfterMs >= 300 - 50, `closed after ${res.closedAfterMs} ms`);
});

timeouts.run();

const malformed = suite("Node's parser errors and protocol rules get the Error body");
malformed.before(async () => {
  server = await createServer({ port: 0 });
  await server.start();
  port = Number(server.info.port);
});
malformed.after(() => server.stop());

const cases: Array<[string, string, number, string]> = [
  ['oversized headers', `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
  ['Content-Length with chunked encoding', `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`, 400, 'bad_request'],
  ['a request line that is not HTTP', 'HELLO\r\n\r\n', 400, 'bad_request'],
  ['HTTP/1.1 without Host', `GET /v1/pets HTTP/1.1\r\n${KEY}${close}\r\n`, 400, 'bad_request'],
  ['an Expect other than 100-continue', `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${KEY}Expect: teapot\r\n\r\n`, 417, 'expectation_failed'],
];
for (const [name, request, status, code] of cases) {
  malformed(`${name}: ${status} ${code}`, async () => {
    const res = await exchange(port, [request]);
    assert.is(res.status, status);
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    const body = JSON.parse(res.body);
    assert.is(body.code, code);
    assert.is(body.status, status);
    assert.type(body.message, 'string');
  });
}

malformed.run();

const bodies = suite('bodies the server cannot decode are refused, never guessed at');
bodies.before(async () => {
  server = await createServer({ port: 0 });
  await server.start();
  port = Number(server.info.port);
});
bodies.after(() => server.stop());

const post = (headers: string, body: Buffer | string) => {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return exchange(port, [`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${KEY}${close}${headers}Content-Length: ${bytes.length}\r\n\r\n`, bytes]);
};
const json = 'Content-Type: application/json\r\n';

const refusals: Array<[string, string, Buffer | string, number, string]> = [
  [
    'invalid UTF-8 (RFC 8259 §8.1)',
    json,
    Buffer.concat([Buffer.from('{"name":"Bad'), Buffer.from([0xff, 0xfe]), Buffer.from('","categoryId":1}')]),
    400,
    'malformed_json',
  ],
  ['an unknown Content-Encoding', `${json}Content-Encoding: zstd\r\n`, '{"name":"Z","categoryId":1}', 415, 'unsupported_encoding'],
  ['a charset other than UTF-8', 'Content-Type: application/json; charset=iso-8859-1\r\n', '{"name":"L","categoryId":1}', 415, 'unsupported_media_type'],
];
for (const [name, headers, body, status, code] of refusals) {
  bodies(`${name}: ${status} ${code}, nothing stored`, async () => {
    const res = await post(headers, body);
    assert.is(res.status, status, res.body);
    assert.is(JSON.parse(res.body).code, code);
    assert.is(await server.app.store.count(), 10);
  });
}

const accepted: Array<[string, string, Buffer | string]> = [
  ['a gzip body', `${json}Content-Encoding: gzip\r\n`, gzipSync('{"name":"Zipped","categoryId":1}')],
  ['charset=utf-8', 'Content-Type: application/json; charset=UTF-8\r\n', '{"name":"Ünïcødé","categoryId":1}'],
];
for (const [name, headers, body] of accepted) {
  bodies(`${name} is accepted`, async () => {
    const res = await post(headers, body);
    assert.is(res.status, 201, res.body);
  });
}

bodies.run();

const options = suite('OPTIONS');
options.before(async () => {
  server = await createServer({ port: 0 });
  await server.start();
  port = Number(server.info.port);
});
options.after(() => server.stop());

options('without Origin it lists the methods of the path, needs no key and is not limited', async () => {
  for (const [path, allow] of [
    ['/v1/pets', 'GET, HEAD, POST, OPTIONS'],
    ['/v1/pets/1', 'GET, HEAD, OPTIONS'],
  ] as const) {
    const res = await exchange(port, [`OPTIONS ${path} HTTP/1.1\r\nHost: x\r\n${close}\r\n`]);
    assert.is(res.status, 204);
    assert.is(res.headers.allow, allow);
  }
  const unknown = await exchange(port, [`OPTIONS /v1/nothing HTTP/1.1\r\nHost: x\r\n${close}\r\n`]);
  assert.is(unknown.status, 404);
  assert.is(JSON.parse(unknown.body).code, 'route_not_found');
});

options('with Origin it is a CORS preflight', async () => {
  const res = await exchange(port, [
    `OPTIONS /v1/pets HTTP/1.1\r\nHost: x\r\nOrigin: http://example.test\r\nAccess-Control-Request-Method: POST\r\n${close}\r\n`,
  ]);
  assert.is(res.status, 200);
  assert.ok(res.headers['access-control-allow-origin']);
});

options.run();
