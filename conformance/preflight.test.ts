// The preflight and the pacer: a wrong base URL or key ends the run at once with exit 2 and one
// message, a target over TLS is checked with --ca or --insecure and its certificate failure named
// as such, and the kit run again and again against one reference server never locks itself out.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { selfSignedCertificate } from '../lib/testing/tls.ts';
import { guideBlock } from '../scripts/guide-blocks.ts';
import { main } from './cli.ts';
import { runConformance } from './run.ts';
import { conformOn, outcomeOf, startTarget, type Target } from './testing/flaws/harness.ts';
import { startFlawProxy, type FlawProxy } from './testing/flaws/proxy.ts';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) }, out, err };
}

/** Where the guide's lines say the reference server is (`npm start`). */
const GUIDE_ORIGIN = 'http://127.0.0.1:3000';
const overridesOf = (t: Target) => ({ clock: t.clock, sleep: async (ms: number) => t.clock.advance(ms) });

const diagnosis = suite('preflight');
let target: Target;
diagnosis.before.each(async () => {
  target = await startTarget();
});
diagnosis.after.each(async () => {
  await target.stop();
});

diagnosis('a base URL without /v1: exit 2, one message naming the URL that works, and no check run', async () => {
  const { io, out, err } = capture();
  const origin = target.baseUrl.replace(/\/v1$/, '');
  assert.is(await main(['--base-url', origin, '--api-key', 'test-pro-key'], io), 2);
  assert.match(
    err.join(''),
    new RegExp(`GET ${origin}/pets answered 404 \\(route_not_found: .*\\), but ${origin}/v1/pets answers 200: use --base-url ${origin}/v1`),
  );
  assert.ok(err.join('').split('\n').filter(Boolean).length <= 2, err.join(''));
  assert.not.match(out.join(''), /PASS|FAIL/);
});

// A base URL that names the collection, or an item of it: each answers GET {base}/pets otherwise
// (the reference: 400 for a petId "pets", 404 below an item), and each is one line naming /v1.
const COLLECTION_URLS: Array<[string, string, RegExp]> = [
  ['the collection', '/v1/pets', /answered 400 \(invalid_parameter: .*\)/],
  ['the collection with a trailing slash', '/v1/pets/', /answered 400 \(invalid_parameter: .*\)/],
  ['a pet of it', '/v1/pets/3', /answered 404 \(route_not_found: .*\)/],
  ['the collection without /v1', '/pets', /answered 404 \(route_not_found: .*\)/],
];
for (const [what, path, answer] of COLLECTION_URLS) {
  diagnosis(`a base URL naming ${what} (${path}): exit 2, one line naming the base URL to use, no check run`, async () => {
    const { io, out, err } = capture();
    const origin = target.baseUrl.replace(/\/v1$/, '');
    assert.is(await main(['--base-url', `${origin}${path}`, '--api-key', 'test-pro-key'], io), 2);
    const text = err.join('');
    assert.match(text, answer);
    assert.match(text, new RegExp(`but ${origin}/v1/pets answers 200: use --base-url ${origin}/v1 \\(the prefix /pets is appended to`));
    assert.is(text.trim().split('\n').length, 1, text);
    assert.not.match(out.join(''), /PASS|FAIL|CONFORM/);
  });
}

