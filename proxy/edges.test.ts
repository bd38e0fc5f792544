// What the proxy must keep holding at its edges, over raw sockets: a request in absolute form never
// leaves --target, whatever host it names; ambiguous framing (Content-Length with Transfer-Encoding)
// is refused before anything is forwarded; and the report pages escape whatever the traffic carried.
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadContract } from '../conformance/openapi.ts';
import { buildReport, formatHtml } from './report.ts';
import { createTrafficProxy, type TrafficProxy } from './server.ts';

const contract = await loadContract();

interface Listener {
  url: string;
  seen: string[];
  server: Server;
}

/** A server that answers 200 [] to anything and remembers each request line it was sent. */
async function listener(): Promise<Listener> {
  const seen: string[] = [];
  const server = createHttpServer((req: IncomingMessage, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

/** Writes `raw` to the proxy and reads what comes back until the proxy closes or 2 s pass. */
function rawExchange(proxyUrl: string, raw: string): Promise<string> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

async function withProxy(run: (proxy: TrafficProxy, url: string, target: Listener, elsewhere: Listener) => Promise<void>): Promise<void> {
  const [target, elsewhere] = [await listener(), await listener()];
  const proxy = createTrafficProxy({ target: target.url, host: '127.0.0.1', port: 0, contract, timeoutMs: 5000 });
  try {
    await run(proxy, await proxy.start(), target, elsewhere);
  } finally {
    await proxy.stop(0);
    for (const l of [target, elsewhere]) await new Promise<void>((resolve) => l.server.close(() => resolve()));
  }
}

test('a request in absolute form goes to --target with its path, never to the host it names', () =>
  withProxy(async (_proxy, url, target, elsewhere) => {
    const answer = await rawExchange(url, `GET ${elsewhere.url}/v1/pets?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 200/);
    assert.equal(target.seen, ['GET /v1/pets?limit=1']);
    assert.equal(elsewhere.seen, []);
  }));

test('a request target that names no path (authority-form) is refused with 400, nothing forwarded', () =>
  withProxy(async (_proxy, url, target, elsewhere) => {
    const answer = await rawExchange(url, `GET ${new URL(elsewhere.url).host} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 400/);
    assert.equal([...target.seen, ...elsewhere.seen], []);
  }));

test('ambiguous framing (Content-Length and Transfer-Encoding) is refused before anything is forwarded', () =>
  withProxy(async (_proxy, url, target) => {
    const smuggled = 'GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\n\r\n';
    const answer = await rawExchange(
      url,
      `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
    );
    assert.match(answer, /^HTTP\/1\.1 400/);
    assert.equal(target.seen, []);
  }));

test('the HTML report escapes what the traffic carried: a key, a path and a body written as markup', () =>
  withProxy(async (proxy, url) => {
    const hostile = '<script>alert(1)</script>';
    await (await fetch(`${url}/v1/pets?limit=1&q=${encodeURIComponent(hostile)}`, { headers: { authorization: `Bearer ${hostile}` } })).arrayBuffer();
    await (
      await fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hostile}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: hostile }),
      })
    ).arrayBuffer();
    await proxy.stop(0);
    const html = formatHtml(
      buildReport({ target: url, startedAt: 0, endedAt: 1, keys: proxy.judge.report(), findings: proxy.judge.findings, requests: 2, failOn: 'none' }),
    );
    assert.ok(html.includes('&lt;script'), 'the key label is shown, escaped');
    assert.not.match(html, /<script/i);
    assert.not.match(html, /<img|onerror=/i);
  }));

test('a kept-alive connection the target drops as it is reused: the request goes again on a new one, no 502', async () => {
  // The target answers the first request of each connection and drops the connection on the second,
  // as a server does whose keep-alive timeout ends just as the proxy reuses the connection.
  const served = new WeakMap<object, number>();
  const target = createHttpServer((req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n > 1) return req.socket.destroy();
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const proxy = createTrafficProxy({
    target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`,
    host: '127.0.0.1',
    port: 0,
    contract,
    timeoutMs: 5000,
  });
  try {
    const url = await proxy.start();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${url}/v1/pets?limit=1`);
      assert.is(res.status, 200, `request ${i + 1}`);
      await res.arrayBuffer();
    }
  } finally {
    await proxy.stop(0);
    await new Promise<void>((resolve) => target.close(() => resolve()));
  }
});

test.run();
