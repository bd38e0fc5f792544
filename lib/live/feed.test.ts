// The live view's feed and handler over real sockets, its ticks and deadlines fired by hand: a page of
// keys on connect whatever the source holds (3,000 keys cost the page, never a report of all), a flood
// of traffic coalesced into one render per changed key per tick shared by every watcher, a watcher that
// does not read dropped when its socket has not drained in time while the others go on, a cap on
// watchers, close() ending every stream (the server's close() then finishes and no timer holds the
// process), a hostile key label kept inside its one event, the token and loopback rules, the page's policy.
import { createHash } from 'node:crypto';
import { createServer, get, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, HANG_BOUND_MS } from '../testing/eventually.ts';
import { LiveFeed, type LiveEvent, type Timer } from './feed.ts';
import { LIVE_PAGE_CSP, livePage } from './page.ts';
import { pickLabels } from './ranks.ts';
import { Listeners, type LiveKey, type LiveSource } from './source.ts';
import { createLiveView, isLoopback } from './view.ts';

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

/** Keys set by the test; counts how often the feed asked for one, and for a listing. */
function fakeSource(...keys: LiveKey[]) {
  const known = new Map(keys.map((k) => [k.key, k]));
  const listeners = new Listeners();
  let asked = 0;
  let listed = 0;
  let subscribed = 0;
  const source: LiveSource = {
    now: () => 1000,
    list: (query) => {
      listed++;
      const ranks = [...known.values()].map((k) => ({ label: k.key, requests: k.requests, findings: k.findings.length }));
      return { ...pickLabels(ranks, query), total: known.size };
    },
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
    listed: () => listed,
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

const until = (condition: () => boolean, what: string): Promise<void> => eventually(condition, what, HANG_BOUND_MS, 5);

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

const DRAIN = 10_000;

test('a watcher that never reads is dropped once its socket has not drained within the bound; the others go on', async () => {
  // Each event is 200 KB: a socket nobody reads fills its kernel buffers (both ends) after some dozens.
  const big = (label: string, n: number) => liveKey(label, n, { findings: [{ side: 'server', id: 'x', level: 'must', message: 'x'.repeat(200 * 1024) }] });
  const labels = Array.from({ length: 20 }, (_, i) => `big-${i}…`);
  const keys = fakeSource(...labels.map((l) => big(l, 1)));
  const clock = handTimer();
  const feed = new LiveFeed({ source: keys.source, intervalMs: INTERVAL, timer: clock.timer, drainTimeoutMs: DRAIN });
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
    let n = 2;
    for (; n < 400 && !(clock.armed(DRAIN) > 0 && reader.keyEvents().at(-1)?.requests === n - 1); n++) {
      for (const l of labels) keys.set(big(l, n));
      for (const l of labels) keys.tell(l);
      clock.fire(INTERVAL);
      await until(() => reader.keyEvents().at(-1)?.requests === n, 'the reader keeps up');
    }
    assert.ok(clock.armed(DRAIN) > 0, 'the socket that is not read filled: its drain deadline is armed');
    assert.is(feed.dropped, 0, 'not dropped before its deadline, however much it holds');
    await until(() => clock.armed(DRAIN) === 1, "only the stuck watcher's deadline is live once the reader's socket drained");
    assert.is(clock.fire(DRAIN), 1);
    assert.is(feed.dropped, 1, 'the watcher that did not read was dropped');
    assert.is(feed.watchers, 1, 'the reader is still watching');
    for (const l of labels) keys.set(big(l, 1000));
    keys.tell(labels[0]!);
    clock.fire(INTERVAL);
    await until(() => reader.keyEvents().at(-1)?.requests === 1000, 'the reader still gets every change');
  } finally {
    stuck.destroy();
    feed.close();
    await closed(server);
  }
});

test('a socket that drains before the deadline keeps its watcher; what changed meanwhile is sent then, once per key', async () => {
  const big = (n: number) => liveKey('big…', n, { findings: [{ side: 'server', id: 'x', level: 'must', message: 'x'.repeat(512 * 1024) }] });
  const keys = fakeSource(big(1));
  const clock = handTimer();
  const feed = new LiveFeed({ source: keys.source, intervalMs: INTERVAL, timer: clock.timer, drainTimeoutMs: DRAIN });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  const { port } = new URL(url);
  const slow = connect(Number(port), '127.0.0.1');
  let received = '';
  slow.setEncoding('utf8');
  slow.on('data', (chunk: string) => (received += chunk));
  try {
    await new Promise<void>((resolve) => slow.once('connect', resolve));
    slow.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    slow.pause();
    await until(() => feed.watchers === 1, 'connected');
    for (let n = 2; n < 100 && clock.armed(DRAIN) === 0; n++) {
      keys.set(big(n));
      keys.tell('big…');
      clock.fire(INTERVAL);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.is(clock.armed(DRAIN), 1, 'its socket filled');
    const rendered = feed.renders;
    for (let n = 500; n <= 510; n++) {
      keys.set(big(n));
      keys.tell('big…');
      clock.fire(INTERVAL);
    }
    assert.is(feed.renders, rendered, 'nothing rendered for a watcher that cannot take it');
    slow.resume();
    await until(() => received.includes('"requests":510'), 'the last state came once it drained');
    assert.is(clock.armed(DRAIN), 0, 'the deadline was cancelled by the drain');
    assert.is(feed.dropped, 0);
    assert.is(received.match(/"requests":5\d\d/g)?.length, 1, 'the changes it missed arrive as one event');
  } finally {
    slow.destroy();
    feed.close();
    await closed(server);
  }
});

test('3,000 keys in the source: a connect builds the page it shows (50), never every key; the hello says how many there are', async () => {
  const keys = fakeSource(...Array.from({ length: 3000 }, (_, i) => liveKey(`key-${String(i).padStart(4, '0')}`, (i * 7) % 3001)));
  keys.set(liveKey('key-0000', 1, { findings: [{ side: 'client', id: 'client.backs-off', level: 'must', message: 'no' }] }));
  const feed = new LiveFeed({ source: keys.source, timer: handTimer().timer });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  try {
    const w = watch(url);
    await w.ready;
    await until(() => w.keyEvents().length === 50, 'a page of keys');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.is(w.keyEvents().length, 50, 'no more than the page');
    assert.is(keys.asked(), 50, 'each key shown built once, no other');
    assert.is(keys.listed(), 1);
    assert.equal(JSON.parse(w.events[0]!.data), { keys: 3000, matched: 3000, shown: 50, limit: 50, search: '', atMs: 1000 });
    assert.is(w.keyEvents()[0]!.key, 'key-0000', 'the key with findings first');
    assert.is(w.keyEvents()[1]!.requests, 3000, 'then the busiest');

    const found = watch(`${url}/?q=${encodeURIComponent('KEY-12')}`);
    await found.ready;
    await until(() => found.keyEvents().length === 50, 'a page of the keys the search names');
    assert.ok(
      found.keyEvents().every((e) => e.key.startsWith('key-12')),
      'only keys whose label holds the search',
    );
    assert.equal(JSON.parse(found.events[0]!.data).matched, 100);
  } finally {
    feed.close();
    await closed(server);
  }
});

test('50 watchers share one render per change; a watcher connecting later reuses it', async () => {
  const keys = fakeSource(liveKey('alpha…'), liveKey('beta…'));
  const clock = handTimer();
  const feed = new LiveFeed({ source: keys.source, intervalMs: INTERVAL, timer: clock.timer });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  try {
    const watchers = Array.from({ length: 50 }, () => watch(url));
    await Promise.all(watchers.map((w) => w.ready));
    await until(() => watchers.every((w) => w.keyEvents().length === 2), 'every watcher caught up');
    assert.is(keys.asked(), 2, 'the two keys built and rendered once for all 50');
    assert.is(feed.renders, 2);

    keys.set(liveKey('alpha…', 7));
    keys.tell('alpha…');
    clock.fire(INTERVAL);
    await until(() => watchers.every((w) => w.keyEvents().at(-1)?.requests === 7), 'the change reached every watcher');
    assert.is(feed.renders, 3, 'one render for the change');

    const late = watch(url);
    await late.ready;
    await until(() => late.keyEvents().length === 2, 'the late watcher caught up');
    assert.is(feed.renders, 3, 'its catch-up reused what was rendered');
    assert.equal(
      late.keyEvents().map((e) => [e.key, e.requests]),
      [
        ['alpha…', 7],
        ['beta…', 1],
      ],
    );
  } finally {
    feed.close();
    await closed(server);
  }
});

test('a new key joins a page with room and matching search, not a full one; watchers are told the count of keys', async () => {
  const keys = fakeSource(liveKey('alpha…'), liveKey('beta…'));
  const clock = handTimer();
  const feed = new LiveFeed({ source: keys.source, intervalMs: INTERVAL, timer: clock.timer, maxShown: 2 });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  try {
    const full = watch(url);
    const searching = watch(`${url}/?q=gam`);
    await Promise.all([full.ready, searching.ready]);
    await until(() => full.keyEvents().length === 2 && searching.events.length === 1, 'connected');
    keys.set(liveKey('gamma…', 3));
    keys.tell('gamma…');
    clock.fire(INTERVAL);
    await until(() => searching.keyEvents().length === 1, 'the new key joins the page of its search');
    await until(() => full.events.some((e) => e.name === 'keys'), 'the full page is told of it');
    assert.equal(JSON.parse(full.events.find((e) => e.name === 'keys')!.data), { keys: 3 });
    assert.equal(
      full.keyEvents().map((e) => e.key),
      ['alpha…', 'beta…'],
      'a full page keeps its keys',
    );
  } finally {
    feed.close();
    await closed(server);
  }
});

test('past maxWatchers a watcher gets a 503 with Retry-After and one line saying the cap; room again once one leaves', async () => {
  const keys = fakeSource(liveKey('alpha…'));
  const feed = new LiveFeed({ source: keys.source, timer: handTimer().timer, maxWatchers: 2 });
  const { server, url } = await listen((req, res) => feed.connect(req, res));
  const sockets: Array<ReturnType<typeof connect>> = [];
  try {
    for (let i = 0; i < 2; i++) {
      const socket = connect(Number(new URL(url).port), '127.0.0.1');
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      sockets.push(socket);
    }
    await until(() => feed.watchers === 2, 'two watching');
    const res = await fetch(url);
    assert.is(res.status, 503);
    assert.is(res.headers.get('retry-after'), '30');
    assert.is(await res.text(), 'The live view is full: it takes 2 watchers at once; try again in 30 s.\n');
    assert.is(feed.refused, 1);
    sockets.pop()!.destroy();
    await until(() => feed.watchers === 1, 'one left');
    const again = watch(url);
    await again.ready;
    await until(() => again.keyEvents().length === 1, 'a watcher gets in again');
  } finally {
    for (const socket of sockets) socket.destroy();
    feed.close();
    await closed(server);
  }
});

test('a thousand keys on a page (8 MB) are sent as the socket drains: a reader gets them all without being dropped', async () => {
  const findings = [{ side: 'server' as const, id: 'x', level: 'must' as const, message: 'x'.repeat(8 * 1024) }];
  const keys = fakeSource(...Array.from({ length: 1000 }, (_, i) => liveKey(`key-${i}`, 1, { findings })));
  const feed = new LiveFeed({ source: keys.source, timer: handTimer().timer, maxBufferedBytes: 256 * 1024, maxShown: 1000 });
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

const loopbacks: Array<[string | undefined, boolean]> = [
  ['127.0.0.1', true],
  ['127.8.9.10', true],
  ['::1', true],
  ['::ffff:127.0.0.1', true],
  ['192.0.2.7', false],
  ['::ffff:192.0.2.7', false],
  ['10.0.0.1', false],
  ['fe80::1', false],
  ['127.0.0.1.example', false],
  [undefined, false],
];
for (const [address, expected] of loopbacks) test(`isLoopback(${address}) is ${expected}`, () => assert.is(isLoopback(address), expected));

test('with a token the feed needs it as a bearer credential (the page does not); a peer not on this machine gets 403 unless remote', async () => {
  const keys = fakeSource(liveKey('alpha…'));
  const token = 'view-token-for-the-test';
  const local = createLiveView({ source: keys.source, basePath: '/live', title: 't', token, tokenName: 'view token', timer: handTimer().timer });
  const open = createLiveView({ source: keys.source, basePath: '/live', title: 't', remote: true, timer: handTimer().timer });
  // The test's peers are on this machine: a server that says otherwise stands for one that is not.
  const { server, url } = await listen((req, res) => {
    Object.defineProperty(req.socket, 'remoteAddress', { value: req.headers['x-test-peer'] ?? '127.0.0.1', configurable: true });
    const view = req.headers['x-test-view'] === 'open' ? open : local;
    if (!view.handle(req, res)) res.writeHead(418).end();
  });
  try {
    const cases: Array<[string, Record<string, string>, number]> = [
      ['/live', {}, 200],
      ['/live/events', {}, 401],
      ['/live/events', { authorization: 'Bearer not-the-token' }, 401],
      ['/live/events', { authorization: `Bearer ${token}x` }, 401],
      ['/live/events', { authorization: token }, 401],
      ['/live/events', { authorization: `Bearer ${token}` }, 200],
      ['/live', { 'x-test-peer': '192.0.2.7' }, 403],
      ['/live/events', { 'x-test-peer': '192.0.2.7', authorization: `Bearer ${token}` }, 403],
      ['/live/events', { 'x-test-peer': '::1', authorization: `Bearer ${token}` }, 200],
      ['/live/events', { 'x-test-peer': '192.0.2.7', 'x-test-view': 'open' }, 200],
    ];
    for (const [path, headers, status] of cases) {
      const controller = new AbortController();
      const res = await fetch(`${url}${path}`, { headers, signal: controller.signal });
      assert.is(res.status, status, `${path} ${JSON.stringify(headers)}`);
      if (status === 401) assert.is(res.headers.get('www-authenticate'), 'Bearer');
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) controller.abort();
      else await res.arrayBuffer();
    }
    const page = await (await fetch(`${url}/live`)).text();
    assert.match(page, /data-auth="token" data-token-name="view token"/);
    assert.match(page, /<label>View token <input id="token"/);
    assert.not.match(page, new RegExp(token), 'the page holds no token');
  } finally {
    local.close();
    open.close();
    await closed(server);
  }
});

test.run();
