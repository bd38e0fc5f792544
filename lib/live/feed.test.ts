// The live view's feed and handler over real sockets, its ticks fired by hand: every key on connect,
// a flood of traffic coalesced into one render per changed key per tick, a watcher that does not read
// dropped while the others go on, close() ending every stream (the server's close() then finishes and
// no timer holds the process), a hostile key label kept inside its one event, and the page's policy.
import { createHash } from 'node:crypto';
import { createServer, get, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LiveFeed, type LiveEvent, type Timer } from './feed.ts';
import { LIVE_PAGE_CSP, livePage } from './page.ts';
import { Listeners, type LiveKey, type LiveSource } from './source.ts';
import { createLiveView } from './view.ts';

const INTERVAL = 300;

function liveKey(label: string, requests = 1, extra: Partial<LiveKey> = {}): LiveKey {
  return {
    key: label,
    requests,
    refused: 0,
    banned: false,
    bannedUntilMs: null,
    limit: 60,
    remaining: 60 - requests,
    resetAtMs: 60_000,
    findings: [],
    findingsDropped: 0,
    timeline: { key: label, points: [{ atMs: 1000, status: 200, limit: 60, remaining: 60 - requests, resetAtMs: 60_000 }] },
    ...extra,
  };
}

/** Keys set by the test; counts how often the feed asked for one. */
function fakeSource(...keys: LiveKey[]) {
  const known = new Map(keys.map((k) => [k.key, k]));
  const listeners = new Listeners();
  let asked = 0;
  let subscribed = 0;
  const source: LiveSource = {
    now: () => 1000,
    keys: () => [...known.values()],
    key: (label) => {
      asked++;
      return known.get(label);
    },
    subscribe: (listener) => {
      subscribed++;
      const stop = listeners.add(listener);
      return () => {
        subscribed--;
        stop();
      };
    },
  };
  return {
    source,
    set: (key: LiveKey) => known.set(key.key, key),
    tell: (label: string) => listeners.tell(label),
    asked: () => asked,
    subscribed: () => subscribed,
  };
}

/** A timer the test fires: `fire(ms)` runs what was scheduled for `ms` (the tick, or the heartbeat). */
function handTimer() {
  const pending: Array<{ run: () => void; ms: number; live: boolean }> = [];
  const timer: Timer = (run, ms) => {
    const entry = { run, ms, live: true };
    pending.push(entry);
    return () => void (entry.live = false);
  };
  return {
    timer,
    armed: (ms: number) => pending.filter((p) => p.live && p.ms === ms).length,
    fire(ms: number): number {
      const due = pending.filter((p) => p.live && p.ms === ms);
      for (const p of due) {
        p.live = false;
        p.run();
      }
      return due.length;
    },
  };
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const closed = (server: Server) => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));

/** A watcher that reads everything; `events` are parsed as they come. */
function watch(url: string) {
  const events: Array<{ name: string; data: string }> = [];
  let text = '';
  let ended = false;
  let headers: Record<string, string | string[] | undefined> = {};
  const ready = new Promise<void>((resolve, reject) => {
    get(url, (res) => {
      headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          const name = /^event: (.*)$/m.exec(frame)?.[1];
          const data = [...frame.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).join('\n');
          if (name) events.push({ name, data });
        }
      });
      res.on('close', () => (ended = true));
      resolve();
    }).on('error', reject);
  });
  return {
    ready,
    events,
    headers: () => headers,
    ended: () => ended,
    keyEvents: () => events.filter((e) => e.name === 'key').map((e) => JSON.parse(e.data) as LiveEvent),
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(condition(), what);
}

