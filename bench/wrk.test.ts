// wrk as the load generator: the script it is given, what it prints and what the script writes,
// read from recorded outputs; and one real short run against a local server when wrk is installed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LoadRequest } from './load.ts';
import {
  findWrk,
  luaString,
  needsHook,
  parseGeneratorTicks,
  parseWrkResult,
  parseWrkText,
  parseWrkVersion,
  wrkArgs,
  wrkMeasure,
  wrkScript,
  WrkGenerator,
} from './wrk.ts';

const GET: LoadRequest = {
  url: 'http://127.0.0.1:1/v1/pets?limit=20',
  method: 'GET',
  headers: { authorization: 'Bearer k' },
  connections: 32,
  duration: 10,
  expectStatus: 200,
};
const POST: LoadRequest = {
  ...GET,
  method: 'POST',
  url: 'http://127.0.0.1:1/v1/pets',
  body: '{"name":"Bench"}',
  headers: { ...GET.headers, 'content-type': 'application/json' },
  expectStatus: 201,
  collectIds: true,
};

/** What wrk 4.1 printed against a server that closed every tenth connection and answered 429 to every seventh request. */
const RECORDED_BAD = `Running 1s test @ http://127.0.0.1:18183/
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     6.03ms   20.04ms 132.29ms   93.47%
    Req/Sec     9.98k     7.07k   20.55k    55.56%
  9063 requests in 1.00s, 1.09MB read
  Socket errors: connect 0, read 1007, write 0, timeout 0
  Non-2xx or 3xx responses: 1295
Requests/sec:   9032.36
Transfer/sec:      1.09MB
generator-cpu-ticks 37
`;
const RECORDED_CLEAN = `Running 2s test @ http://127.0.0.1:18181/
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   721.54us    2.09ms  49.30ms   97.01%
    Req/Sec    71.67k    19.38k   88.86k    85.00%
  142137 requests in 2.00s, 22.50MB read
Requests/sec:  71051.94
Transfer/sec:     11.25MB
generator-cpu-ticks 88
`;

test('luaString escapes quotes, backslashes, control and non-ASCII bytes', () => {
  assert.is(luaString('plain'), '"plain"');
  assert.is(luaString('{"name":"a\\\\b"}'), '"{\\"name\\":\\"a\\\\\\\\b\\"}"');
  assert.is(luaString('a\nb'), '"a\\010b"');
  assert.is(luaString('é'), '"\\195\\169"');
});

