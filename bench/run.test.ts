// Smoke of `npm run bench`: short real runs, checked through their JSON output and the results file
// they append to. They prove the harness measures what it says; the figures belong to the benchmark.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CaseId } from './cases.ts';
import { ADMIN_URL, postgresService } from '../server/testing/test-database.ts';
import type { BenchReport } from './report.ts';
import { commandLine } from './cli.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const bench = (args: string[]) => spawnSync(process.execPath, [...sourceArgs('bench/cli.ts'), ...args], { cwd: root, encoding: 'utf8', timeout: 180_000 });
// A warm-up second each: on a busy machine a cold server can take longer than a one-second round to answer at all.
const SHORT = ['--duration', '1', '--warmup', '1', '--connections', '4'];

/**
 * What the benchmark voids a round for when nothing was answered within it: on a busy machine the
 * server can be descheduled for a whole one-second round. That is the machine's speed, not the
 * benchmark's fault; every other reason (a non-2xx, a socket error, a lost create) is.
 */
const STALLED = 'no expected response';

function runAndRead(args: string[], dir: string): { report: BenchReport; stdout: string } {
  const jsonFile = join(dir, 'out', 'bench.json');
  for (let attempt = 1; ; attempt++) {
    rmSync(jsonFile, { force: true });
    const run = bench([...SHORT, ...args, '--json', jsonFile]);
    const report = existsSync(jsonFile) ? (JSON.parse(readFileSync(jsonFile, 'utf8')) as BenchReport) : undefined;
    const voids = (report?.cases ?? []).flatMap((c) => c.summary?.voidRounds ?? []);
    // A case left with no clean round only because its rounds stalled exits 1, as it should (no figure
    // of it can be used): measured once more, and said.
    if (run.status !== 0 && attempt === 1 && voids.length > 0 && voids.every((v) => v.reason === STALLED)) {
      process.stdout.write(`  [bench] nothing was answered within a round (the machine stalled the server): run again\n${run.stdout}\n`);
      continue;
    }
    assert.is(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
    return { report: report!, stdout: run.stdout };
  }
}

function assertClean(report: BenchReport, rounds: number) {
  for (const c of report.cases) {
    assert.is(c.skipped, undefined, `${c.id}: ${c.skipped}`);
    const s = c.summary!;
    assert.ok(s.requests > 0 && s.rps > 0, `${c.id} measured nothing`);
    // Every round clean, or voided only because nothing was answered within it (STALLED); one clean at least.
    assert.equal(
      s.voidRounds.filter((v) => v.reason !== STALLED),
      [],
      c.id,
    );
    assert.ok(s.cleanRounds >= 1 && s.cleanRounds + s.voidRounds.length === rounds, `${c.id}: ${JSON.stringify(s.voidRounds)}`);
    assert.equal(s.unexpected, {}, c.id);
    assert.ok(s.p50 > 0 && s.p50 <= s.p99, `${c.id} p50 ${s.p50} p99 ${s.p99}`);
    assert.ok(c.peakRssBytes! > 20e6, `${c.id} rss ${c.peakRssBytes}`);
  }
}

// Prism and json-server are measured like any other case; targets.test.ts proves they start and answer.
const SMOKE: CaseId[] = ['null', 'ref-list', 'hapi-list', 'node-get', 'ref-post'];

test('a short run: every case clean, the headroom measured, creates proven durable by id, the run appended to the results file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  try {
    const results = join(dir, 'RESULTS.md');
    writeFileSync(results, '# Benchmark results\n\nintro\n\n## 2026-11: an older run\n\nkept\n');
    const { report, stdout } = runAndRead(['--rounds', '2', '--cases', SMOKE.join(','), '--results', results], dir);
    assert.equal(
      report.cases.map((c) => c.id),
      SMOKE,
    );
    assert.equal(report.settings.connections, 4);
    assertClean(report, 2);
    for (const c of report.cases) assert.ok(stdout.includes(c.title), `${c.id} row`);
    const byId = Object.fromEntries(report.cases.map((c) => [c.id, c]));
    // Same body bytes; the reference adds headers (rate limits, Link), never fewer bytes.
    assert.ok(byId['hapi-list']!.summary!.bytesPerResponse <= byId['ref-list']!.summary!.bytesPerResponse);
    assert.is(byId['ref-list']!.tsx, false, 'the reference server runs without tsx');
    assert.match(report.settings.build, /^compiled/);
    assert.match(report.settings.generator.description, /^(wrk|autocannon) \S+/);
    assert.ok(report.headroom.nullRps! > 0 && report.headroom.headroom! > 0, JSON.stringify(report.headroom));
    const durability = byId['ref-post']!.durability!;
    assert.is(durability.length, 2, 'one fresh store per round');
    for (const d of durability) {
      assert.is(d.before, 10_000);
      assert.ok(d.ok && d.idsChecked && d.acknowledged > 0 && d.after >= d.before + d.acknowledged, JSON.stringify(d));
    }
    assert.ok(report.ratios.list.hapi! > 0);
    // What else ran on the servers' core is read in every round when they are pinned: the check that the harness leaves them their core.
    if (report.settings.pinning) {
      for (const c of report.cases) assert.ok(c.summary!.coreOthersMax !== null && c.summary!.coreBystandersMax !== null, c.id);
      assert.ok(report.serverCore, 'the servers-core check is in the report');
      assert.match(stdout, /servers' core \(cpu \d+\), over every clean round: the benchmark's idle servers took at most/);
    }
    assert.is(report.targets.length, 9);
    assert.match(stdout, /load generator headroom: null server [\d,]+ req\/s/);
    const file = readFileSync(results, 'utf8');
    assert.match(file, /^# Benchmark results\n\nintro\n\n## \d{4}-\d\d-\d\d \d\d:\d\d UTC: (wrk|autocannon), 5 cases\n/);
    assert.ok(file.indexOf('## 2026-11: an older run\n\nkept') > file.indexOf('UTC:'), 'the older run is kept, after the new one');
    assert.match(file, /- command: `npm run bench -- --duration 1 .* --results /);
    assert.ok(file.includes(stdout.trimEnd().split('\n')[0]!), 'the printed table is in the file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The benchmark's default PostgreSQL is the one the tests use; under CI it must answer.
const postgres = await postgresService('bench/run.test.ts');
postgres.register(test)('PostgreSQL: creates durable by id after SIGKILL, and the run drops its database', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  try {
    const { report } = runAndRead(['--rounds', '1', '--cases', 'pg-post,pg-list,pg-redis-list', '--database', ADMIN_URL], dir);
    assertClean(report, 1);
    // Every process of the scale-out path is priced, and its round trips counted by the server itself.
    const list = report.cases.find((c) => c.id === 'pg-list')!.summary!;
    assert.ok(list.postgresMicrosPerRequest! > 0, `PostgreSQL CPU ${list.postgresMicrosPerRequest}`);
    assert.is(list.redisMicrosPerRequest, null);
    assert.ok(list.postgresPerRequest! >= 1 && list.postgresPerRequest! < 1.1, `statements per list request ${list.postgresPerRequest}`);
    assert.is(list.redisPerRequest, 0);
    const redis = report.cases.find((c) => c.id === 'pg-redis-list')!.summary!;
    assert.ok(redis.redisMicrosPerRequest! > 0, `Redis CPU ${redis.redisMicrosPerRequest}`);
    assert.ok(redis.redisPerRequest! > 0 && redis.redisPerRequest! <= 1.01, `Redis commands per list request ${redis.redisPerRequest}`);
    const [d] = report.cases.find((c) => c.id === 'pg-post')!.durability!;
    assert.ok(d!.ok && d!.idsChecked && d!.after >= 10_000 + d!.acknowledged, JSON.stringify(d));
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      const left = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'adoption_bench_%'");
      assert.equal(left.rows, [], 'no database of the benchmark is left');
    } finally {
      await client.end();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the autocannon fallback measures too, acknowledged ids included', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  try {
    const { report } = runAndRead(['--rounds', '1', '--generator', 'autocannon', '--cases', 'null,ref-post'], dir);
    assertClean(report, 1);
    assert.match(report.settings.generator.description, /^autocannon \d/);
    const [d] = report.cases.find((c) => c.id === 'ref-post')!.durability!;
    assert.ok(d!.ok && d!.idsChecked, JSON.stringify(d));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad option exits 2 and says why; --help exits 0 with the usage', () => {
  const bad = bench(['--rounds', 'many']);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /--rounds must be an integer, not "many"/);
  const help = bench(['--help']);
  assert.is(help.status, 0);
  assert.match(help.stdout, /Usage: npm run bench/);
});

const commands: Array<[string[], string]> = [
  [[], 'npm run bench'],
  [['--cases', 'ref-list,hapi-list', '--rounds', '1'], 'npm run bench -- --cases ref-list,hapi-list --rounds 1'],
  [['--reference-flags', '--quiet --no-cors'], "npm run bench -- --reference-flags '--quiet --no-cors'"],
  [["it's"], "npm run bench -- 'it'\\''s'"],
];
for (const [args, expected] of commands) test(`commandLine ${JSON.stringify(args)}`, () => assert.is(commandLine(args), expected));

test.run();