test('a watcher gets every key on connect, then each changed key once per tick however much traffic passed', async () => {
  const keys = fakeSource(liveKey('alpha…'), liveKey('beta…'));
  const clock = handTimer();
  const feed = new LiveFeed({ source: keys.source, intervalMs: INTERVAL, timer: clock.timer });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  try {
    const w = watch(url);
    await w.ready;
    await until(() => w.keyEvents().length === 2, 'one event per key on connect');
    assert.match(String(w.headers()['content-type']), /^text\/event-stream/);
    assert.equal(
      w.keyEvents().map((e) => e.key),
      ['alpha…', 'beta…'],
    );
    assert.match(w.keyEvents()[0]!.svg, /^<svg [^>]*class="rate-limit-timeline"/);
    assert.is(w.events[0]!.name, 'hello');

    const asked = keys.asked();
    for (let i = 2; i <= 1000; i++) {
      keys.set(liveKey('alpha…', i));
      keys.tell('alpha…');
      keys.tell('beta…');
    }
    assert.is(clock.armed(INTERVAL), 1, 'one tick armed for the whole flood');
    assert.is(keys.asked(), asked, 'nothing rendered before the tick');
    assert.is(clock.fire(INTERVAL), 1);
    assert.is(keys.asked() - asked, 2, 'each changed key rendered once');
    await until(() => w.keyEvents().length === 4, 'one event per changed key');
    assert.equal(
      w
        .keyEvents()
        .slice(2)
        .map((e) => [e.key, e.requests]),
      [
        ['alpha…', 1000],
        ['beta…', 1],
      ],
    );
    assert.is(clock.armed(INTERVAL), 0, 'no tick while nothing changes');
  } finally {
    feed.close();
    await closed(server);
  }
});

