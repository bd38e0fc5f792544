// The servers under test, launched as the benchmark launches them: the reference server compiled,
// through its own command line and the benchmark's key file; the peers with the reference's bytes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GET_PATH, JSON_GET_PATH, JSON_LIST_PATH, LIST_PATH, SERVERS, type ReferenceServerSpec } from './cases.ts';
import { httpRequest, sessionOf, spawnChild } from './proc.ts';
import { midStorePage } from './targets.ts';
import { writePetArray, writePetStore } from './stores.ts';
import { authHeaders, launch, referenceArgs, runningServer, runsTsx, SCRIPTS, type LaunchContext, type RunningServer } from './targets.ts';

const dir = mkdtempSync(join(tmpdir(), 'bench-targets-'));
const apiKey = 'bench-enterprise-test-key';
const context: LaunchContext = {
  dir,
  pinning: null,
  cpus: [0, 1],
  apiKey,
  apiKeysFile: join(dir, 'api-keys.json'),
  redisUrl: 'redis://127.0.0.1:6379',
  redisPrefix: 'adoption-bench-test:',
  databaseUrl: undefined,
  cpuProfDir: undefined,
  stores: new Map([[1000, join(dir, 'store-1000.json')]]),
  seeds: new Map([[10_000, join(dir, 'pets-10000.json')]]),
  referenceFlags: [],
  referenceNodeFlags: [],
  canned: undefined,
};
let reference: RunningServer;

const args = suite("the reference server's command line");
const ref = (extra: Partial<ReferenceServerSpec>): ReferenceServerSpec => ({
  kind: 'reference',
  store: 'file',
  pets: 1000,
  redis: false,
  workers: 1,
  freshPerRound: false,
  ...extra,
});
const withDb = { ...context, databaseUrl: 'postgres://postgres@127.0.0.1:5432/adoption_bench_x', seeds: new Map([[10_000, '/t/pets.json']]) };
const argCases: Array<[string, ReferenceServerSpec, LaunchContext, string[]]> = [
  ['file store', ref({}), context, ['--db-file', '/t/db.json']],
  [
    'PostgreSQL: its own schema, seeded with the same pets',
    ref({ store: 'postgres', pets: 10_000 }),
    withDb,
    ['--database', 'postgres://postgres@127.0.0.1:5432/adoption_bench_x?schema=bench_s', '--seed', '/t/pets.json'],
  ],
  [
    'Redis: a key prefix of the run and the server',
    ref({ redis: true }),
    context,
    ['--redis', 'redis://127.0.0.1:6379', '--redis-prefix', 'adoption-bench-test:pg-redis:'],
  ],
  ['workers', ref({ store: 'postgres', pets: 10_000, redis: true, workers: 2 }), withDb, ['--workers', '2']],
  ['loopback counted as any client address, as a network client is', ref({}), context, ['--ip-ban-loopback']],
  ['extra flags come last', ref({}), { ...context, referenceFlags: ['--quiet'] }, ['--quiet']],
];
for (const [name, spec, ctx, expected] of argCases) {
  args(name, () => {
    const argv = referenceArgs(spec, ctx, 4100, { dbFile: '/t/db.json', schema: 'bench_s' }, 'pg-redis');
    assert.equal(argv.slice(0, 6), ['--host', '127.0.0.1', '--port', '4100', '--api-keys', ctx.apiKeysFile]);
    const at = argv.indexOf(expected[0]!);
    assert.ok(at >= 0, argv.join(' '));
    assert.equal(argv.slice(at, at + expected.length), expected);
    if (name.startsWith('extra')) assert.is(argv.at(-1), '--quiet');
  });
}

const servers = suite('servers under test');

servers.before(async () => {
  writeFileSync(context.apiKeysFile, JSON.stringify([{ key: apiKey, plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e12 } }]));
  await writePetStore(join(dir, 'store-1000.json'), 1000);
  await writePetArray(join(dir, 'pets-10000.json'), 10_000);
  reference = await launch('ref-1k', SERVERS['ref-1k'], context);
});
servers.after(async () => {
  await reference?.stop();
  rmSync(dir, { recursive: true, force: true });
});

