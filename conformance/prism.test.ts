// A real Prism mock (one per file, on a free port): the contract profile passes against it, with
// Prefer for the one status a stateless mock cannot choose; the full profile fails, naming the
// behaviours a stateless mock cannot have, exactly as the guide lists them.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { guideBlock } from '../scripts/guide-blocks.ts';
import { CATALOGUE } from './catalogue.ts';
import { main } from './cli.ts';
import { startMock, type RunningMock } from './mock.ts';
import { runConformance } from './run.ts';
import { transcript } from './testing/prism-guide.ts';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';

const test = suite('Prism mock');
let mock: RunningMock;
const KEY = 'prism-secret-key-0123456789';

/** The mock is started as if an hour ago: what it answers must not depend on how long it has been up. */
const UP_FOR_MS = 3_600_000;

test.before(async () => {
  mock = await startMock({ port: 0, now: () => Date.now() - UP_FOR_MS, startTimeoutMs: START_BOUND_MS });
});
test.after(async () => {
  await mock?.stop();
});

test('contract profile passes with --prefer, Dredd included, and says where Prefer was used', async () => {
  const report = await runConformance({ baseUrl: mock.url, apiKey: KEY, profile: 'contract', prefer: true });
  const failed = report.results.filter((r) => r.outcome === 'failed');
  assert.equal(
    failed.map((r) => `${r.id}: ${r.failures[0]?.message}`),
    [],
  );
  assert.is(report.exitCode, 0);
  assert.is(report.results.find((r) => r.id === 'dredd.transactions')?.outcome, 'passed');
  assert.ok((report.dredd?.transactions.length ?? 0) >= 8);
  assert.equal(report.preferUsed.sort(), ['dredd.transactions', 'get.404']);
  // Behaviour checks are outside the contract profile: reported as not run, never as passed.
  for (const def of CATALOGUE.filter((c) => c.profile === 'full')) {
    assert.is(report.results.find((r) => r.id === def.id)?.outcome, 'not-run', def.id);
  }
});

test("without --prefer the contract profile fails only on the 404 a stateless mock cannot choose: the kit's and Dredd's", async () => {
  const report = await runConformance({ baseUrl: mock.url, apiKey: KEY, profile: 'contract' });
  const failed = report.results.filter((r) => r.outcome === 'failed').map((r) => r.id);
  assert.equal(failed, ['get.404', 'dredd.transactions']);
  const dreddFailed = report.dredd?.transactions.filter((t) => t.status === 'fail').map((t) => t.name);
  assert.equal(dreddFailed, ['/pets/{petId} > Get an animal (deprecated) > 404 > application/json']);
});

test('full profile fails, naming what a stateless mock cannot do', async () => {
  const report = await runConformance({ baseUrl: mock.url, apiKey: KEY, rateLimitKey: `${KEY}-rl`, profile: 'full', prefer: true, dredd: false, wait: false });
  const failed = new Set(report.results.filter((r) => r.outcome === 'failed').map((r) => r.id));
  const stateless = [
    'auth.401-unknown-key', // any bearer token is accepted
    'create.echo', // the 201 is the example, not the pet sent
    'create.retrievable', // nothing is stored
    'create.unique-ids', // every pet gets id 11
    'create.listed',
    'list.limit', // the example array whatever limit says
    'list.status-filter', // the example array whatever status says
    'get.404-unknown', // without Prefer every id exists
    'list.next-link', // the example Link names /v1, which the mock does not serve
    'ratelimit.remaining-decrements', // the example Remaining, always 59
    'ratelimit.exhaustion-exact', // never a 429
  ];
  for (const id of stateless) assert.ok(failed.has(id), `${id} should fail against a stateless mock`);
  assert.is(report.exitCode, 1);
  // The mock sends the server's Deprecation form on every answer of getPet, errors included.
  assert.is(report.results.find((r) => r.id === 'deprecation.header')?.outcome, 'passed');
  // Contract-level results still hold: the failures are about behaviour.
  for (const id of ['list.200', 'create.201', 'get.200', 'auth.401-missing', 'headers.rate-limit']) {
    assert.is(report.results.find((r) => r.id === id)?.outcome, 'passed', id);
  }
});

test("the guide's list of what the full profile fails on is what its line prints against a real Prism", async () => {
  const guide = guideBlock('conformance/README.md', 'prism-full');
  assert.fixture(await transcript(guide, mock.url), guide, 'run: npx tsx conformance/testing/prism-guide.ts --write');
});

test('the CLI writes JUnit and JSON reports, with the key redacted', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'conform-cli-'));
  try {
    const out: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) };
    const junit = join(dir, 'reports', 'conformance.xml');
    const json = join(dir, 'conformance.json');
    const code = await main(['--base-url', mock.url, '--api-key', KEY, '--profile', 'contract', '--no-dredd', '--junit', junit, '--json', json], io);
    assert.is(code, 1, out.join('')); // get.404 without --prefer
    const text = out.join('');
    assert.match(text, /FAIL {2}must {4}get\.404/);
    assert.match(text, /> GET http:\/\/127\.0\.0\.1:\d+\/pets\/9007199254740991/);
    assert.match(text, /Summary\n {2}passed +\d+\n {2}failed +1\n/);
    const xml = await readFile(junit, 'utf8');
    assert.is((xml.match(/<testcase /g) ?? []).length, CATALOGUE.length);
    assert.match(xml, /<failure message="expected 404, got 200" type="must">/);
    assert.match(xml, /<skipped message="behaviour check: not part of the contract profile"\/>/);
    const report = JSON.parse(await readFile(json, 'utf8')) as { exitCode: number; results: Array<{ id: string; outcome: string }> };
    assert.is(report.exitCode, 1);
    assert.is(report.results.find((r) => r.id === 'get.404')?.outcome, 'failed');
    const raw = await readFile(json, 'utf8');
    assert.not.ok(raw.includes(KEY), 'the API key appears in the JSON report');
    assert.ok(raw.includes('pris…(27 chars)'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
