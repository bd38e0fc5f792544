// Smoke of `npm run bench`: a short real run of most cases, checked through its JSON output.
// It proves the harness measures what it says; the figures themselves belong to the benchmark.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CaseId } from './cases.ts';
import type { BenchReport } from './report.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const bench = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });

const SMOKE_CASES: CaseId[] = ['ref-get', 'hapi', 'node', 'prism', 'ref-post', 'ref-redis', 'deep-1k'];

test('a short run measures every case, answers the same bytes, proves POST durability and writes the JSON it prints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  try {
    const jsonFile = join(dir, 'out', 'bench.json');
    const run = bench(['--duration', '0.5', '--warmup', '0.2', '--rounds', '2', '--connections', '4', '--cases', SMOKE_CASES.join(','), '--json', jsonFile]);
    assert.is(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as BenchReport;
    assert.equal(report.cases.map((c) => c.id), SMOKE_CASES);
    assert.equal(report.settings.connections, 4);
    for (const c of report.cases) {
      assert.is(c.skipped, undefined, `${c.id}: ${c.skipped}`);
      const s = c.summary!;
      assert.ok(s.requests > 0 && s.rps > 0, `${c.id} measured nothing`);
      assert.equal(s.rpsPerRound.length, 2, c.id);
      assert.equal(s.unexpected, {}, c.id);
      assert.is(s.errors, 0, c.id);
      assert.ok(s.p50 > 0 && s.p50 <= s.p99, `${c.id} p50 ${s.p50} p99 ${s.p99}`);
      assert.ok(c.peakRssBytes! > 20e6, `${c.id} rss ${c.peakRssBytes}`);
      assert.ok(run.stdout.includes(c.title), `${c.id} row`);
    }
    const byId = Object.fromEntries(report.cases.map((c) => [c.id, c]));
    // Same body bytes; the reference adds headers (rate limits, Link), never fewer bytes.
    assert.ok(byId.hapi!.summary!.bytesPerResponse <= byId['ref-get']!.summary!.bytesPerResponse);
    assert.ok(byId.node!.summary!.bytesPerResponse <= byId['ref-get']!.summary!.bytesPerResponse);
    assert.match(byId['deep-1k']!.path, /cursor=/);
    const durability = byId['ref-post']!.durability!;
    assert.is(durability.length, 2, 'one fresh store per round');
    for (const d of durability) {
      assert.is(d.before, 10_000);
      assert.ok(d.acknowledged > 0 && d.ok && d.after >= d.before + d.acknowledged, JSON.stringify(d));
    }
    for (const key of ['referenceOverHapi', 'referenceOverNode', 'referenceOverPrism', 'redisOverMemory'] as const) assert.ok(report.ratios[key]! > 0, key);
    assert.is(report.targets.length, 6);
    assert.match(run.stdout, /reference\/hapi\s+\d+\.\d\d/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad option exits 2 and says why; --help exits 0 with the usage', () => {
  const bad = bench(['--rounds', 'many']);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /--rounds must be a whole number > 0/);
  const help = bench(['--help']);
  assert.is(help.status, 0);
  assert.match(help.stdout, /Usage: npm run bench/);
});

test.run();
