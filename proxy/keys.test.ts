// Keys out of everything the proxy writes, wherever the traffic carried them: a client that sends its
// key in X-Auth, in `?k=` and in a JSON body, to a target that echoes them back in its headers and
// body. The HAR, the JSON, JUnit and HTML reports, the console and the live feed hold labels, never a
// key, whatever the order the proxy met them in.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../lib/testing/eventually.ts';
import { parseProxyCli, runProxy } from './cli.ts';
import { LIVE_PATH } from './live.ts';

const LONG = 'proxy-redact-key-0123456789';
/** Short keys: a label must not spell any of them. */
const SIX = 'q7Zx9w';
const THREE = 'k9Q';
/** Never sent as a bearer key: the proxy learns it from X-Auth. */
const XAUTH = 'xA7pL2';
const KEYS = [LONG, SIX, THREE, XAUTH];

/** Answers everything with 500 and echoes what it was sent, keys included, as a careless server does. */
function echo(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    res.writeHead(500, { 'content-type': 'application/json', 'x-echo': `${req.headers['x-auth'] ?? ''} ${req.headers.authorization ?? ''}` });
    res.end(JSON.stringify({ code: 'internal_error', message: `failed for ${req.url} with ${req.headers.authorization ?? 'no key'}`, sent: body }));
  });
}

