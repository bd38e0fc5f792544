// Keys out of everything the proxy writes, wherever the traffic carried them: a client that sends its
// key in X-Auth, in `?k=` and in a JSON body, to a target that echoes them back in its headers and
// body. The HAR, the JSON, JUnit and HTML reports and the console hold labels, never a key.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseProxyCli, runProxy } from './cli.ts';

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

test.run();
