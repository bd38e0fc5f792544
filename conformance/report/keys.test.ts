// Keys out of every report of a run, however short: the kit run from its command line with keys of 6
// and 3 characters and a --header secret of 5, against the second implementation behind a target that
// echoes the key back in the headers and the body of its 500s. The console (progress included), JSON,
// JUnit and HTML outputs hold labels and variable names, never a key.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../cli.ts';
import type { FlawBehaviour } from '../testing/flaws/proxy.ts';
import { startTarget } from '../testing/flaws/harness.ts';

const API_KEY = 'q7Zx9w';
const RATE_LIMIT_KEY = 'k9Q';
const HEADER_SECRET = 'Jv3pT';
const KEYS = [API_KEY, RATE_LIMIT_KEY, HEADER_SECRET];

/** A careless server: a single pet's read fails with a 500 that repeats the credentials it was sent. */
const echoesKeys: FlawBehaviour = {
  response(res, req) {
    if (!/\/pets\/\d+$/.test(req.url.split('?')[0]!)) return res;
    const sent = `${req.headers.authorization ?? 'no key'} ${req.headers['x-gateway-token'] ?? ''}`;
    return {
      status: 500,
      headers: { 'content-type': 'application/json', 'x-echo': sent },
      body: JSON.stringify({ code: 'internal_error', message: `failed for ${sent}` }),
    };
  },
};

test('a run with keys of 6 and 3 characters: no output of the kit spells one', async () => {
  const target = await startTarget(echoesKeys, 'second', { keys: { [API_KEY]: 'pro', [RATE_LIMIT_KEY]: 'free' } });
  const dir = await mkdtemp(join(tmpdir(), 'conform-keys-'));
  try {
    const file = (name: string) => join(dir, name);
    const out: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) };
    const argv = [
      ...['--base-url', target.baseUrl, '--api-key', API_KEY, '--rate-limit-key', RATE_LIMIT_KEY, '--header', `X-Gateway-Token: ${HEADER_SECRET}`],
      ...['--profile', 'full', '--phases', 'none', '--no-dredd', '--junit', file('r.xml'), '--json', file('r.json'), '--html', file('r.html')],
    ];
    const code = await main(argv, io, { clock: target.clock, sleep: async (ms) => target.clock.advance(ms) });
    const outputs = {
      console: out.join(''),
      json: await readFile(file('r.json'), 'utf8'),
      junit: await readFile(file('r.xml'), 'utf8'),
      html: await readFile(file('r.html'), 'utf8'),
    };
    assert.is(code, 1, outputs.console);
    for (const [name, text] of Object.entries(outputs)) {
      // Case-insensitive: a key upper-cased (the kit sends such variants) is still the key.
      for (const key of KEYS) assert.not.ok(text.toLowerCase().includes(key.toLowerCase()), `${name} holds ${key}`);
    }
    // The failure the echo caused is there, its evidence with labels where the keys were.
    assert.match(outputs.console, /FAIL {2}must {4}errors\.no-server-error/);
    assert.match(outputs.console, /< x-echo: Bearer …\(6 chars\) …\(5 chars\)/);
    assert.match(outputs.console, /> x-gateway-token: <redacted>/);
    assert.match(outputs.json, /"authorization": "Bearer …\(6 chars\)"/);
    assert.match(outputs.json, /"timeline": \{\s+"key": "…\(3 chars\)"/);
    assert.match(outputs.json, /\\"authorization: Bearer \$CONFORMANCE_API_KEY\\"/);
  } finally {
    await target.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
