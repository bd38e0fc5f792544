// The reference server's live view at /__admin/live: the shell without the token and without data,
// the feed only with the admin token, built from the keys it shows (never the recorder's whole report),
// at most 100 watchers (503 past them), stop() not held by an open stream, and in Chromium the page,
// given the token in its URL's fragment or its form, updating while a client sends and showing its ban.
import type { Server } from '@hapi/hapi';
import { get } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../../lib/testing/chromium.ts';
import { eventually } from '../../lib/testing/eventually.ts';
import { createServer } from '../server.ts';
import { LIVE_VIEW_PATH } from './live-view.ts';

const TOKEN = 'live-view-admin-token';
const KEY = 'live-view-client-key';
const LIMIT = 5;

/** A small plan and a ban at the third refusal: the key is banned at its eighth request. */
const build = (admin = true) =>
  createServer({
    host: '127.0.0.1',
    port: 0,
    storage: { type: 'memory' },
    logger: false,
    ...(admin ? { adminToken: TOKEN } : {}),
    apiKeys: [
      { key: KEY, plan: 'free', limits: { perMinute: LIMIT, perDay: 1000 } },
      { key: 'calm-client-key', plan: 'pro' },
    ],
    rateLimit: { ban: { threshold: 3 } },
  });

const t = suite('the live view of the reference server');
let server: Server;

t.before(async () => {
  server = await build();
  await server.start();
});
t.after(() => server.stop());

t('the page is a shell served without the token; the feed needs the admin token', async () => {
  await server.inject({ url: '/v1/pets?limit=1', headers: { authorization: `Bearer ${KEY}` } });
  const page = await server.inject({ url: LIVE_VIEW_PATH });
  assert.is(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.match(String(page.headers['content-security-policy']), /default-src 'none'.*connect-src 'self'/);
  assert.match(page.payload, /data-auth="token"/);
  assert.not.match(page.payload, /live-vie|rate-limit-timeline/, 'no data in the shell');

  for (const authorization of [undefined, 'Bearer not-the-admin-token', `Bearer ${KEY}`]) {
    const res = await server.inject({ url: `${LIVE_VIEW_PATH}/events`, ...(authorization ? { headers: { authorization } } : {}) });
    assert.is(res.statusCode, 401, String(authorization));
    assert.is(JSON.parse(res.payload).code, 'invalid_admin_token');
  }
});

t('without an admin token there is no live view', async () => {
  const plain = await build(false);
  try {
    for (const url of [LIVE_VIEW_PATH, `${LIVE_VIEW_PATH}/events`]) assert.is((await plain.inject({ url })).statusCode, 404, url);
  } finally {
    await plain.stop();
  }
});

/** The first bytes of the feed, read with the admin token; `path` may carry a search. */
function firstEvents(uri: string, path = `${LIVE_VIEW_PATH}/events`): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get(`${uri}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (/event: key\n[^\n]*\n\n/.test(text)) {
          req.destroy();
          resolve(text);
        }
      });
    }).on('error', reject);
  });
}

t("a watcher is sent the keys it is shown, each reported alone: never the recorder's whole report", async () => {
  await server.inject({ url: '/v1/pets?limit=1', headers: { authorization: `Bearer ${KEY}` } });
  const { recorder } = server.plugins['client-report']!;
  const report = recorder.report;
  recorder.report = () => {
    throw new Error('the live view asked for the report of every client');
  };
  try {
    const text = await firstEvents(server.info.uri);
    assert.match(text, /"key":"live…\(20 chars\)"/);
    assert.match(text, /"keys":\d+/, 'the hello says how many keys there are');
    assert.match(await firstEvents(server.info.uri, `${LIVE_VIEW_PATH}/events?q=live`), /"search":"live"/);
  } finally {
    recorder.report = report;
  }
});

t('past 100 watchers the feed answers 503 with Retry-After and says why', async () => {
  const own = await build();
  await own.start();
  const { port } = new URL(own.info.uri);
  const sockets = Array.from({ length: 100 }, () => connect(Number(port), '127.0.0.1'));
  try {
    await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<void>((resolve, reject) => {
            socket.on('error', reject);
            socket.once('data', () => resolve());
            socket.write(`GET ${LIVE_VIEW_PATH}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
          }),
      ),
    );
    const res = await fetch(`${own.info.uri}${LIVE_VIEW_PATH}/events`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.is(res.status, 503);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    assert.match(await res.text(), /^The live view is full: it takes 100 watchers at once; try again in \d+ s\.\n$/);
  } finally {
    for (const socket of sockets) socket.destroy();
    await own.stop();
  }
});