servers("the reference server runs compiled (no tsx), on its own copy of the store, with the benchmark's key, logging each request", async () => {
  assert.is.not(reference.pid, process.pid);
  // A session of its own is an autogroup of its own to the scheduler: measured, that cost the bare hapi peer up to half its rate on a shared core.
  assert.is(sessionOf(reference.pid), sessionOf(process.pid), "the server runs in the benchmark's session, as one started by hand");
  assert.match(readFileSync(`/proc/${reference.pid}/cmdline`, 'utf8'), new RegExp(SCRIPTS.reference));
  assert.not.ok(runsTsx(reference.pid));
  assert.ok(reference.dbFile!.startsWith(dir) && reference.dbFile !== join(dir, 'store-1000.json'));
  const ok = await httpRequest(`${reference.origin}${LIST_PATH}`, { headers: authHeaders(apiKey) });
  assert.is(ok.status, 200);
  assert.is(JSON.parse(ok.body.toString()).length, 20);
  // The key file replaces the fixture keys, and auth is on: no key, no pets.
  assert.is((await httpRequest(`${reference.origin}${LIST_PATH}`, { headers: authHeaders('test-enterprise-key') })).status, 401);
  assert.is((await httpRequest(`${reference.origin}${LIST_PATH}`)).status, 401);
  // Request lines are written in batches, at the latest 100 ms after the first of them.
  await new Promise((resolve) => setTimeout(resolve, 250));
  const log = readFileSync(reference.logFile, 'utf8');
  assert.match(log, /"url":"\/v1\/pets(\?[^"]*)?"/);
  // The start-up banner names the keys, as `npm start` prints them; the request lines never do.
  const requestLines = log.split('\n').filter((l) => l.includes('"req":'));
  assert.ok(requestLines.length > 0);
  assert.not.ok(
    requestLines.some((l) => l.includes(apiKey)),
    'the key never reaches a request line',
  );
  assert.ok(reference.peakRss() > 20e6, `${reference.peakRss()}`);
});

servers('bare hapi and bare node:http answer the reference list and get, byte for byte, on the same paths; the null server answers two bytes', async () => {
  const capture = async (path: string, name: string) => {
    const reply = await httpRequest(`${reference.origin}${path}`, { headers: authHeaders(apiKey) });
    assert.is(reply.status, 200, path);
    const bodyFile = join(dir, `canned-${name}.json`);
    writeFileSync(bodyFile, reply.body);
    return { reply, answer: { bodyFile, contentType: String(reply.headers['content-type']) } };
  };
  const list = await capture(LIST_PATH, 'list');
  const get = await capture('/v1/pets/500', 'get');
  const withCanned = { ...context, canned: { list: list.answer, get: get.answer } };
  for (const id of ['hapi', 'node'] as const) {
    const bare = await launch(id, SERVERS[id], withCanned);
    try {
      for (const [path, expected] of [
        [LIST_PATH, list],
        [GET_PATH, get],
      ] as const) {
        const answer = await httpRequest(`${bare.origin}${path}`, { headers: authHeaders(apiKey) });
        assert.is(answer.status, 200, `${id} ${path}`);
        assert.ok(answer.body.equals(expected.reply.body), `${id} ${path} body`);
        assert.is(answer.headers['content-type'], expected.answer.contentType, `${id} ${path} content-type`);
      }
      assert.not.ok(runsTsx(bare.pid), `${id} runs without tsx`);
      assert.is(sessionOf(bare.pid), sessionOf(process.pid), `${id} runs in the benchmark's session`);
    } finally {
      await bare.stop();
    }
    assert.ok(bare.child.exitCode !== null || bare.child.signalCode !== null, `${id} stopped`);
  }
  const nul = await launch('null', SERVERS.null, context);
  try {
    const answer = await httpRequest(`${nul.origin}/`);
    assert.equal([answer.status, answer.body.toString()], [200, '{}']);
  } finally {
    await nul.stop();
  }
});

