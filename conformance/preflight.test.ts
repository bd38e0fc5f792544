// The preflight and the pacer: a wrong base URL or key ends the run at once with exit 2 and one
// message, a target over TLS is checked with --ca or --insecure and its certificate failure named
// as such, and the kit run again and again against one reference server never locks itself out.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { selfSignedCertificate } from '../lib/testing/tls.ts';
import { main } from './cli.ts';
import { conformOn, startTarget, type Target } from './testing/faults/harness.ts';
import { startFaultProxy, type FaultProxy } from './testing/faults/proxy.ts';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) }, out, err };
}

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

diagnosis('a refused key: exit 2, one message naming the code the target sent, the key redacted', async () => {
  const { io, err } = capture();
  assert.is(await main(['--base-url', target.baseUrl, '--api-key', 'not-a-real-key-123'], io), 2);
  assert.match(
    err.join(''),
    /the target refused --api-key: GET .*\/v1\/pets answered 401 \(invalid_api_key: The API key is not valid\.\) to Bearer not-a-…\(18 chars\)/,
  );
  assert.not.ok(err.join('').includes('not-a-real-key-123'));
});

diagnosis('a target that keeps the address blocked longer than --max-wait: exit 2 naming the code and Retry-After', async () => {
  // 30 keyless requests use up the allowance, 20 refusals block the address for 600 s.
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
let proxy: FaultProxy;
let cert: string;

tls.before(async () => {
  target = await startTarget();
  dir = await mkdtemp(join(tmpdir(), 'conform-tls-'));
  const made = await selfSignedCertificate(dir);
  cert = made.cert;
  proxy = await startFaultProxy(target.baseUrl.replace(/\/v1$/, ''), {}, { key: made.key, cert });
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