t("stop() ends an open stream cleanly instead of waiting for hapi's timeout", async () => {
  const own = await build();
  await own.start();
  let ended = false;
  let aborted = false;
  let first = '';
  await new Promise<void>((resolve, reject) => {
    get(`${own.info.uri}${LIVE_VIEW_PATH}/events`, { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      assert.match(String(res.headers['content-type']), /^text\/event-stream/);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        first ||= chunk;
        resolve();
      });
      res.on('aborted', () => (aborted = true));
      res.on('close', () => (ended = true));
    }).on('error', reject);
  });
  assert.match(first, /event: hello/);
  // A stream still open when the timeout came would be cut (aborted), not ended.
  await own.stop({ timeout: 20_000 });
  await eventually(() => ended, 'the end of the stream');
  assert.not.ok(aborted, 'cleanly');
});

(chromiumAvailable('the live view is not rendered') ? t : t.skip)(
  'in Chromium: with the token in the fragment or the form, the page updates while a client sends and shows its ban',
  async () => {
    const browser = await launchChromium();
    const send = async (key: string, count: number) => {
      for (let i = 0; i < count; i++) await (await fetch(`${server.info.uri}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer();
    };
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));

      // Without the token, the form asks for it; a wrong one is refused; the right one connects.
      const form = await browser.newPage();
      await form.goto(`${server.info.uri}${LIVE_VIEW_PATH}`);
      await form.locator('#status[data-state="waiting"]').waitFor();
      await form.fill('#token', 'not-the-admin-token');
      await form.click('#login button');
      await form.locator('#status[data-state="refused"]').waitFor();
      assert.ok(await form.locator('#login').isVisible(), 'the form asks again');
      await form.fill('#token', TOKEN);
      await form.click('#login button');
      await form.locator('#status[data-state="live"]').waitFor();
      assert.not.ok(await form.locator('#login').isVisible());
      await form.close();

      // With the token in the fragment, which leaves the address bar at once.
      await page.goto(`${server.info.uri}${LIVE_VIEW_PATH}#token=${TOKEN}`);
      await page.locator('#status[data-state="live"]').waitFor();
      assert.not.match(page.url(), /token/, 'the token is out of the address bar');
      const section = page.locator('section.key[data-key="live…(20 chars)"]');
      const before = Number((await section.getAttribute('data-requests')) ?? 0);
      await send(KEY, 2);
      await page.locator(`section.key[data-key="live…(20 chars)"][data-requests="${before + 2}"]`).waitFor();
      assert.is(await section.locator('svg.rate-limit-timeline').count(), 1);
      assert.not.ok(await section.locator('.badge.banned').isVisible(), 'not banned yet');

      await send('calm-client-key', 3);
      await send(KEY, 8);
      await page.locator(`section.key[data-key="live…(20 chars)"][data-requests="${before + 10}"]`).waitFor();
      await section.locator('.badge.banned').waitFor({ state: 'visible' });
      assert.ok((await section.locator('.tl-ban').count()) > 0, 'the ban is drawn on the timeline');
      await section.locator('ul.findings li[data-id="client.stops-while-banned"]').waitFor();
      assert.is(await section.locator('.badge.client').textContent(), 'client NOT READY');
      assert.is(await page.locator('section.key[data-key="calm…(15 chars)"] .badge.client').textContent(), 'client READY');
      await page.screenshot({ path: join(SCREENSHOTS, 'server-live-view.png'), fullPage: true });

      const origin = new URL(server.info.uri).origin;
      assert.ok(
        requested.every((r) => r.startsWith(`${origin}${LIVE_VIEW_PATH}`)),
        `the page fetches nothing but itself and its feed: ${requested.join(', ')}`,
      );
      assert.ok(
        requested.every((r) => !r.includes(TOKEN)),
        'the token is in no URL the page requested',
      );
      assert.equal(errors, []);
    } finally {
      await browser.close();
    }
  },
);

t.run();