diagnosis('a base URL answering as the collection behind a gateway that serves nothing else: exit 2, saying so', async () => {
  // /api/animals is the collection; nothing else is served, so no base URL can be proposed.
  const gateway = await startFlawProxy(target.baseUrl.replace(/\/v1$/, ''), {
    request: (req) =>
      req.url.startsWith('/api/animals')
        ? { ...req, url: req.url.replace('/api/animals', '/v1/pets') }
        : { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no such route' },
  });
  try {
    const { io, err } = capture();
    assert.is(await main(['--base-url', `${gateway.origin}/api/animals`, '--api-key', 'test-pro-key'], io), 2);
    assert.match(
      err.join(''),
      new RegExp(
        `GET ${gateway.origin}/api/animals/pets answered 400 .*, but GET ${gateway.origin}/api/animals answers a list of pets: --base-url names the collection itself`,
      ),
    );
  } finally {
    await gateway.close();
  }
});

diagnosis('a list that fails at the right base URL is judged, not diagnosed: the preflight does not guess', async () => {
  const broken = await startFlawProxy(target.baseUrl.replace(/\/v1$/, ''), {
    response: (res, req) => (req.method === 'GET' && req.url === '/v1/pets' ? { ...res, status: 500, body: '{}' } : res),
  });
  try {
    const report = await runConformance({ baseUrl: `${broken.origin}/v1`, apiKey: 'test-pro-key', dredd: false, phases: [], ...overridesOf(target) });
    assert.is(report.exitCode, 1);
    assert.is(report.results.find((r) => r.id === 'list.200')?.outcome, 'failed');
  } finally {
    await broken.close();
  }
});

diagnosis('a refused key: exit 2, one message naming the code the target sent, the key redacted', async () => {
  const { io, err } = capture();
  assert.is(await main(['--base-url', target.baseUrl, '--api-key', 'not-a-real-key-123'], io), 2);
  assert.match(
    err.join(''),
    /the target refused --api-key: GET .*\/v1\/pets answered 401 \(invalid_api_key: The API key is not valid\.\) to Bearer not-…\(18 chars\)/,
  );
  assert.not.ok(err.join('').includes('not-a-real-key-123'));
});

diagnosis('a target that keeps the address blocked longer than --max-wait: exit 2 naming the code and Retry-After', async () => {
  // 30 keyless requests use up the allowance, 20 refusals block the address for 600 s: the reference
  // blocks loopback only with --ip-ban-loopback, as a remote server blocks the kit's address.
  await target.stop();
  target = await startTarget(undefined, 'reference', {}, { rateLimit: { ip: { banLoopback: true } } });
  for (let i = 0; i < 50; i++) await fetch(`${target.baseUrl}/pets`);
  const { io, err } = capture();
  assert.is(
    await main(['--base-url', target.baseUrl, '--api-key', 'test-pro-key'], io, { clock: target.clock, sleep: async (ms) => target.clock.advance(ms) }),
    2,
  );
  assert.match(
    err.join(''),
    /the address \(requests without a valid key\) was refused \(429 ip_blocked, Retry-After \d+\) and its window reopens in \d+ s, longer than --max-wait 120/,
  );
});

/** Uses up the free key's minute (60) and refuses it 20 times: the reference bans it for 600 s. */
async function banFreeKey(baseUrl: string): Promise<void> {
  for (let i = 0; i < 80; i++) await fetch(`${baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer test-free-key' } });
  const banned = await fetch(`${baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer test-free-key' } });
  assert.equal([banned.status, ((await banned.json()) as { code: string }).code], [429, 'key_banned']);
}

diagnosis(
  "the guide's messages for a collection URL and a banned --rate-limit-key are the kit's, word for word: exit 2, no check, never CONFORMS",
  async () => {
    const text = guideBlock('conformance/README.md', 'preflight-refusals');
    const runs = [...text.matchAll(/^\$ npm run conform -- (.+)\n(.+)$/gm)];
    assert.is(runs.length, 2);
    await banFreeKey(target.baseUrl);
    target.clock.advance(198_000); // 402 s of the ban left, as the issue met it
    const origin = target.baseUrl.replace(/\/v1$/, '');
    for (const [, args, expected] of runs) {
      const { io, out, err } = capture();
      assert.is(await main(args!.replaceAll(GUIDE_ORIGIN, origin).split(' '), io, overridesOf(target)), 2, args);
      assert.is(err.join('').trim(), expected!.replaceAll(GUIDE_ORIGIN, origin));
      assert.not.match(out.join(''), /PASS|CONFORMS/);
    }
  },
);

diagnosis('an unknown --rate-limit-key: exit 2 naming the code, the key redacted', async () => {
  const { io, err } = capture();
  assert.is(await main(['--base-url', target.baseUrl, '--api-key', 'test-pro-key', '--rate-limit-key', 'no-such-rate-key'], io, overridesOf(target)), 2);
  assert.match(
    err.join(''),
    /the target refused --rate-limit-key: GET .* answered 401 \(invalid_api_key: .*\) to Bearer no-s…\(16 chars\)\. Check --rate-limit-key/,
  );
  assert.not.ok(err.join('').includes('no-such-rate-key'));
});

diagnosis('a --rate-limit-key banned for less than --max-wait: the rate-limit phase waits it out and judges, with no finding against the target', async () => {
  await banFreeKey(target.baseUrl);
  target.clock.advance(500_000); // 100 s left
  const report = await conformOn(target, { rateLimitKey: true, phases: [], strict: true });
  assert.equal(
    report.results.filter((r) => r.outcome === 'failed' || r.unjudged).map((r) => `${r.id}: ${r.reason ?? r.failures[0]?.message}`),
    [],
  );
  assert.is(report.exitCode, 0);
  for (const id of ['ratelimit.exhaustion-exact', 'ratelimit.readmitted', 'ratelimit.per-key']) assert.is(outcomeOf(report, id), 'passed', id);
  assert.ok(
    report.pacing.waits.some((w) => /the rate-limit key is refused \(429 key_banned\); waiting its Retry-After \(10\d s\)/.test(w.why)),
    JSON.stringify(report.pacing.waits),
  );
  assert.not.ok(report.results.find((r) => r.id === 'ratelimit.per-key')!.notes.some((n) => /finding/.test(n) || /admitted by the preflight/.test(n)));
});

diagnosis('five runs in a row against one reference server, Dredd included, never meet a refusal of the address', async () => {
  const waits: string[] = [];
  for (let i = 1; i <= 5; i++) {
    const report = await conformOn(target, { dredd: true, phases: [], strict: true, onProgress: (e) => e.type === 'wait' && waits.push(e.why) });
    const problems = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned').map((r) => `${r.id}: ${r.failures[0]?.message}`);
    assert.equal(problems, [], `run ${i}`);
    assert.equal(report.pacing.attributed, [], `run ${i} met a 429`);
  }
  // Each run sends 8 requests without a key (5 of its own, 3 of Dredd's) against an allowance of 30:
  // the fourth waits for the window instead of using the last one up.
  assert.ok(
    waits.some((w) => /the address \(requests without a valid key\) has \d+ of 30 requests left/.test(w)),
    waits.join('\n'),
  );
});

diagnosis.run();

const tls = suite('TLS');
let dir: string;
let proxy: FlawProxy;
let cert: string;

tls.before(async () => {
  target = await startTarget();
  dir = await mkdtemp(join(tmpdir(), 'conform-tls-'));
  const made = await selfSignedCertificate(dir);
  cert = made.cert;
  proxy = await startFlawProxy(target.baseUrl.replace(/\/v1$/, ''), {}, { key: made.key, cert });
});
tls.after(async () => {
  await proxy.close();
  await target.stop();
  await rm(dir, { recursive: true, force: true });
});

const overrides = () => ({ clock: target.clock, sleep: async (ms: number) => target.clock.advance(ms) });

tls('an untrusted certificate is named as a TLS failure, exit 2', async () => {
  const { io, err } = capture();
  assert.is(await main(['--base-url', `${proxy.origin}/v1`, '--api-key', 'test-pro-key', '--no-dredd'], io, overrides()), 2);
  assert.match(
    err.join(''),
    /TLS: the certificate is self-signed and not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\) at https:\/\/127\.0\.0\.1:\d+\/v1\/pets\. Pass --ca <file>/,
  );
});

tls('--ca trusts it, Dredd included; --insecure skips verification', async () => {
  await writeFile(join(dir, 'ca.pem'), cert);
  const trusted = capture();
  assert.is(
    await main(
      ['--base-url', `${proxy.origin}/v1`, '--api-key', 'test-pro-key', '--ca', join(dir, 'ca.pem'), '--phases', 'none', '--strict'],
      trusted.io,
      overrides(),
    ),
    0,
    trusted.out.join('') + trusted.err.join(''),
  );
  assert.match(trusted.out.join(''), /Dredd: 8 pass/);
  const insecure = capture();
  assert.is(
    await main(['--base-url', `${proxy.origin}/v1`, '--api-key', 'test-pro-key', '--insecure', '--no-dredd', '--phases', 'none'], insecure.io, overrides()),
    0,
    insecure.err.join(''),
  );
});

tls.run();
