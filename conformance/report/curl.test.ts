// Replay lines: each method in the form curl sends it as the kit did. HEAD is `curl -I`: with
// `-X HEAD`, curl waits for the body Content-Length announces, which a HEAD answer never has, and
// ends with error 18 (a transfer closed with data outstanding).
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { curlLine } from '../../judge/curl.ts';
import { HttpClient } from '../http.ts';

const run = promisify(execFile);
const test = suite('curl replay lines');
let server: Server;
let origin: string;

test.before(async () => {
  // Answers as hapi does: HEAD with the Content-Length its GET would have, and no body.
  server = createServer((req, res) => {
    const body = JSON.stringify([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const FORMS: Array<[method: string, start: string]> = [
  ['GET', "curl -i -X GET 'http://h/v1/pets'"],
  ['POST', "curl -i -X POST 'http://h/v1/pets'"],
  ['DELETE', "curl -i -X DELETE 'http://h/v1/pets'"],
  ['OPTIONS', "curl -i -X OPTIONS 'http://h/v1/pets'"],
  ['HEAD', "curl -I 'http://h/v1/pets'"],
];

for (const [method, start] of FORMS) {
  test(`${method} replays as ${start}`, () => {
    assert.ok(curlLine({ method, url: 'http://h/v1/pets', headers: { accept: 'application/json' } }).startsWith(`${start} -H `));
  });
}

for (const method of ['HEAD', 'GET']) {
  test(`the ${method} replay line ends with curl's exit 0 and the answer's status line`, async () => {
    const line = curlLine({ method, url: `${origin}/v1/pets`, headers: { accept: 'application/json' } });
    // --max-time only ends a replay that hangs, so that the failure is curl's exit code, not a stuck test.
    const { stdout } = await run('bash', ['-c', line.replace(/^curl /, 'curl -s --max-time 30 ')]);
    assert.match(stdout, /^HTTP\/1\.1 200/);
  });
}

// The client makes an exchange's line when it is first read: it must still be there wherever an
// exchange goes (a copy, the JSON report), be the same each time, and give way to a value set on it.
test("an exchange's replay line, made when first read, is in its copies and its JSON, and a line set on it wins", async () => {
  const http = new HttpClient({ baseUrl: `${origin}/v1`, apiKey: 'secret-key-123', clock: { now: () => Date.now() }, timeoutMs: 30_000 });
  try {
    const exchange = await http.send({ operationId: 'listPets', purpose: 'list', method: 'GET', path: '/pets' });
    const expected = curlLine(exchange.request, { CONFORMANCE_API_KEY: 'secret-key-123' });
    assert.is({ ...exchange }.replay, expected);
    assert.is((JSON.parse(JSON.stringify(exchange)) as { replay: string }).replay, expected);
    assert.is(exchange.replay, expected);
    assert.match(expected, /"authorization: Bearer \$CONFORMANCE_API_KEY"/);
    assert.not.match(expected, /secret-key-123/);
    exchange.replay = 'curl set-by-dredd';
    assert.is(exchange.replay, 'curl set-by-dredd');
    const unread = await http.send({ operationId: 'listPets', purpose: 'list', method: 'GET', path: '/pets' });
    unread.replay = 'set before any read';
    assert.is(JSON.parse(JSON.stringify(unread)).replay, 'set before any read');
  } finally {
    http.close();
  }
});

test.run();
