// The judging proxy between real clients and real servers: a misbehaving client and the reference
// server (in-process, on a manual clock the client moves instead of waiting), a well-behaved client
// and the Prism mock; the findings each exchange raised, the reports in every format, keys nowhere,
// and the exit code of --fail-on from the package command, stopped by SIGTERM.
import type { Server } from '@hapi/hapi';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startFlawProxy, type FlawProxy, type ProxyRequest } from '../conformance/testing/flaws/proxy.ts';
import { startTarget, type Target } from '../conformance/testing/flaws/harness.ts';
import { startMock, type RunningMock } from '../conformance/mock.ts';
import { spawnChild, stopChild } from '../lib/processes.ts';
import { ManualClock } from '../server/clock.ts';
import { createServer } from '../server/server.ts';
import { ROOT } from '../server/testing/process.ts';
import { parseProxyCli, runProxy, type ProxyCliOptions } from './cli.ts';
import { MISBEHAVING_KEY, misbehavingClientTimeline, misbehavingRequests, START_MS } from './testing/pictures.ts';
import type { ProxyReport } from './report.ts';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../lib/testing/chromium.ts';
import { selfSignedCertificate } from '../lib/testing/tls.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';

const BAD_KEY = MISBEHAVING_KEY;
const GOOD_KEY = 'prism-good-client-key-0123456789';

function options(target: string, dir: string, extra: string[] = []): ProxyCliOptions {
  const parsed = parseProxyCli(
    [
      '--target',
      target,
      '--port',
      '0',
      '--json',
      join(dir, 'r.json'),
      '--junit',
      join(dir, 'r.xml'),
      '--html',
      join(dir, 'r.html'),
      '--har',
      join(dir, 'r.har'),
      ...extra,
    ],
    {},
  );
  if (parsed === 'help') throw new Error('unexpected --help');
  return parsed;
}

/** Runs the proxy while `client` talks through it; returns the console output and the report. */
async function through(opts: ProxyCliOptions, clock: ManualClock, client: (url: string) => Promise<void>): Promise<{ out: string; report: ProxyReport }> {
  let out = '';
  const report = await runProxy(opts, { until: client, stdout: (t) => (out += t), clock, dateHeader: false, sleep: async (ms) => clock.advance(ms) });
  process.stdout.write(out.replace(/^/gm, '  | '));
  return { out, report };
}

const reference = suite('proxy: a misbehaving client and the reference server');
let server: Server | undefined;
let dir: string;
let clock: ManualClock;