servers('json-server 0.17 serves the same 10,000 pets: a page of 20 and one pet by id', async () => {
  const json = await launch('json-server', SERVERS['json-server'], context);
  try {
    const page = await httpRequest(`${json.origin}${JSON_LIST_PATH}`);
    assert.is(page.status, 200);
    assert.equal(
      (JSON.parse(page.body.toString()) as Array<{ id: number }>).map((p) => p.id),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const one = await httpRequest(`${json.origin}${JSON_GET_PATH}`);
    assert.is(one.status, 200);
    assert.is((JSON.parse(one.body.toString()) as { id: number }).id, 5000);
  } finally {
    await json.stop();
  }
});

servers('with a profile directory, a compiled reference server writes a CPU profile when stopped', async () => {
  const profiles = join(dir, 'profiles');
  const profiled = await launch('ref-1k', SERVERS['ref-1k'], { ...context, cpuProfDir: profiles }, 2);
  assert.is((await httpRequest(`${profiled.origin}${LIST_PATH}`, { headers: authHeaders(apiKey) })).status, 200);
  await profiled.stop();
  const files = readdirSync(join(profiles, 'ref-1k-2')).filter((f) => f.endsWith('.cpuprofile'));
  assert.is(files.length, 1, `one profile, no loader thread: ${files}`);
  const profile = JSON.parse(readFileSync(join(profiles, 'ref-1k-2', files[0]!), 'utf8')) as { nodes: Array<{ callFrame: { url: string } }> };
  assert.ok(
    profile.nodes.some((n) => n.callFrame.url.includes('/dist/server/')),
    'the compiled server is what ran',
  );
});

servers('stopping a server stops what it started (as --workers starts workers), though it is no process group of its own', async () => {
  // A stand-in for a cluster primary: it starts a process that would outlive it, and says its pid.
  const script = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); process.stdout.write(String(c.pid)); setInterval(() => {}, 1000);`;
  const child = spawnChild({ command: process.execPath, args: ['-e', script], output: 'pipe' });
  const started = Number(await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString()))));
  assert.ok(readFileSync(`/proc/${started}/cmdline`, 'utf8').includes('setInterval'), 'its process runs');
  const server = runningServer('node', 'http://127.0.0.1:1', child, join(dir, 'stand-in.log'), { cpus: undefined });
  await server.stop('SIGKILL');
  const state = (() => {
    try {
      return readFileSync(`/proc/${started}/stat`, 'utf8').split(') ')[1]![0];
    } catch {
      return 'gone';
    }
  })();
  assert.ok(state === 'gone' || state === 'Z', `the process it started is ${state}`);
});

servers('a bare server cannot start without the reference bytes', async () => {
  try {
    await launch('node', SERVERS.node, context);
    assert.unreachable('should refuse');
  } catch (error) {
    assert.match((error as Error).message, /needs the reference server's response bytes/);
  }
});

servers('midStorePage follows rel="next" with the status filter to the middle of the store', async () => {
  const path = await midStorePage(reference.origin, apiKey, 1000);
  assert.match(path, /^\/v1\/pets\?/);
  const url = new URL(path, reference.origin);
  assert.is(url.searchParams.get('limit'), '20');
  assert.is(url.searchParams.get('status'), 'available');
  assert.ok(url.searchParams.get('cursor'));
  const page = JSON.parse((await httpRequest(`${reference.origin}${path}`, { headers: authHeaders(apiKey) })).body.toString()) as Array<{
    id: number;
    status: string;
  }>;
  assert.is(page.length, 20);
  assert.ok(page[0]!.id > 500 && page[0]!.id < 700, `first id ${page[0]!.id}`);
  assert.ok(page.every((p) => p.status === 'available'));
});

args.run();
servers.run();