test('a GET gets no response hook (wrk then parses no bodies); a create, an early stop or collected ids do', () => {
  assert.not.ok(needsHook(GET));
  assert.ok(needsHook(POST));
  assert.ok(needsHook({ ...GET, stopAfterOk: 5 }));
  const get = wrkScript(GET, '/tmp/out');
  assert.not.match(get, /function response/);
  assert.match(get, /wrk.headers\["authorization"\] = "Bearer k"/);
  assert.match(get, /io.open\("\/tmp\/out", "w"\)/);
  const post = wrkScript({ ...POST, stopAfterOk: 1000 }, '/tmp/out');
  assert.match(post, /wrk.method = "POST"/);
  assert.match(post, /wrk.body = "\{\\"name\\":\\"Bench\\"\}"/);
  assert.match(post, /if status == 201 then/);
  assert.match(post, /ids\[#ids \+ 1\] = id/);
  assert.match(post, /if ok >= 1000 then wrk.thread:stop\(\) end/);
});

test('wrk runs one thread for whole seconds only', () => {
  assert.equal(wrkArgs(GET, 's.lua'), ['-t1', '-c32', '-d10s', '--timeout', '10s', '-s', 's.lua', GET.url]);
  assert.throws(() => wrkArgs({ ...GET, duration: 0.5 }, 's.lua'), /whole seconds/);
});

test('parseWrkText reads the count, socket errors, statuses outside 200-399 and the rate', () => {
  assert.equal(parseWrkText(RECORDED_BAD), {
    requests: 9063,
    seconds: 1,
    socket: { connect: 0, read: 1007, write: 0, timeout: 0 },
    non2xx3xx: 1295,
    requestsPerSecond: 9032.36,
  });
  assert.equal(parseWrkText(RECORDED_CLEAN), {
    requests: 142137,
    seconds: 2,
    socket: { connect: 0, read: 0, write: 0, timeout: 0 },
    non2xx3xx: 0,
    requestsPerSecond: 71051.94,
  });
  assert.throws(() => parseWrkText('unable to connect to 127.0.0.1:1 Connection refused'), /no "N requests in T" line/);
  assert.is(parseGeneratorTicks(RECORDED_BAD), 37);
  assert.is(parseGeneratorTicks('no line'), undefined);
  assert.is(parseWrkVersion('wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer\nUsage: wrk <options> <url>'), 'debian/4.1.0-3+b2');
});

test('parseWrkResult reads the histogram, the statuses and the ids the script wrote', () => {
  const r = parseWrkResult('requests 5\nduration_us 1000000\nbytes 900\nlatency 120 3\nlatency 900 2\nstatus 201 4\nstatus 500 1\nid 10001\nid 10002\n');
  assert.equal(r, {
    requests: 5,
    durationMicros: 1e6,
    bytes: 900,
    latency: new Map([
      [120, 3],
      [900, 2],
    ]),
    statuses: { '201': 4, '500': 1 },
    ids: [10001, 10002],
  });
  assert.is(parseWrkResult('requests 1\nduration_us 5\n').statuses, null);
  assert.throws(() => parseWrkResult(''), /no summary/);
});

const measures: Array<[string, LoadRequest, string, string, Partial<ReturnType<typeof wrkMeasure>>]> = [
  [
    'GET without a hook: statuses outside 200-399 and socket errors count against the round',
    GET,
    RECORDED_BAD,
    'requests 9063\nduration_us 1000500\nbytes 1100000\nlatency 100 9063\n',
    { ok: 9063 - 1295, unexpected: { 'non-2xx/3xx': 1295 }, errors: 1007, timeouts: 0, seconds: 1.0005, generatorCpuSeconds: 0.37, ids: undefined },
  ],
  [
    'a create with the hook: exact statuses, and the acknowledged ids',
    POST,
    RECORDED_CLEAN,
    'requests 3\nduration_us 2000000\nbytes 30\nlatency 100 3\nstatus 201 2\nstatus 200 1\nid 7\nid 8\n',
    { ok: 2, unexpected: { '200': 1 }, errors: 0, ids: [7, 8] },
  ],
];
for (const [name, request, text, written, expected] of measures) {
  test(`wrkMeasure: ${name}`, () => {
    const m = wrkMeasure(request, parseWrkText(text), parseWrkResult(written), parseGeneratorTicks(text));
    for (const [key, value] of Object.entries(expected)) assert.equal(m[key as keyof typeof m], value, key);
  });
}

const wrk = await findWrk();
if (!wrk) process.stdout.write('SKIP: wrk is not installed, so the live wrk round is not run (apt-get install wrk)\n');
const live = wrk ? test : test.skip;

live("a real wrk run: the script writes a histogram of the responses, the ids of the creates, and sh reports wrk's CPU", async () => {
  let created = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') {
        const body = JSON.stringify({ id: 10_000 + ++created, name: 'Bench' });
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': String(body.length) }).end(body);
      } else res.writeHead(200, { 'content-length': '2' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/pets`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const generator = new WrkGenerator(wrk!.path, wrk!.version, null, dir);
    const get = await generator.run({ ...GET, url, connections: 2, duration: 1 });
    const counted = [...get.latency.values()].reduce((a, b) => a + b, 0);
    assert.ok(get.ok > 0, `ok ${get.ok}`);
    // wrk corrects its histogram for coordinated omission: it adds samples for responses a
    // stalled connection did not send, never removes one.
    assert.ok(counted >= get.ok, `histogram ${counted}, responses ${get.ok}`);
    assert.equal(get.unexpected, {});
    assert.ok(Number.isFinite(get.generatorCpuSeconds) && get.generatorCpuSeconds >= 0);
    const post = await generator.run({ ...POST, url, connections: 2, duration: 1, stopAfterOk: 50 });
    // The thread stops at the 50th acknowledgement; the other connection's request may be in flight.
    assert.ok(post.ok >= 50 && post.ok <= 51, `the warm-up stops after 50 acknowledged creates (${post.ok})`);
    assert.is(new Set(post.ids).size, post.ok);
    assert.ok(
      post.ids!.every((id) => id > 10_000 && id <= 10_000 + created),
      String(post.ids),
    );
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
