// Three clients, which the report (admin API and `adoption-kit client-report`) must tell apart: one
// that waits Retry-After and backs off, one that loops through 429s, sends while banned and calls
// getPet, and one whose only fault is getPet (a should: still ready). Waiting moves the clock; nothing sleeps.
import type { Server } from '@hapi/hapi';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import { createServer } from '../server.ts';
import { spawnChild } from '../../lib/processes.ts';
import { ROOT } from '../testing/process.ts';
import type { ClientReport } from '../../judge/client-obligations.ts';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../../lib/testing/chromium.ts';
import { sourceArgs } from '../../lib/testing/run-source.ts';

const TOKEN = 'client-report-admin-token';
const t = suite('the client report');
let server: Server;
let clock: ManualClock;

t.before(async () => {
  clock = new ManualClock(Date.UTC(2026, 5, 1));
  server = await createServer({ host: '127.0.0.1', port: 0, clock, faults: true, adminToken: TOKEN });
  await server.start();
});
t.after(() => server.stop());

const call = (key: string, url = '/v1/pets?limit=1') => server.inject({ url, headers: { authorization: `Bearer ${key}` } });
const admin = (method: string, url: string, payload?: object) =>
  server.inject({ method, url: `/__admin${url}`, headers: { authorization: `Bearer ${TOKEN}` }, ...(payload ? { payload } : {}) });

/** Waits Retry-After, and on a further 429 twice as long as the time before. */
async function wellBehaved(key: string, requests: number): Promise<void> {
  let wait = 0;
  for (let i = 0; i < requests; i++) {
    const res = await call(key);
    if (res.statusCode === 429) {
      wait = Math.max(Number(res.headers['retry-after']) * 1000, wait * 2);
      clock.advance(wait);
    } else {
      wait = 0;
      clock.advance(1000);
    }
  }
}

/** Never waits, and still reads single pets with the deprecated getPet. */
async function badlyBehaved(key: string, requests: number): Promise<void> {
  for (let i = 0; i < requests; i++) {
    await call(key, i % 4 === 0 ? '/v1/pets/1' : '/v1/pets?limit=1');
    clock.advance(10);
  }
}

/** The package command, run asynchronously: the server it reads runs in this process. */
async function command(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawnChild(process.execPath, [...sourceArgs('bin/adoption-kit.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { status, stdout, stderr };
}

t('a well-behaved and a badly-behaved client get the verdicts they earned', async () => {
  await call('test-pro-key');
  assert.is((await admin('POST', '/faults', { key: 'test-pro-key', code: 429, count: 3 })).statusCode, 201);
  await wellBehaved('test-pro-key', 8);
  await badlyBehaved('test-free-key', 110);
  for (const url of ['/v1/pets/1', '/v1/pets?limit=1']) {
    await call('test-business-key', url);
    clock.advance(1000);
  }

  const { clients } = JSON.parse((await admin('GET', '/clients')).payload) as { clients: ClientReport[] };
  const good = clients.find((c) => c.plan === 'pro')!;
  const bad = clients.find((c) => c.plan === 'free')!;
  const deprecatedOnly = clients.find((c) => c.plan === 'business')!;
  const verdicts = (c: ClientReport) => Object.fromEntries(Object.entries(c.obligations).map(([name, o]) => [name, o.verdict]));
  assert.equal(verdicts(good), { waitsRetryAfter: 'yes', backsOffExponentially: 'yes', stopsWhileBanned: 'not observed', avoidsDeprecated: 'yes' });
  assert.ok(good.ready);
  assert.is(good.warnings, 0);
  assert.ok(
    good.timeline.slice(1, 4).every((p) => p.status === 429 && p.injected),
    'the scheduled 429s are drawn as injected',
  );
  assert.ok(deprecatedOnly.ready, 'a broken should is a warning');
  assert.is(deprecatedOnly.warnings, 1);
  assert.equal(verdicts(bad), { waitsRetryAfter: 'no', backsOffExponentially: 'no', stopsWhileBanned: 'no', avoidsDeprecated: 'no' });
  assert.not.ok(bad.ready);
  assert.is(bad.warnings, 1);
});

t('adoption-kit client-report prints it and exits 1 while a client is not ready', async () => {
  const run = await command('client-report', '--base-url', `${server.info.uri}/v1`, '--admin-token', TOKEN);
  process.stdout.write(run.stdout.replace(/^/gm, '  | '));
  assert.is(run.status, 1, run.stderr);
  assert.match(run.stdout, /test…\(12 chars\) \(pro\): .* READY/);
  assert.match(run.stdout, /test…\(13 chars\) \(free\): .* NOT READY/);
  assert.match(
    run.stdout,
    /test…\(17 chars\) \(business\): .* READY \(1 warning\)\n {2}not observed.*\n.*\n.*\n {2}no \(warning\) +avoids deprecated operations/,
  );
  assert.match(run.stdout, /no +stops sending while banned +\d+ request\(s\) sent while banned/);
});

const available = chromiumAvailable('the client report page is not rendered');

t("--html draws each key's last requests, the obligations marked where they were first broken", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'client-report-'));
  try {
    const file = join(dir, 'clients.html');
    const run = await command('client-report', '--base-url', server.info.uri, '--admin-token', TOKEN, '--html', file);
    assert.is(run.status, 1, run.stderr);
    const html = await readFile(file, 'utf8');
    assert.not.ok(html.includes('test-free-key') || html.includes('test-pro-key'), 'keys are shown by their first characters only');
    const section = (key: string) => html.slice(html.indexOf(`data-key="${key}"`), html.indexOf('</section>', html.indexOf(`data-key="${key}"`)));
    const bad = section('test…(13 chars)');
    const kinds = [...bad.matchAll(/class="tl-violation tl-(must|should)" data-kind="([a-z.-]+)"/g)].map((m) => m[2]).sort();
    assert.equal(kinds, ['client.avoids-deprecated', 'client.backs-off', 'client.stops-while-banned', 'client.waits-retry-after']);
    assert.match(bad, /class="tl-ban"/);
    assert.match(bad, /class="tl-violation-label tl-must" data-kind="client.stops-while-banned"[^>]*>client.stops-while-banned<\/text>/);
    const warned = section('test…(17 chars)');
    assert.match(warned, /<span class="verdict ready-with-warnings">READY \(1 warning\)<\/span>/);
    assert.match(warned, /<span class="verdict warning">no \(warning\)<\/span>/);
    assert.match(section('test…(12 chars)'), /class="tl-request tl-refused tl-injected"/);
    if (!available) return;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      await page.goto(pathToFileURL(file).href);
      assert.is(requested.length, 1, 'the page fetches nothing but itself');
      assert.is(await page.locator('section.client svg.rate-limit-timeline').count(), 3);
      const shots = SCREENSHOTS;
      await mkdir(shots, { recursive: true });
      await page.screenshot({ path: join(shots, 'client-report.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

t('with a wrong admin token the command says so and exits 2', async () => {
  const wrong = await command('client-report', '--base-url', server.info.uri, '--admin-token', 'not-the-token');
  assert.is(wrong.status, 2);
  assert.match(wrong.stderr, /the admin token was refused/);
});

t.run();
