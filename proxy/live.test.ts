// The proxy's live view: the judge as a LiveSource (a misbehaving client against the reference
// server, fed to a real TrafficJudge on a manual clock), a connect with 3,000 keys judged that builds
// only the keys it shows, then the page in Chromium, served by a real proxy in front of a real
// reference server behind its view token, updating while traffic passes and showing the ban; and
// --ui from the command line: the token generated and printed, the feed refused without it.
// With UPDATE_PICTURES=1 its screenshot is written to proxy/live-view.png, the proxy guide's picture.
import type { Server } from '@hapi/hapi';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CheckResult } from '../judge/ledger.ts';
import { loadContract } from '../judge/contract.ts';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../lib/testing/chromium.ts';
import { ManualClock } from '../server/clock.ts';
import { createServer } from '../server/server.ts';
import { TrafficJudge } from './judge.ts';
import { createProxyLiveView, LIVE_PATH, liveKeyOf, proxyLiveSource, type LiveJudge } from './live.ts';
import { createTrafficProxy } from './server.ts';
import { parseProxyCli, runProxy } from './cli.ts';
import { MISBEHAVING_KEY, playMisbehavingClient, START_MS } from './testing/pictures.ts';

const GUIDE_PICTURE = fileURLToPath(new URL('live-view.png', import.meta.url));

test('the judge as a live source: each judged exchange told, the ban, the window and the findings of the key', async () => {
  const clock = new ManualClock(START_MS);
  const judge = new TrafficJudge({ contract: await loadContract(), dateHeader: false });
  const source = proxyLiveSource(judge, clock);
  const told: string[] = [];
  const stop = source.subscribe((label) => told.push(label));
  try {
    await playMisbehavingClient(judge, clock);
  } finally {
    stop();
  }
  assert.is(told.length, 100, 'told after each exchange');
  assert.equal(new Set(told), new Set(['test…(13 chars)']), 'by the label, never the key');
  assert.is(source.key(MISBEHAVING_KEY), undefined, 'the whole key names nothing');

  const key = source.key('test…(13 chars)')!;
  assert.is(key.requests, 100);
  assert.ok(key.refused > 30);
  assert.ok(key.banned, 'banned: the ban the server announced lasts past now');
  assert.ok(key.bannedUntilMs! > clock.now());
  assert.is(key.limit, 60, 'Limit of the last answer');
  assert.is(key.remaining, 0);
  assert.ok(key.resetAtMs! > START_MS);
  assert.equal(
    key.findings
      .filter((f) => f.side === 'client')
      .map((f) => `${f.level} ${f.id}`)
      .sort(),
    ['must client.backs-off', 'must client.stops-while-banned', 'must client.waits-retry-after', 'should client.avoids-deprecated'],
  );
  assert.ok(
    key.findings.every((f) => f.message.length > 0),
    'each finding says what was seen',
  );
  assert.equal(key.client, { ready: false, warnings: 1 });
  assert.is(key.timeline.points.length, 100);
  assert.equal(source.list({ limit: 50 }), { labels: ['test…(13 chars)'], total: 1, matched: 1 });

  clock.advance(key.bannedUntilMs! - clock.now() + 1);
  assert.not.ok(source.key('test…(13 chars)')!.banned, 'the ban is over once its end has passed');
});

test("a key's findings: each failure of a failed or warned server check, then the client's broken obligations; the last 20 kept", () => {
  const check = (id: string, level: 'must' | 'should', outcome: CheckResult['outcome'], messages: string[]): CheckResult => ({
    id,
    level,
    profile: 'full',
    section: '',
    title: `the title of ${id}`,
    outcome,
    judged: messages.length + 1,
    failed: messages.length,
    failures: messages.map((message) => ({ message, evidence: [] })),
    notes: [],
  });
  const messages = Array.from({ length: 22 }, (_, i) => `GET /v1/pets #${i + 1}: X-RateLimit-Remaining went up`);
  const key = liveKeyOf(
    {
      key: 'abcdef…',
      requests: 30,
      refused: 0,
      server: [
        check('ratelimit.remaining-decrements', 'must', 'failed', messages),
        check('deprecation.sunset', 'should', 'warned', ['no Sunset']),
        check('schema.every-response', 'must', 'passed', []),
      ],
      timeline: { key: 'abcdef…', points: [{ atMs: 1, status: 200, limit: 10, remaining: 9, resetAtMs: 60_000 }] },
    },
    2,
  );
  assert.is(key.findingsDropped, 3);
  assert.equal(
    key.findings.map((f) => `${f.side} ${f.level} ${f.id}: ${f.message}`),
    [...messages.slice(3).map((m) => `server must ratelimit.remaining-decrements: ${m}`), 'server should deprecation.sunset: no Sunset'],
  );
  assert.is(key.client, undefined, 'no verdict without a client report');
  assert.equal([key.limit, key.remaining, key.resetAtMs, key.banned, key.bannedUntilMs], [10, 9, 60_000, false, null]);
});

