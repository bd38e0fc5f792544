// What the proxy must keep holding at its edges, over raw sockets: a request in absolute form never
// leaves --target, whatever host it names, nor does a redirect the target answers, a CONNECT or an
// Upgrade: a client's key goes to --target only; ambiguous framing (Content-Length with Transfer-Encoding)
// is refused before anything is forwarded; and the report pages escape whatever the traffic carried.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadContract } from '../judge/contract.ts';
import { buildReport } from './report.ts';
import { formatHtml } from './report-html.ts';
import { createTrafficProxy, type TrafficProxy } from './server.ts';

const contract = await loadContract();

interface Listener {
  url: string;
  seen: string[];
  /** The Authorization of each request, '' for none. */
  keys: string[];
  server: Server;
}

type Answer = (req: IncomingMessage) => { status: number; headers: Record<string, string> };

/** A server that answers 200 [] to anything (or what `answer` says) and remembers each request line and key it was sent. */
async function listener(answer?: Answer): Promise<Listener> {
  const seen: string[] = [];
  const keys: string[] = [];
  const server = createHttpServer((req: IncomingMessage, res) => {
    seen.push(`${req.method} ${req.url}`);
    keys.push(req.headers.authorization ?? '');
    req.resume();
    const a = answer?.(req) ?? { status: 200, headers: { 'content-type': 'application/json' } };
    res.writeHead(a.status, a.headers).end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, keys, server };
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

async function withProxy(
  run: (proxy: TrafficProxy, url: string, target: Listener, elsewhere: Listener) => Promise<void>,
  answer?: (elsewhere: string) => Answer,
): Promise<void> {
  const elsewhere = await listener();
  const target = await listener(answer?.(elsewhere.url));
  const proxy = createTrafficProxy({ target: target.url, host: '127.0.0.1', port: 0, contract, timeoutMs: 5000 });
  try {
    await run(proxy, await proxy.start(), target, elsewhere);
  } finally {
    await proxy.stop(0);
    for (const l of [target, elsewhere]) await new Promise<void>((resolve) => l.server.close(() => resolve()));
  }
}

/** The proxy (with `options`) in front of a target served by `handler`, both stopped after `run`. */
async function withTarget(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: Partial<Parameters<typeof createTrafficProxy>[0]>,
  run: (url: string) => Promise<void>,
): Promise<void> {
  const target = createHttpServer(handler);
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const proxy = createTrafficProxy({
    target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`,
    host: '127.0.0.1',
    port: 0,
    contract,
    timeoutMs: 5000,
    ...options,
  });
  try {
    await run(await proxy.start());
  } finally {
    await proxy.stop(0);
    await new Promise<void>((resolve) => target.close(() => resolve()));
  }
}

const KEY = 'Bearer client-secret-key-123';

test('a request in absolute form goes to --target with its path, never to the host it names, with the key', () =>
  withProxy(async (_proxy, url, target, elsewhere) => {
    const host = new URL(elsewhere.url).host;
    for (const requestTarget of [`${elsewhere.url}/v1/pets?limit=1`, `https://${host}/v1/pets?limit=1`, `//${host}/v1/pets?limit=1`]) {
      const answer = await rawExchange(url, `GET ${requestTarget} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${KEY}\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 200/, requestTarget);
    }
    assert.equal(target.seen, ['GET /v1/pets?limit=1', 'GET /v1/pets?limit=1', 'GET //' + host + '/v1/pets?limit=1']);
    assert.equal(target.keys, [KEY, KEY, KEY]);
    assert.equal(elsewhere.seen, []);
  }));

test('a target that redirects to another host: the client gets the redirect unchanged, and the proxy follows none', () =>
  withProxy(
    async (_proxy, url, target, elsewhere) => {
      for (const status of [301, 302, 303, 307, 308]) {
        const res = await fetch(`${url}/v1/pets?status=${status}`, {
          method: 'POST',
          headers: { authorization: KEY, 'content-type': 'application/json' },
          body: '{}',
          redirect: 'manual',
        });
        await res.arrayBuffer();
        assert.is(res.status, status);
        assert.is(res.headers.get('location'), `${elsewhere.url}/v1/pets/1`);
      }
      assert.is(target.seen.length, 5);
      assert.equal(elsewhere.seen, [], 'the proxy never contacted the host the target named');
    },
    (elsewhere) => (req) => ({ status: Number(new URL(req.url!, 'http://x').searchParams.get('status')), headers: { location: `${elsewhere}/v1/pets/1` } }),
  ));

test('CONNECT and Upgrade to another host: nothing reaches it, and no tunnel is opened', () =>
  withProxy(async (_proxy, url, target, elsewhere) => {
    const host = new URL(elsewhere.url).host;
    const connect = await rawExchange(url, `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\nProxy-Authorization: ${KEY}\r\n\r\n`);
    assert.not.match(connect, /^HTTP\/1\.1 200/);
    const upgrade = await rawExchange(
      url,
      `GET ${elsewhere.url}/v1/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${KEY}\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n`,
    );
    assert.not.match(upgrade, /^HTTP\/1\.1 101/);
    assert.equal(elsewhere.seen, []);
    // An upgrade request is at most forwarded to the target, as a plain request without its hop-by-hop fields.
    assert.ok(
      target.seen.every((line) => line === 'GET /v1/pets'),
      target.seen.join(', '),
    );
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
    assert.ok(html.includes('&lt;scr…(25 chars)'), 'the key label is shown, escaped');
    assert.not.match(html, /<script/i);
    assert.not.match(html, /<img|onerror=/i);
  }));

test('a kept-alive connection the target drops as it is reused: the request goes again on a new one, no 502', async () => {
  // The target answers the first request of each connection and drops the connection on the second,
  // as a server does whose keep-alive timeout ends just as the proxy reuses the connection.
  const served = new WeakMap<object, number>();
  const dropsReused = (req: IncomingMessage, res: ServerResponse) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n > 1) return void req.socket.destroy();
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  };
  await withTarget(dropsReused, {}, async (url) => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${url}/v1/pets?limit=1`);
      assert.is(res.status, 200, `request ${i + 1}`);
      await res.arrayBuffer();
    }
  });
});

test('a request body held by Prefer: delay (--faults) reaches the target whole once the delay ends', async () => {
  const bodies: string[] = [];
  const keepsBody = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
  };
  await withTarget(keepsBody, { timeoutMs: 3000, faults: true }, async (url) => {
    const sent = JSON.stringify({ name: 'rex', categoryId: 1 });
    const res = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { prefer: 'delay=100', 'content-type': 'application/json', authorization: KEY },
      body: sent,
    });
    await res.arrayBuffer();
    assert.is(res.status, 201);
    assert.equal(bodies, [sent]);
  });
});

test.run();
