// The servers under test, launched as the benchmark launches them.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LIST_PATH, SERVERS } from './cases.ts';
import { httpRequest } from './proc.ts';
import { midStorePage, nextLink } from './run.ts';
import { writePetStore } from './stores.ts';
import { authHeaders, launch, type LaunchContext, type RunningServer } from './targets.ts';

const dir = mkdtempSync(join(tmpdir(), 'bench-targets-'));
const apiKey = 'bench-enterprise-test-key';
const context: LaunchContext = {
  dir,
  pinning: null,
  apiKey,
  redisUrl: 'redis://127.0.0.1:6379',
  redisPrefix: 'adoption-bench-test:',
  cpuProfDir: undefined,
  stores: new Map([[1000, join(dir, 'store-1000.json')]]),
  referenceOptions: {},
  referenceNodeFlags: [],
  canned: undefined,
};
let reference: RunningServer;

const servers = suite('servers under test');

servers.before(async () => {
  await writePetStore(join(dir, 'store-1000.json'), 1000);
  reference = await launch('ref-1k', SERVERS['ref-1k'], context);
});
servers.after(async () => {
  await reference?.stop();
  rmSync(dir, { recursive: true, force: true });
});

servers('the reference server runs in its own process, on its own copy of the store, logging each request', async () => {
  assert.is.not(reference.pid, process.pid);
  assert.ok(reference.dbFile!.startsWith(dir) && reference.dbFile !== join(dir, 'store-1000.json'));
  const ok = await httpRequest(`${reference.origin}${LIST_PATH}`, { headers: authHeaders(apiKey) });
  assert.is(ok.status, 200);
  assert.is(JSON.parse(ok.body.toString()).length, 20);
  // Auth is on: no key, no pets.
  assert.is((await httpRequest(`${reference.origin}${LIST_PATH}`)).status, 401);
  const log = readFileSync(reference.logFile, 'utf8');
  assert.match(log, /"url":"\/v1\/pets(\?[^"]*)?"/);
  assert.not.match(log, new RegExp(apiKey), 'the key never reaches the log');
  // Peak RSS comes from /proc/<pid>/status of that process: a node server is tens of MB at least.
  assert.ok(reference.peakRss() > 20e6, `${reference.peakRss()}`);
});

servers('bare hapi and bare node:http answer the reference bytes, byte for byte, on the same path', async () => {
  const reply = await httpRequest(`${reference.origin}${LIST_PATH}`, { headers: authHeaders(apiKey) });
  const bodyFile = join(dir, 'canned.json');
  writeFileSync(bodyFile, reply.body);
  const contentType = String(reply.headers['content-type']);
  const withCanned = { ...context, canned: { bodyFile, contentType } };
  for (const id of ['hapi', 'node'] as const) {
    const bare = await launch(id, SERVERS[id], withCanned);
    try {
      const answer = await httpRequest(`${bare.origin}${LIST_PATH}`, { headers: authHeaders(apiKey) });
      assert.is(answer.status, 200, id);
      assert.ok(answer.body.equals(reply.body), `${id} body`);
      assert.is(answer.headers['content-type'], contentType, `${id} content-type`);
      assert.ok(bare.peakRss() > 20e6, `${id} rss`);
    } finally {
      await bare.stop();
    }
    assert.ok(bare.child.exitCode !== null || bare.child.signalCode !== null, `${id} stopped`);
  }
});

servers('with a profile directory, a reference server writes a CPU profile of its main thread when stopped', async () => {
  const profiles = join(dir, 'profiles');
  const profiled = await launch('ref-1k', SERVERS['ref-1k'], { ...context, cpuProfDir: profiles }, 2);
  assert.is((await httpRequest(`${profiled.origin}${LIST_PATH}`, { headers: authHeaders(apiKey) })).status, 200);
  await profiled.stop();
  const files = readdirSync(join(profiles, 'ref-1k-2')).filter((f) => f.endsWith('.cpuprofile'));
  assert.ok(files.length >= 1, `profiles: ${files}`);
  const profile = JSON.parse(readFileSync(join(profiles, 'ref-1k-2', files.sort()[0]!), 'utf8')) as { nodes: unknown[] };
  assert.ok(profile.nodes.length > 10);
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

const links = suite('nextLink');
const cases: Array<[string | string[] | undefined, string | undefined]> = [
  ['</v1/pets?limit=20&cursor=abc>; rel="next"', '/v1/pets?limit=20&cursor=abc'],
  ['</a>; rel="prev", </b>; rel="next"', '/b'],
  ['</b>; rel=next', '/b'],
  ['</b>; title="x"; rel="prefetch next"', '/b'],
  [['</a>; rel="prev"', '</b>; rel="next"'], '/b'],
  ['</a>; rel="prev"', undefined],
  ['</a>; rel="nextpage"', undefined],
  [undefined, undefined],
  ['', undefined],
];
for (const [header, expected] of cases) {
  links(`${JSON.stringify(header)} -> ${expected}`, () => assert.is(nextLink(header), expected));
}

servers.run();
links.run();