test('3,000 keys judged: a watcher connecting builds the 50 it is shown (findings first, then the busiest), never the report of every key', async () => {
  const listeners = new Set<(label: string) => void>();
  const built: string[] = [];
  const labels = Array.from({ length: 3000 }, (_, i) => `key-${i}…`);
  const judge: LiveJudge & { report(): never } = {
    subscribe: (listener) => (listeners.add(listener), () => void listeners.delete(listener)),
    keyReport: (label) => {
      built.push(label);
      return { key: label, requests: 1, refused: 0, server: [], timeline: { key: label, points: [{ atMs: 1, status: 200 }] } };
    },
    report: () => {
      throw new Error('the live view asked for the report of every key');
    },
  };
  const token = 'a-view-token-for-the-test';
  const view = createProxyLiveView(judge, { token, maxKeys: 3000 });
  const tell = (label: string) => listeners.forEach((listener) => listener(label));
  for (const label of labels) tell(label);
  for (let i = 0; i < 5; i++) tell('key-2999…');
  view.found('key-7…');
  const { createServer: createHttpServer } = await import('node:http');
  const server = createHttpServer((req, res) => void view.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const controller = new AbortController();
    const res = await fetch(`${url}${LIVE_PATH}/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    assert.is(res.status, 200);
    const reader = res.body!.getReader();
    let text = '';
    for (let i = 0; i < 1000 && (text.match(/^event: key$/gm)?.length ?? 0) < 50; i++) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const shown = [...text.matchAll(/^data: (\{"key".*)$/gm)].map((m) => JSON.parse(m[1]!).key as string);
    assert.is(shown.length, 50);
    assert.equal(shown.slice(0, 2), ['key-7…', 'key-2999…'], 'the key with a finding, then the busiest');
    assert.is(built.length, 50, 'one report per key shown, and no other');
    assert.equal(JSON.parse(/^event: hello\ndata: (.*)$/m.exec(text)![1]!).keys, 3000);
  } finally {
    view.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

const LIMIT = 5;
const KEY = 'live-view-client-key';
const CALM_KEY = 'calm-client-key';

(chromiumAvailable('the live view is not rendered') ? test : test.skip)(
  'in Chromium: the live view through a real proxy updates while traffic passes and shows the ban',
  async () => {
    // A small plan and a ban at the third refusal: the ban comes after eight requests.
    const target: Server = await createServer({
      host: '127.0.0.1',
      port: 0,
      storage: { type: 'memory' },
      logger: false,
      apiKeys: [
        { key: KEY, plan: 'free', limits: { perMinute: LIMIT, perDay: 1000 } },
        { key: CALM_KEY, plan: 'free', limits: { perMinute: 100, perDay: 1000 } },
      ],
      rateLimit: { ban: { threshold: 3 } },
    });
    await target.start();
    let view: ReturnType<typeof createProxyLiveView> | undefined;
    const proxy = createTrafficProxy({
      target: target.info.uri,
      host: '127.0.0.1',
      port: 0,
      contract: await loadContract(),
      timeoutMs: 10_000,
      own: (req, res) => view?.handle(req, res) ?? false,
    });
    const token = 'the-view-token-of-the-test';
    view = createProxyLiveView(proxy.judge, { target: target.info.uri, token });
    const browser = await launchChromium();
    try {
      const url = await proxy.start();
      const send = async (key: string, count: number) => {
        for (let i = 0; i < count; i++) await (await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer();
      };
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(`${url}${LIVE_PATH}#token=${token}`);
      await page.locator('#status[data-state="live"]').waitFor();
      assert.not.match(page.url(), /token/, 'the token is out of the address bar');
      assert.ok(await page.locator('#empty').isVisible(), 'says it waits for traffic');

      const section = page.locator('section.key[data-key="live…(20 chars)"]');
      await send(KEY, 2);
      await section.locator('svg.rate-limit-timeline').waitFor();
      await page.locator('section.key[data-key="live…(20 chars)"][data-requests="2"]').waitFor();
      assert.is(await section.locator('.stat-remaining').textContent(), `${LIMIT - 2} / ${LIMIT}`);
      assert.not.ok(await section.locator('.badge.banned').isVisible(), 'not banned yet');

      await send(CALM_KEY, 3);
      await send(KEY, 8);
      await page.locator('section.key[data-key="live…(20 chars)"][data-requests="10"]').waitFor();
      await section.locator('.badge.banned').waitFor({ state: 'visible' });
      assert.is(await section.getAttribute('data-banned'), 'true');
      assert.ok((await section.locator('.tl-ban').count()) > 0, 'the ban is drawn on the timeline');
      await section.locator('ul.findings li[data-id="client.waits-retry-after"]').waitFor();
      assert.is(await section.locator('.badge.client').textContent(), 'client NOT READY');
      assert.is(await page.locator('section.key').count(), 2);
      await page.screenshot({ path: join(SCREENSHOTS, 'proxy-live-view.png'), fullPage: true });
      if (process.env.UPDATE_PICTURES === '1') await copyFile(join(SCREENSHOTS, 'proxy-live-view.png'), GUIDE_PICTURE);

      // A key chosen to break the page arrives as text: its label is what the page shows, nothing runs.
      await send('<img src=x onerror=document.title=1>', 1);
      await page.locator('section.key').nth(2).waitFor();
      assert.is(await page.locator('section.key').nth(2).locator('code.label').textContent(), '<img…(36 chars)');
      assert.is(await page.locator('img').count(), 0);

      // A search shows the keys whose label holds it, and says how many keys there are in all.
      await page.fill('#q', 'calm');
      await page.click('#search button');
      await page.locator('section.key[data-key="calm…(15 chars)"]').waitFor();
      assert.is(await page.locator('section.key').count(), 1);
      const more = (await page.locator('#more').textContent()) ?? '';
      assert.match(more, /^1 of 1 key\(s\) whose label holds .calm. \(3 in all\)$/, more);

      const origin = new URL(url).origin;
      assert.ok(
        requested.every((r) => r.startsWith(`${origin}${LIVE_PATH}`)),
        `the page fetches nothing but itself and its feed: ${requested.join(', ')}`,
      );
      assert.ok(
        requested.every((r) => !r.includes(token)),
        'the token is in no URL the page requested',
      );
      assert.equal(errors, [], 'no error in the page (a CSP violation would be one)');
    } finally {
      await browser.close();
      view.close();
      await proxy.stop();
      await target.stop();
    }
  },
);

test("adoption-kit proxy --ui: the page and its feed on the proxy's port, its token generated and told at start, never forwarded", async () => {
  const options = parseProxyCli(['--target', 'http://127.0.0.1:9', '--port', '0', '--ui'], {});
  if (options === 'help') throw new Error('unexpected --help');
  let out = '';
  await runProxy(options, {
    stdout: (text) => (out += text),
    until: async (url) => {
      const page = await fetch(`${url}${LIVE_PATH}`);
      assert.is(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await page.text(), /data-auth="token"/);
      const refused = await fetch(`${url}${LIVE_PATH}/events`);
      assert.is(refused.status, 401, 'the feed without the token');
      await refused.arrayBuffer();
      const token = new RegExp(`live view: ${url}${LIVE_PATH}#token=(\\S+)\n`).exec(out)?.[1];
      assert.ok(token && token.length >= 32, `the generated token, in the page's URL: ${out}`);
      const events = await fetch(`${url}${LIVE_PATH}/events`, { headers: { authorization: `Bearer ${token}` } });
      assert.is(events.status, 200);
      assert.match(events.headers.get('content-type') ?? '', /^text\/event-stream/);
      await events.body?.cancel();
    },
  });
  assert.match(out, /0 requests/, "the live view is the proxy's own: nothing was forwarded to the target");
});

test('adoption-kit proxy --ui-token: the token given (or PROXY_UI_TOKEN) is the one needed, and is not printed', async () => {
  for (const [argv, env] of [
    [['--ui-token', 'given-view-token'], {}],
    [[], { PROXY_UI_TOKEN: 'given-view-token' }],
  ] as const) {
    const options = parseProxyCli(['--target', 'http://127.0.0.1:9', '--port', '0', '--ui', ...argv], env);
    if (options === 'help') throw new Error('unexpected --help');
    let out = '';
    await runProxy(options, {
      stdout: (text) => (out += text),
      until: async (url) => {
        for (const [authorization, status] of [
          ['Bearer given-view-token', 200],
          ['Bearer another-token', 401],
        ] as const) {
          const res = await fetch(`${url}${LIVE_PATH}/events`, { headers: { authorization } });
          assert.is(res.status, status, authorization);
          await res.body?.cancel();
        }
      },
    });
    assert.not.match(out, /given-view-token/, 'a token given is not printed');
    assert.match(out, /live view: http:\/\/127\.0\.0\.1:\d+\/__adoption-kit\/live \(with the --ui-token given\)/);
  }
  assert.throws(() => parseProxyCli(['--target', 'http://127.0.0.1:9', '--ui', '--ui-token', 'short'], {}), /at least 8/);
});

test('adoption-kit proxy --ui-watchers 1: a second watcher gets 503 with Retry-After and the reason', async () => {
  const options = parseProxyCli(['--target', 'http://127.0.0.1:9', '--port', '0', '--ui', '--ui-token', 'given-view-token', '--ui-watchers', '1'], {});
  if (options === 'help') throw new Error('unexpected --help');
  let out = '';
  await runProxy(options, {
    stdout: (text) => (out += text),
    until: async (url) => {
      const headers = { authorization: 'Bearer given-view-token' };
      const first = await fetch(`${url}${LIVE_PATH}/events`, { headers });
      assert.is(first.status, 200);
      const second = await fetch(`${url}${LIVE_PATH}/events`, { headers });
      assert.is(second.status, 503);
      assert.is(second.headers.get('retry-after'), '30');
      assert.is(await second.text(), 'The live view is full: it takes 1 watcher at once; try again in 30 s.\n');
      await first.body?.cancel();
    },
  });
  assert.match(out, /live view: 0 watcher\(s\) dropped for not reading, 1 turned away \(--ui-watchers 1\)\n/, 'counted, and told at exit');
});

test.run();
