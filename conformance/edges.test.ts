// Issue 30, "nothing leaks and nothing falls over at the edges": a Location, a Link and a redirect to
// a second listener never get it a request from the kit or from Dredd; a body of up to a GiB is read
// up to --max-body and no further; an error the kit did not expect exits 3, never 1.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, HANG_BOUND_MS } from '../lib/testing/eventually.ts';
import { main } from './cli.ts';
import { HttpClient } from './http.ts';
import { NetworkFailure, Transport } from './transport.ts';
import { startTarget, conformOn, outcomeOf, type Target } from './testing/flaws/harness.ts';
import { operationOf } from './testing/flaws/rewrite.ts';
import { rateLimitHeaders, startHugeFront, startRecorder, HUGE_BYTES, type Listener, type Recorded } from './testing/edges.ts';

const KIB = 1024;

const origin = suite('credentials stay with their origin');
let elsewhere: Listener & { requests: Recorded[] };
let target: Target;

origin.before(async () => {
  elsewhere = await startRecorder();
  const there = elsewhere.origin;
  target = await startTarget({
    request: (req) =>
      operationOf(req) === 'getPet' ? { status: 307, headers: { location: `${there}${req.url}`, 'content-type': 'text/plain' }, body: '' } : req,
    response: (res, req) => {
      const op = operationOf(req);
      if (op === 'createPet' && res.status === 201) return { ...res, headers: { ...res.headers, location: `${there}/v1/pets/100` } };
      if (op === 'listPets' && res.status === 200) return { ...res, headers: { ...res.headers, link: `<${there}/v1/pets?cursor=abc>; rel="next"` } };
      return res;
    },
  });
});
origin.after(async () => {
  await target?.stop();
  await elsewhere?.close();
});

// The timeout only ends an exchange that hangs: reading 8 MiB on a busy machine may take seconds.
const client = (baseUrl: string) => new HttpClient({ baseUrl, apiKey: 'secret-key-123', clock: { now: () => Date.now() }, timeoutMs: HANG_BOUND_MS });

origin('no URL on another origin is sent, with or without a key: not by the client, not by the transport below it', async () => {
  const port = new URL(elsewhere.origin).port;
  const http = client(target.baseUrl);
  const transport = new Transport({ origin: target.baseUrl, maxBodyBytes: 64 * KIB });
  try {
    for (const url of [`${elsewhere.origin}/v1/pets/100`, `http://localhost:${port}/v1/pets`, `https://127.0.0.1:${port}/v1/pets`]) {
      for (const authorization of [undefined, null]) {
        const ex = await http.send({
          operationId: 'getPet',
          purpose: 'follow a Location',
          method: 'GET',
          path: url,
          ...(authorization === null ? { authorization } : {}),
        });
        assert.is(ex.response, undefined, url);
        assert.match(ex.error ?? '', /^not sent: .* is not the origin of --base-url/, url);
        assert.is(ex.request.headers.authorization, undefined, url);
      }
      const refused = await transport
        .send({ method: 'GET', url, headers: { authorization: 'Bearer secret-key-123' }, timeoutMs: 2000 })
        .catch((e: unknown) => e);
      assert.ok(refused instanceof NetworkFailure && refused.failure === 'other_origin', url);
    }
    assert.is(http.exchanges.length, 0, 'a request never sent is no exchange to judge');
  } finally {
    http.close();
    transport.close();
  }
  assert.equal(elsewhere.requests, []);
});

origin('a run with Dredd meets a Location, a Link rel="next" and a redirect to another origin: nothing reaches it, and each is judged as data', async () => {
  const report = await conformOn(target, { dredd: true, phases: ['stateful'] });
  assert.equal(
    elsewhere.requests.map((r) => `${r.method} ${r.url} ${r.headers.authorization ?? '(no key)'}`),
    [],
  );
  const result = (id: string) => report.results.find((r) => r.id === id)!;
  assert.is(result('create.location').outcome, 'not-run');
  assert.match(result('create.location').reason ?? '', /another origin/);
  assert.ok(result('create.location').notes.some((n) => n.includes('not requested')));
  assert.is(result('list.next-link').outcome, 'not-run');
  assert.match(result('list.next-link').reason ?? '', /another origin/);
  // Dredd saw the redirect itself and did not follow it.
  const dreddGet = report.dredd?.transactions.find((t) => t.name.startsWith('/pets/{petId} >') && t.response);
  assert.is(dreddGet?.response?.statusCode, 307, report.dredd?.log);
  assert.is(outcomeOf(report, 'dredd.transactions'), 'failed');
});

origin.run();

const size = suite('bounded reading');
let reference: Target;

size.before(async () => {
  reference = await startTarget();
});
size.after(async () => {
  await reference?.stop();
});

/** listPets with the valid key (the preflight's, list.200's, Dredd's): every other answer is the reference server's own. */
const bigList = (req: { method?: string; url?: string; headers: Record<string, unknown> }) =>
  req.method === 'GET' && /^\/v1\/pets(\?|$)/.test(req.url ?? '') && req.headers.authorization === `Bearer ${reference.apiKey}`;

