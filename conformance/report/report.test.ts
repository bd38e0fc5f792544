// The reports of a failing run: the HTML page is one self-contained file that renders in headless
// Chromium without a single network request, shows the verdict of every check and, for a failure,
// its request, response and replay line; the replay line, run by bash, sends the same request again
// (the key read from the environment, never printed).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUE } from '../catalogue.ts';
import { FLAWS } from '../testing/flaws/catalogue.ts';
import { conformOn, startTarget, type Target } from '../testing/flaws/harness.ts';
import type { Report } from '../run.ts';
import { formatConsole } from './console.ts';
import { curlLine } from '../../judge/curl.ts';
import { formatHtml } from './html.ts';
import { formatJson } from './json.ts';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../../lib/testing/chromium.ts';

const run = promisify(execFile);
const test = suite('reports of a failing run');
const KEY = 'test-pro-key';
let target: Target;
let report: Report;

test.before(async () => {
  // A server that answers 500 to names outside ASCII: the coverage phase finds it.
  target = await startTarget(FLAWS.find((f) => f.id === 'name-non-ascii-500'));
  report = await conformOn(target, { apiKey: KEY, phases: ['coverage'], seed: 7 });
});
test.after(async () => {
  await target.stop();
});

test('the failure carries a replay line that names the key by its variable, and bash replays it', async () => {
  const failure = report.results.find((r) => r.id === 'errors.no-server-error')!.failures[0]!;
  const replay = failure.evidence.at(-1)!.replay!;
  assert.match(replay, /^curl -i -X POST '.*\/v1\/pets' /);
  assert.match(replay, /"authorization: Bearer \$CONFORMANCE_API_KEY"/);
  assert.not.ok(replay.includes(KEY));
  const { stdout } = await run('bash', ['-c', replay.replace(/^curl /, 'curl -s ')], { env: { ...process.env, CONFORMANCE_API_KEY: KEY } });
  assert.match(stdout, /^HTTP\/1\.1 500/);
  assert.not.ok(formatJson(report).includes(KEY));
});

test('on the console a should-level check that fell short warned: it is never called failed', () => {
  const failed = report.results.find((r) => r.id === 'errors.no-server-error')!;
  const line = (text: string) => text.split('\n').find((l) => l.includes(` ${failed.id} `))!;
  assert.match(line(formatConsole(report)), new RegExp(`^  FAIL  must .*\\(${failed.failed} of ${failed.judged} failed\\)$`));
  const warned = { ...report, results: report.results.map((r) => (r === failed ? { ...r, level: 'should' as const, outcome: 'warned' as const } : r)) };
  assert.match(line(formatConsole(warned)), new RegExp(`^  WARN  should .*\\(${failed.failed} of ${failed.judged} warned\\)$`));
});

test('curl lines quote what a shell would mangle and send bytes that are not UTF-8 exactly', () => {
  const line = curlLine({
    method: 'POST',
    url: 'http://h/v1/pets',
    headers: { 'x-api-token': 'secret', 'content-type': 'application/json' },
    body: `{"name":"O'Malley\\u0000"}`,
  });
  assert.ok(line.includes(`'{"name":"O'\\''Malley\\u0000"}'`), line);
  assert.ok(line.includes("'x-api-token: <redacted>'"), line);
  const bytes = curlLine({ method: 'POST', url: 'http://h/v1/pets', headers: {}, body: '{"name":"\\xff"}', bytes: Buffer.from([0x7b, 0xff, 0x27, 0x7d]) });
  assert.ok(bytes.endsWith(`--data-binary $'{\\xff\\'}'`), bytes);
});

const available = chromiumAvailable('the HTML report is not rendered');

(available ? test : test.skip)('the HTML report renders in headless Chromium from a file, with no network request', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'conform-html-'));
  const file = join(dir, 'conformance.html');
  await writeFile(file, formatHtml(report));
  const html = await readFile(file, 'utf8');
  assert.not.match(html, /<(link|img|iframe)\b|\bsrc=|https?:\/\/(?!127\.0\.0\.1)[a-z]/i, 'nothing in the page points elsewhere');
  assert.not.ok(html.includes(KEY));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    assert.equal(requested, [pathToFileURL(file).href], 'the page requests nothing but itself');
    assert.equal(errors, []);
    assert.is(await page.locator('tr[data-outcome]').count(), CATALOGUE.length);
    assert.match(await page.title(), /DOES NOT CONFORM/);
    const section = page.locator('section#errors\\.no-server-error');
    assert.match(await section.innerText(), /answered 500/);
    assert.match(await section.locator('pre.curl').first().innerText(), /^curl -i -X POST/);
    await page.getByRole('button', { name: 'failed', exact: true }).click();
    const visible = await page.locator('tr[data-outcome]:visible').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-outcome')));
    assert.ok(visible.length > 0 && visible.every((o) => o === 'failed'), visible.join(','));
    assert.equal(requested.length, 1, 'clicking fetched nothing either');
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();

const windows = suite("the HTML report draws the rate-limit key's windows");

windows('a limiter that serves a retry before Retry-After: the timeline marks the rule where it broke', async () => {
  const flawed = await startTarget(FLAWS.find((f) => f.id === 'serves-during-refusal'));
  try {
    const run = await conformOn(flawed, { rateLimitKey: true, phases: [], banCheck: true, banProbes: 8, seed: 7 });
    assert.ok(run.timeline, 'the report carries the timeline');
    assert.is(run.timeline!.key, 'test…(13 chars)');
    const html = formatHtml(run);
    assert.not.ok(html.includes('test-free-key'));
    assert.match(html, /<h2 id="rate-limit-timeline">/);
    assert.ok((html.match(/class="tl-request /g) ?? []).length >= 62, 'every request of the rate-limit key is drawn');
    assert.match(html, /class="tl-violation tl-must" data-kind="served_before_retry_after"/);
    assert.match(html, /class="tl-retry-after"/);
    if (!available) return;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
      await page.setContent(html);
      const timeline = page.locator('svg.rate-limit-timeline');
      const mark = await page.locator('.tl-violation[data-kind="served_before_retry_after"]').boundingBox();
      const index = await page.locator('.tl-violation[data-kind="served_before_retry_after"]').getAttribute('data-index');
      const served = await page.locator(`.tl-request[data-index="${index}"]`).boundingBox();
      assert.is(await timeline.getAttribute('data-axis'), 'sequence', 'a kit on a manual clock sends faster than a time axis can show');
      assert.ok(mark && served && Math.abs(mark.x + mark.width / 2 - (served.x + served.width / 2)) < 1, 'the rule is marked above the request that broke it');
      const shots = SCREENSHOTS;
      await mkdir(shots, { recursive: true });
      await timeline.screenshot({ path: join(shots, 'conform-report-timeline.png') });
    } finally {
      await browser.close();
    }
  } finally {
    await flawed.stop();
  }
});

windows.run();