reference.before(async () => {
  clock = new ManualClock(START_MS);
  dir = await mkdtemp(join(tmpdir(), 'proxy-test-'));
  server = await createServer({ host: '127.0.0.1', port: 0, clock, storage: { type: 'memory' } });
  await server.start();
});
reference.after(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Never waits for Retry-After, keeps on while banned, and reads single pets with the deprecated getPet. */
async function misbehave(url: string): Promise<void> {
  for (const { path } of misbehavingRequests()) {
    await (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${MISBEHAVING_KEY}` } })).arrayBuffer();
    clock.advance(100);
  }
}

reference('the client breaks every obligation; the reference server breaks no rule', async () => {
  const { out, report } = await through(options(server!.info.uri, dir, ['--fail-on', 'must']), clock, misbehave);
  const [key] = report.keys;
  assert.is(report.keys.length, 1);
  assert.is(key!.requests, 100);
  const client = report.findings.filter((f) => f.side === 'client').map((f) => `${f.level} ${f.id}`);
  assert.equal(
    new Set(client),
    new Set(['must client.waits-retry-after', 'must client.backs-off', 'must client.stops-while-banned', 'should client.avoids-deprecated']),
  );
  assert.equal(
    report.findings.filter((f) => f.side === 'server' && f.level === 'must').map((f) => `${f.id}: ${f.message}`),
    [],
  );
  assert.ok(
    key!.server.some((r) => r.id === 'ratelimit.exhaustion-exact' && r.outcome === 'passed'),
    'the windows were judged, and held',
  );
  assert.ok(key!.server.some((r) => r.id === 'schema.every-response' && r.outcome === 'passed'));
  assert.is(key!.client?.ready, false);
  assert.is(report.exitCode, 1);
  // One line per finding as it happened, then the report per key.
  assert.match(out, /^ +\+\d+\.\d s +test…\(13 chars\) +client MUST +client\.waits-retry-after: .*\(#\d+\)$/m);
  assert.match(out, /test…\(13 chars\): 100 requests, \d+ refused +server: 0 failed/);
  // The timeline drew the refusals, their Retry-After and the ban.
  const points = key!.timeline.points;
  assert.ok(
    points.some((p) => p.ban),
    'the ban is on the timeline',
  );
  assert.ok(points.filter((p) => p.status === 429).every((p) => typeof p.retryAfterMs === 'number'));
  const marked = points.flatMap((p) => (p.violations ?? []).map((v) => v.kind));
  assert.equal(
    marked.sort(),
    ['client.avoids-deprecated', 'client.backs-off', 'client.stops-while-banned', 'client.waits-retry-after'],
    'each obligation is marked where it was first broken',
  );
  // The guide's picture is this very timeline (drawn by npm run generate without a network).
  assert.equal(points, (await misbehavingClientTimeline()).points);
});

reference('every report holds the key only as its first characters', async () => {
  const files = await Promise.all(['r.json', 'r.xml', 'r.html', 'r.har'].map((f) => readFile(join(dir, f), 'utf8')));
  for (const text of files) assert.not.ok(text.includes(BAD_KEY), 'the key is redacted');
  const [json, xml, html, har] = files as [string, string, string, string];
  assert.is((JSON.parse(json) as ProxyReport).keys[0]!.key, 'test…(13 chars)');
  assert.match(xml, /<testsuite name="key test…\(13 chars\)" tests="\d+" failures="[1-9]\d*"/);
  assert.match(xml, /<testcase classname="proxy.client" name="client.waits-retry-after \[must\]/);
  assert.match(html, /<svg xmlns="http:\/\/www.w3.org\/2000\/svg" class="rate-limit-timeline"/);
  assert.match(html, /class="tl-ban"/);
  const entries = (
    JSON.parse(har) as { log: { entries: Array<{ request: { headers: Array<{ name: string; value: string }> }; response: { status: number } }> } }
  ).log.entries;
  assert.is(entries.length, 100);
  assert.equal(entries[0]!.request.headers.find((h) => h.name === 'authorization')?.value, 'Bearer test…(13 chars)');
  assert.ok(entries.some((e) => e.response.status === 429));
});

reference('--faults: Prefer delay=<ms> holds the request, then the server answers it; without --faults Prefer goes to the server', async () => {
  const waited: number[] = [];
  for (const [extra, delays, injected] of [
    [['--faults'], [2000], false],
    [[], [], false],
  ] as const) {
    waited.length = 0;
    let status = 0;
    let marker: string | null = 'unset';
    await runProxy(options(server!.info.uri, join(dir, 'delay'), [...extra]), {
      clock,
      dateHeader: false,
      stdout: () => {},
      sleep: async (ms) => void waited.push(ms),
      until: async (url) => {
        const res = await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: 'Bearer test-pro-key', prefer: 'delay=2000' } });
        await res.arrayBuffer();
        status = res.status;
        marker = res.headers.get('x-fault-injected');
      },
    });
    assert.equal(waited, [...delays]);
    assert.is(status, 200);
    assert.is(marker !== null, injected, 'the proxy marks only answers it wrote itself');
  }
});

(chromiumAvailable('the proxy report is not rendered') ? reference : reference.skip)(
  'the HTML report renders offline in Chromium, the ban and the timeline on it',
  async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      const file = pathToFileURL(join(dir, 'r.html')).href;
      await page.goto(file);
      assert.equal(requested, [file], 'the page fetches nothing but itself');
      assert.is(await page.locator('section.key svg.rate-limit-timeline').count(), 1);
      assert.ok((await page.locator('.tl-ban').boundingBox())!.width > 300, 'the ban spans the rest of the picture');
      assert.is(await page.locator('tr[data-verdict="no"]').count(), 4, 'four obligations broken');
      await page.screenshot({ path: join(SCREENSHOTS, 'proxy-report-misbehaving-client.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  },
);

reference.run();

const prism = suite('proxy: a well-behaved client and the Prism mock');
let mock: RunningMock | undefined;
let prismDir: string;
let prismClock: ManualClock;

prism.before(async () => {
  prismClock = new ManualClock(Date.now());
  prismDir = await mkdtemp(join(tmpdir(), 'proxy-prism-'));
  mock = await startMock({ port: 0, now: () => prismClock.now(), startTimeoutMs: START_BOUND_MS });
});
prism.after(async () => {
  await mock?.stop();
  await rm(prismDir, { recursive: true, force: true });
});

/** Lists, creates, and after a 429 waits Retry-After, twice as long after a second one. */
async function behave(url: string): Promise<void> {
  const headers = { authorization: `Bearer ${GOOD_KEY}`, 'content-type': 'application/json' };
  const send = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${url}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
    await res.arrayBuffer();
    return res;
  };
  await send('/pets?limit=5');
  prismClock.advance(1000);
  await send('/pets', { method: 'POST', body: JSON.stringify({ name: 'Mochi', categoryId: 2 }) });
  prismClock.advance(1000);
  let wait = 0;
  // The proxy answers these two with 429 in the mock's place (--faults), as a limiter would.
  for (const prefer of ['code=429', 'code=429', '']) {
    const res = await send('/pets?status=available', prefer ? { headers: { prefer } } : {});
    if (res.status !== 429) break;
    wait = Math.max(Number(res.headers.get('retry-after')) * 1000, wait * 2);
    prismClock.advance(wait);
  }
}

prism('the client keeps every obligation; the mock is judged for what a stateless mock cannot do', async () => {
  const { report } = await through(options(mock!.url, prismDir, ['--faults', '--fail-on', 'must']), prismClock, behave);
  const [key] = report.keys;
  assert.is(key!.requests, 5);
  assert.equal(
    report.findings.filter((f) => f.side === 'client'),
    [],
  );
  assert.is(key!.client?.ready, true);
  assert.is(key!.client?.obligations.waitsRetryAfter.verdict, 'yes');
  assert.is(key!.client?.obligations.backsOffExponentially.verdict, 'yes');
  // A mock answers its example: Remaining never falls.
  const server = report.findings.filter((f) => f.side === 'server').map((f) => f.id);
  assert.ok(server.includes('ratelimit.remaining-decrements'), server.join(', '));
  assert.is(report.exitCode, 1, 'a must-level finding about the server fails the run too');
});

prism.run();

const tls = suite('proxy: a staging server over TLS, as conform reaches it');
let staging: Target | undefined;
let stagingTls: FlawProxy | undefined;
let tlsDir: string;
const tenants: Array<string | undefined> = [];

tls.before(async () => {
  staging = await startTarget();
  tlsDir = await mkdtemp(join(tmpdir(), 'proxy-tls-'));
  // A self-signed certificate for 127.0.0.1, in front of the reference server.
  const { key, cert } = await selfSignedCertificate(tlsDir);
  const record = { request: (req: ProxyRequest) => (tenants.push(req.headers['x-tenant']), req) };
  stagingTls = await startFlawProxy(staging.baseUrl.replace(/\/v1$/, ''), record, { key, cert });
});
tls.after(async () => {
  await stagingTls?.close();
  await staging?.stop();
  await rm(tlsDir, { recursive: true, force: true });
});

const twoRequests = (url: string) => async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${GOOD_KEY}` } });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
};