for (const [what, declared] of [
  ['an endless chunked body', undefined],
  ['a body that announces a GiB', HUGE_BYTES],
] as const) {
  size(`the transport stops reading ${what} at the limit, and the connection is closed`, async () => {
    const front = await startHugeFront(new URL(reference.baseUrl).origin, { takes: () => true, headers: rateLimitHeaders, ...(declared ? { declared } : {}) });
    const http = client(`${front.origin}/v1`);
    try {
      const ex = await http.send({ operationId: 'listPets', purpose: 'list', method: 'GET', path: '/pets' });
      assert.is(ex.response?.status, 200);
      assert.ok(ex.response?.tooLarge, 'marked too large');
      assert.ok(ex.response!.tooLarge!.read <= 8 * 1024 ** 2 + 64 * KIB);
      assert.ok(ex.response!.body.length <= 2048);
      // A Content-Length past the limit is refused before a byte of the body is read.
      if (declared) assert.equal([ex.response!.tooLarge!.declared, ex.response!.tooLarge!.read], [declared, 0]);
    } finally {
      http.close();
    }
    // The front learns its client went away: a bounded part of the GiB was ever written.
    await eventually(() => front.sent.length > 0, "the front's count of what it wrote before its client went away");
    await front.close();
    assert.is(front.sent.length, 1);
    assert.ok(front.sent[0]! < 64 * 1024 ** 2, `${front.sent[0]} bytes written`);
  });
}

size('a HEAD answer announcing a body past the limit carries none: it is read whole, and judged', async () => {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE_BYTES) }).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const transport = new Transport({ origin: base, maxBodyBytes: 64 * KIB });
  try {
    const head = await transport.send({ method: 'HEAD', url: `${base}/v1/pets`, headers: {}, timeoutMs: HANG_BOUND_MS });
    assert.equal([head.status, head.body, head.tooLarge], [200, '', undefined]);
  } finally {
    transport.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) }, out, err };
}

const hooks = () => ({ clock: reference.clock, sleep: async (ms: number) => reference.clock.advance(ms) });

for (const [what, headers, exit, dredd] of [
  ['only the size is in question: not judged, exit 2 (Dredd included)', rateLimitHeaders, 2, true],
  ['the huge answer also lacks X-RateLimit-*: its headers are judged, exit 1', () => ({}), 1, false],
] as const) {
  size(`conform on a target whose list is endless: ${what}`, async () => {
    const front = await startHugeFront(new URL(reference.baseUrl).origin, { takes: bigList, headers });
    const { io, out, err } = capture();
    try {
      const args = ['--base-url', `${front.origin}/v1`, '--api-key', reference.apiKey, '--profile', 'contract', '--phases', 'none', '--max-body', '64KiB'];
      if (!dredd) args.push('--no-dredd');
      const code = await main(args, io, hooks(), {});
      const text = out.join('');
      assert.is(code, exit, `${text}\n${err.join('')}`);
      assert.match(text, /body too large to judge: more than \d+ bytes read, past --max-body 65536/);
      assert.match(text, exit === 2 ? /COULD NOT JUDGE \(exit 2\)/ : /DOES NOT CONFORM \(exit 1\)/);
      assert.match(text, /SKIP\s+must\s+list\.200/);
      if (dredd) assert.match(text, /SKIP\s+must\s+dredd\.transactions/);
      // Not judged because Dredd's worker stopped reading the body, not because Dredd ended early.
      if (dredd) assert.match(text, /could not judge: \/pets > [^\n]*: body too large to judge[^\n]*: dredd\.transactions\n/);
      if (exit === 1) assert.match(text, /FAIL\s+must\s+headers\.rate-limit/);
      else assert.not.match(text, /FAIL /);
    } finally {
      await front.close();
    }
    // The kit met it once (the preflight's list, which list.200 reuses), and Dredd once.
    assert.is(front.sent.length, dredd ? 2 : 1, front.sent.join(', '));
    assert.ok(Math.max(...front.sent) < 64 * 1024 ** 2, `${Math.max(...front.sent)} bytes written at most`);
  });
}

size('an error the kit did not expect, thrown anywhere while it runs, exits 3 and says so, never 1', async () => {
  const { io, err } = capture();
  let thrown = false;
  const code = await main(
    ['--base-url', reference.baseUrl, '--api-key', reference.apiKey, '--profile', 'contract', '--phases', 'none', '--no-dredd'],
    io,
    {
      ...hooks(),
      onProgress: () => {
        if (thrown) return;
        thrown = true;
        // As a socket's event handler would: outside any promise the run awaits.
        setImmediate(() => {
          throw new Error('boom in an event handler');
        });
      },
    },
    {},
  );
  assert.is(code, 3);
  assert.match(err.join(''), /conform: the kit failed \(an internal error, no verdict on what it judges; please report it\): Error: boom in an event handler/);
});

size.run();