test('a key in X-Auth, in ?k= and in a JSON body, echoed back by the target: no output of the proxy holds it', async () => {
  const target = createServer(echo);
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'proxy-keys-'));
  try {
    const { port } = target.address() as AddressInfo;
    const file = (name: string) => join(dir, name);
    const argv = [
      '--target',
      `http://127.0.0.1:${port}`,
      '--port',
      '0',
      '--json',
      file('r.json'),
      '--junit',
      file('r.xml'),
      '--html',
      file('r.html'),
      '--har',
      file('r.har'),
    ];
    const options = parseProxyCli(argv, {});
    if (options === 'help') throw new Error('unexpected --help');
    let out = '';
    await runProxy(options, {
      stdout: (text) => (out += text),
      until: async (url) => {
        for (const key of [LONG, SIX, THREE]) {
          const headers = { authorization: `Bearer ${key}`, 'x-auth': key };
          await (await fetch(`${url}/v1/pets?k=${key}&limit=1`, { headers })).arrayBuffer();
          const body = JSON.stringify({ name: 'Rex', note: `my key is ${key}`, status: 'available' });
          await (await fetch(`${url}/v1/pets?k=${key}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })).arrayBuffer();
        }
        // A key never sent as a bearer key, first in X-Auth, then in the query and the body.
        await (await fetch(`${url}/v1/pets?limit=1`, { headers: { 'x-auth': XAUTH } })).arrayBuffer();
        const body = JSON.stringify({ name: 'Rex', note: XAUTH });
        await (await fetch(`${url}/v1/pets?k=${XAUTH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).arrayBuffer();
      },
    });
    const outputs = {
      console: out,
      har: await readFile(file('r.har'), 'utf8'),
      json: await readFile(file('r.json'), 'utf8'),
      junit: await readFile(file('r.xml'), 'utf8'),
      html: await readFile(file('r.html'), 'utf8'),
    };
    for (const [name, text] of Object.entries(outputs)) {
      for (const key of KEYS) assert.not.ok(text.toLowerCase().includes(key.toLowerCase()), `${name} holds ${key}`);
    }
    const har = JSON.parse(outputs.har) as {
      log: {
        entries: Array<{
          request: { url: string; headers: Array<{ name: string; value: string }>; postData?: { text: string } };
          response: { content: { text: string } };
        }>;
      };
    };
    assert.is(har.log.entries.length, 8, 'every exchange is in the HAR');
    const [get, post] = har.log.entries.slice(2, 4);
    // What stood in their place: the labels, the scheme kept, X-Auth redacted by its name.
    assert.ok(get!.request.url.includes('k=%E2%80%A6(6%20chars)'), get!.request.url);
    assert.equal(
      get!.request.headers.filter((h) => h.name === 'authorization' || h.name === 'x-auth'),
      [
        { name: 'authorization', value: 'Bearer …(6 chars)' },
        { name: 'x-auth', value: '<redacted>' },
      ],
    );
    assert.match(post!.request.postData!.text, /"note":"my key is …\(6 chars\)"/);
    assert.match(post!.response.content.text, /with Bearer …\(6 chars\)/);
    assert.match(har.log.entries[7]!.request.postData!.text, /"note":"…\(6 chars\)"/);
  } finally {
    await new Promise((resolve) => target.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
});

/** Every value of a header as it was sent, repeats included (Node keeps only the first Authorization). */
const rawValues = (req: IncomingMessage, name: string) => req.rawHeaders.filter((_, i) => i % 2 === 1 && req.rawHeaders[i - 1]!.toLowerCase() === name);

/** Echoes every Authorization and Cookie value, and each cookie's value alone, as a careless server does. */
function echoAll(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on('end', () => {
    const authorization = rawValues(req, 'authorization');
    const cookies = rawValues(req, 'cookie').flatMap((c) => c.split(';').map((pair) => pair.slice(pair.indexOf('=') + 1).trim()));
    const seen = [...authorization, ...cookies].join(' ');
    // Deprecation is quoted in getPet's finding when it is no date: the keys reach the console and the feed.
    res.writeHead(500, { 'content-type': 'application/json', 'x-echo': seen, deprecation: seen || 'none' });
    res.end(JSON.stringify({ code: 'internal_error', message: `failed for ${req.url} with ${seen || 'no key'}` }));
  });
}

/** A request written by hand: fetch joins repeated headers into one. Resolves with the answer's text. */
function rawRequest(url: string, path: string, headers: ReadonlyArray<[string, string]>): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    const lines = [`GET ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, ...headers.map(([n, v]) => `${n}: ${v}`), 'Connection: close', '', ''];
    socket.write(lines.join('\r\n'));
  });
}

/** The proxy with --ui and every report, in front of `echoAll`; the live feed read while `traffic` runs. */
async function runAgainstEcho(traffic: (url: string) => Promise<void>): Promise<Record<string, string>> {
  const target = createServer(echoAll);
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'proxy-keys-'));
  try {
    const { port } = target.address() as AddressInfo;
    const file = (name: string) => join(dir, name);
    const argv = [
      '--target',
      `http://127.0.0.1:${port}`,
      '--port',
      '0',
      '--ui',
      '--json',
      file('r.json'),
      '--junit',
      file('r.xml'),
      '--html',
      file('r.html'),
      '--har',
      file('r.har'),
    ];
    // The live view may need a token (--ui-token): given when the proxy has the option.
    const TOKEN = 'keys-test-view-token';
    let options: ReturnType<typeof parseProxyCli>;
    let token: string | undefined;
    try {
      options = parseProxyCli([...argv, '--ui-token', TOKEN], {});
      token = TOKEN;
    } catch {
      options = parseProxyCli(argv, {});
    }
    if (options === 'help') throw new Error('unexpected --help');
    let out = '';
    let feed = '';
    await runProxy(options, {
      stdout: (text) => (out += text),
      until: async (url) => {
        const watching = new AbortController();
        const answer = await fetch(`${url}${LIVE_PATH}/events`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: watching.signal });
        assert.is(answer.status, 200, 'the live feed answers');
        const reader = answer.body!.getReader();
        const decoder = new TextDecoder();
        const reading = (async () => {
          try {
            for (;;) {
              const { value, done } = await reader.read();
              if (done) return;
              feed += decoder.decode(value, { stream: true });
            }
          } catch {
            // aborted below
          }
        })();
        await traffic(url);
        // The feed tells of a change at most every 300 ms: bounded, until it names every request passed.
        const sent =
          (await (await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: 'Bearer feed-marker-key-0001' } })).arrayBuffer(), 'feed…(20 chars)');
        try {
          await eventually(() => feed.includes(sent), 'the live feed naming the last request');
        } finally {
          watching.abort();
          await reading;
        }
      },
    });
    return {
      console: out,
      'live feed': feed,
      har: await readFile(file('r.har'), 'utf8'),
      json: await readFile(file('r.json'), 'utf8'),
      junit: await readFile(file('r.xml'), 'utf8'),
      html: await readFile(file('r.html'), 'utf8'),
    };
  } finally {
    await new Promise((resolve) => target.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

const ORDER_CASES: Array<{
  name: string;
  keys: string[];
  traffic: (url: string) => Promise<void>;
  /**
   * The key passes before the proxy can know it: what was written as it passed (the console's line per
   * finding, the HAR's entries) before it was learnt keeps it, as proxy/README.md's Decisions say; from
   * the console only its report at exit is searched, from the HAR only the entries that follow.
   */
  learntLate?: { harEntriesBefore: number };
}> = [
  {
    name: 'two Authorization headers: both keys are learnt and both forwarded values redacted',
    keys: ['first-of-two-key-4471', 'second-of-two-key-9902'],
    traffic: async (url) => {
      for (let i = 0; i < 3; i++) {
        const answer = await rawRequest(url, i === 0 ? '/v1/pets/1' : '/v1/pets?limit=1', [
          ['Authorization', 'Bearer first-of-two-key-4471'],
          ['Authorization', 'Bearer second-of-two-key-9902'],
        ]);
        assert.match(answer, /^HTTP\/1\.1 500/);
      }
    },
  },
  {
    name: 'a key first seen in a path, then as a bearer key: the reports written at exit know it',
    keys: ['path-first-key-5183'],
    traffic: async (url) => {
      for (let i = 0; i < 3; i++) await (await fetch(`${url}/v1/pets/path-first-key-5183`)).arrayBuffer();
      for (let i = 0; i < 3; i++) await (await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: 'Bearer path-first-key-5183' } })).arrayBuffer();
    },
    learntLate: { harEntriesBefore: 3 },
  },
  {
    name: 'a key sent only in a cookie, echoed alone: the cookie value is the key learnt',
    keys: ['cookie-only-key-2718'],
    traffic: async (url) => {
      for (let i = 0; i < 3; i++) {
        await (await fetch(`${url}/v1/pets${i === 0 ? '/1' : '?limit=1'}`, { headers: { cookie: 'theme=dark; apikey=cookie-only-key-2718' } })).arrayBuffer();
      }
    },
  },
];

for (const c of ORDER_CASES) {
  test(c.name, async () => {
    const outputs = await runAgainstEcho(c.traffic);
    if (c.learntLate) {
      const atExit = outputs.console!.indexOf('\nTraffic through the proxy');
      assert.ok(atExit > 0, 'the console has its report at exit');
      outputs.console = outputs.console!.slice(atExit);
      const har = JSON.parse(outputs.har!) as { log: { entries: unknown[] } };
      outputs.har = JSON.stringify(har.log.entries.slice(c.learntLate.harEntriesBefore));
    }
    assert.ok(outputs['live feed']!.includes('event:') || outputs['live feed']!.includes('data:'), 'the live feed was read');
    const found: string[] = [];
    for (const [name, text] of Object.entries(outputs)) {
      for (const key of c.keys) {
        const times = text.toLowerCase().split(key.toLowerCase()).length - 1;
        if (times > 0) found.push(`${name} holds ${key} ${times} time(s)`);
      }
    }
    assert.equal(found, []);
    // What the cookie-only key's label stands for is the key alone, not `apikey=<key>`.
    if (c.keys[0] === 'cookie-only-key-2718') assert.ok(outputs.har!.includes('cook…(20 chars)'), 'the key alone is labelled');
  });
}

test.run();