tls('--ca trusts the staging server and --header reaches it; without them the client gets 502 naming the TLS failure', async () => {
  const target = stagingTls!.origin;
  const cases: Array<[string, string[], number, RegExp | null]> = [
    ['--ca', ['--ca', join(tlsDir, 'cert.pem'), '--header', 'X-Tenant: conformance'], 401, null],
    ['--insecure', ['--insecure', '--header', 'X-Tenant: conformance'], 401, null],
    ['neither', [], 502, /TLS: the certificate is self-signed and not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\)/],
  ];
  for (const [name, extra, status, failure] of cases) {
    tenants.length = 0;
    let statuses: number[] = [];
    const { report } = await through(options(target, tlsDir, extra), staging!.clock, async (url) => void (statuses = await twoRequests(url)()));
    assert.equal(statuses, [status, status], name);
    if (failure) {
      assert.equal(tenants, [], `${name}: nothing reached the server`);
      assert.match(JSON.parse(await readFile(join(tlsDir, 'r.har'), 'utf8')).log.entries[0].response.statusText, failure);
    } else {
      assert.equal(tenants, ['conformance', 'conformance'], `${name}: --header reached the server`);
      // An unknown key is refused with a documented 401: the server side has nothing to report.
      assert.equal(
        report.findings.filter((f) => f.side === 'server' && f.level === 'must'),
        [],
        name,
      );
    }
  }
});

tls.run();

const command = suite('proxy: the package command');

command('--fail-on must exits 1 after SIGTERM when a must-level finding was seen, 0 without --fail-on', async () => {
  const target = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' } });
  await target.start();
  try {
    for (const [failOn, expected] of [
      ['must', 1],
      ['none', 0],
    ] as const) {
      const child = spawnChild(
        process.execPath,
        [...sourceArgs('bin/adoption-kit.ts'), 'proxy', '--target', target.info.uri, '--port', '0', '--faults', '--fail-on', failOn],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no start line: ${out}`)), 20_000);
          child.stdout!.on('data', () => {
            const m = /^proxy: (http:\/\/\S+) ->/m.exec(out);
            if (m) {
              clearTimeout(timer);
              resolve(m[1]!);
            }
          });
        });
        // A 429 (injected) and a retry at once: the client did not wait for Retry-After.
        for (const prefer of ['code=429', 'return=minimal'])
          await (await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${BAD_KEY}`, prefer } })).arrayBuffer();
      } finally {
        const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const code = await Promise.race([exit, new Promise<number | null>((resolve) => setTimeout(() => resolve(-1), 15_000))]);
        if (code === -1) await stopChild(child, 'SIGKILL', 1000);
        assert.is(code, expected, out);
      }
      assert.match(out, /client MUST +client\.waits-retry-after/);
      assert.not.ok(out.includes(BAD_KEY));
    }
  } finally {
    await target.stop();
  }
});

command('options are validated once, where they enter', () => {
  const cases: Array<[string[], RegExp]> = [
    [[], /--target is required/],
    [['--target', 'ftp://x'], /must be http/],
    [['--target', 'http://x', '--fail-on', 'may'], /--fail-on must be one of must, should, none/],
    [['--target', 'http://x', '--port', '70000'], /--port must be at most 65535/],
    [['--target', 'http://x', '--ca', '/nonexistent.pem'], /--ca \/nonexistent.pem cannot be read/],
    [['--target', 'http://x', '--insecure', '--ca', 'x.pem'], /exclude each other/],
  ];
  for (const [argv, message] of cases) assert.throws(() => parseProxyCli(argv, {}), message, argv.join(' '));
});

command.run();