test('a watcher that does not read is dropped; the others go on', async () => {
  // Each event is half a megabyte: a socket nobody reads fills its kernel buffers after a few.
  const big = (n: number) => liveKey('big…', n, { findings: [{ side: 'server', id: 'x', level: 'must', message: 'x'.repeat(512 * 1024) }] });
  const keys = fakeSource(big(1));
  const clock = handTimer();
  const feed = new LiveFeed({ source: keys.source, intervalMs: INTERVAL, timer: clock.timer, maxBufferedBytes: 256 * 1024 });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  const { port } = new URL(url);
  const stuck = connect(Number(port), '127.0.0.1');
  const connected = new Promise<void>((resolve) => stuck.once('connect', resolve));
  try {
    const reader = watch(url);
    await reader.ready;
    await connected;
    stuck.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    stuck.pause();
    await until(() => feed.watchers === 2, 'both watchers connected');
    for (let n = 2; n < 200 && feed.dropped === 0; n++) {
      keys.set(big(n));
      keys.tell('big…');
      clock.fire(INTERVAL);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.is(feed.dropped, 1, 'the watcher that did not read was dropped');
    assert.is(feed.watchers, 1, 'the reader is still watching');
    const before = reader.keyEvents().length;
    keys.set(big(1000));
    keys.tell('big…');
    clock.fire(INTERVAL);
    await until(() => reader.keyEvents().at(-1)?.requests === 1000, 'the reader still gets every change');
    assert.ok(reader.keyEvents().length > before);
  } finally {
    stuck.destroy();
    feed.close();
    await closed(server);
  }
});

test('a thousand keys on connect (8 MB) are sent as the socket drains: a reader gets them all without being dropped', async () => {
  const findings = [{ side: 'server' as const, id: 'x', level: 'must' as const, message: 'x'.repeat(8 * 1024) }];
  const keys = fakeSource(...Array.from({ length: 1000 }, (_, i) => liveKey(`key-${i}`, 1, { findings })));
  const feed = new LiveFeed({ source: keys.source, timer: handTimer().timer, maxBufferedBytes: 256 * 1024 });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  try {
    const w = watch(url);
    await w.ready;
    await until(() => w.keyEvents().length === 1000, 'every key arrived');
    assert.is(new Set(w.keyEvents().map((e) => e.key)).size, 1000);
    assert.is(feed.dropped, 0);
  } finally {
    feed.close();
    await closed(server);
  }
});

test('close() ends every stream, so the server closes; no timer holds the process; later watchers get 503', async () => {
  const keys = fakeSource(liveKey('alpha…'));
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const feed = new LiveFeed({ source: keys.source, intervalMs: INTERVAL });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  const w = watch(url);
  await w.ready;
  await until(() => w.keyEvents().length === 1, 'connected');
  keys.tell('alpha…');
  assert.is(timers(), before, "the tick and the heartbeat are unref'd");
  assert.is(keys.subscribed(), 1);

  feed.close();
  await closed(server);
  await until(w.ended, 'the stream ended');
  assert.is(keys.subscribed(), 0, 'the feed stopped listening to the source');

  const again = await listen((req, res) => feed.connect(req, res));
  try {
    const status = await new Promise<number | undefined>((resolve) => get(again.url, (res) => (res.resume(), resolve(res.statusCode))));
    assert.is(status, 503);
  } finally {
    await closed(again.server);
  }
});

test('a hostile key label stays inside its one event, escaped in the picture', async () => {
  const label = '</script><img src=x onerror=alert(1)>\n\nevent: key\r\ndata: {"key":"forged"}\u2028';
  const keys = fakeSource(liveKey(label));
  const feed = new LiveFeed({ source: keys.source, timer: handTimer().timer });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  try {
    const w = watch(url);
    await w.ready;
    await until(() => w.keyEvents().length === 1, 'one event');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.is(w.events.filter((e) => e.name === 'key').length, 1, 'no event forged from the label');
    const [event] = w.keyEvents();
    assert.is(event!.key, label, 'the label arrives as it was');
    assert.not.match(event!.svg, /<img|<\/script>/);
    assert.match(event!.svg, /&lt;\/script&gt;&lt;img src=x onerror=alert\(1\)&gt;/);
  } finally {
    feed.close();
    await closed(server);
  }
});

test("the handler answers only its paths; the page's policy allows its own script and style and connections to itself only", async () => {
  const keys = fakeSource();
  const view = createLiveView({ source: keys.source, basePath: '/__adoption-kit/live', title: 'Live <view>', timer: handTimer().timer });
  const { server, url } = await listen((req, res) => {
    if (!view.handle(req, res)) res.writeHead(418).end();
  });
  try {
    const cases: Array<[string, string, number]> = [
      ['GET', '/__adoption-kit/live', 200],
      ['GET', '/__adoption-kit/live/?x=1', 200],
      ['HEAD', '/__adoption-kit/live', 200],
      ['POST', '/__adoption-kit/live', 405],
      ['POST', '/__adoption-kit/live/events', 405],
      ['GET', '/__adoption-kit/livex', 418],
      ['GET', '/v1/pets', 418],
      ['GET', '/__adoption-kit/live/events/more', 418],
    ];
    for (const [method, path, status] of cases) {
      const res = await fetch(`${url}${path}`, { method });
      await res.arrayBuffer();
      assert.is(res.status, status, `${method} ${path}`);
    }
    const res = await fetch(`${url}/__adoption-kit/live`);
    const csp = res.headers.get('content-security-policy')!;
    const html = await res.text();
    assert.is(csp, LIVE_PAGE_CSP);
    assert.match(html, /<title>Live &lt;view&gt;<\/title>/);
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
    const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    assert.ok(csp.includes(`script-src ${sha(script)}`), 'the inline script is allowed by its hash');
    assert.ok(csp.includes(`style-src ${sha(style)}`), 'the inline style by its hash');
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /connect-src 'self'/);
    assert.equal(
      [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]),
      ['data:,'],
      'nothing to load but the page (its icon is empty, so no /favicon.ico is asked for)',
    );
    assert.not.match(script, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, 'text goes in with textContent, SVG through DOMParser');
    assert.match(livePage({ title: 't', eventsUrl: '/e', token: true }), /data-auth="token"/);
  } finally {
    view.close();
    await closed(server);
  }
});

test.run();
