// The k6 start case: what it runs and how it prints, with injected timings; with a real k6 (K6_BIN or
// on PATH), that every script loads. No duration is asserted: the figures are the benchmark's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findK6Binary, K6_SCRIPTS, measureK6Start, renderK6Start } from './k6-start.ts';
import { parseBenchOptions } from './options.ts';

test('the trivial script and each script are loaded once a round, interleaved', () => {
  const calls: string[] = [];
  const seconds: Record<string, number[]> = {};
  const report = measureK6Start({
    runs: 3,
    k6: '/opt/k6',
    version: 'k6 v0.47.0',
    inspect: (k6, script) => {
      assert.is(k6, '/opt/k6');
      const name = script.endsWith('trivial.js') ? 'trivial' : script.slice(script.indexOf('load/'));
      calls.push(name);
      const s = (seconds[name] ??= [name === 'trivial' ? 0.5 : 1, name === 'trivial' ? 0.4 : 3, name === 'trivial' ? 0.6 : 2]);
      return { seconds: s[calls.filter((c) => c === name).length - 1]!, error: null };
    },
  });
  assert.equal(
    calls,
    [...Array(3)].flatMap(() => ['trivial', ...K6_SCRIPTS]),
  );
  assert.equal(
    report.rows.map((r) => [r.script, r.medianS, r.ratio]),
    [['a trivial script', 0.5, null], ...K6_SCRIPTS.map((s) => [s, 2, 4])],
  );
  const text = renderK6Start(report);
  assert.match(text, /^k6 start: `k6 inspect <script>` .*median of 3, k6 v0\.47\.0 at \/opt\/k6\n/);
  assert.match(text, /\n {2}a trivial script {4,}0\.50 s\n/);
  assert.match(text, /\n {2}load\/rate-limit\.js +2\.00 s {2}x4\.0 the trivial script\n/);
});

test('a script k6 cannot load is shown failed, with k6’s last line', () => {
  const report = measureK6Start({
    runs: 1,
    k6: '/opt/k6',
    version: null,
    inspect: (_k6, script) => ({ seconds: 1, error: script.endsWith('smoke.js') ? 'k6 inspect exited 107: SyntaxError' : null }),
  });
  assert.match(renderK6Start(report), /load\/smoke\.js +1\.00 s {2}x1\.0 the trivial script {2}\(failed: k6 inspect exited 107: SyntaxError\)/);
});

test('without k6 the case says so and measures nothing', () => {
  assert.is(findK6Binary({ PATH: '/nonexistent' }), null);
  const report = measureK6Start({ runs: 3, k6: null });
  assert.equal(report.rows, []);
  assert.match(renderK6Start(report), /^k6 start: not measured: k6 not found/);
});

test('--cases k6-start selects the case, only when named', () => {
  assert.equal(parseBenchOptions(['--cases', 'k6-start']).cases, ['k6-start']);
  assert.ok(!parseBenchOptions([]).cases.includes('k6-start' as never));
});

const k6 = findK6Binary();
if (k6 === null)
  process.stdout.write('SKIP: k6 not found (set K6_BIN or put k6 on PATH): the k6 start benchmark does not load the scripts in a real k6 here\n');
(k6 ? test : test.skip)('with a real k6, every script loads (k6 inspect exits 0)', () => {
  const report = measureK6Start({ runs: 1, k6 });
  assert.equal(
    report.rows.filter((r) => r.error !== null).map((r) => `${r.script}: ${r.error}`),
    [],
  );
  assert.is(report.rows.length, 1 + K6_SCRIPTS.length);
});

test.run();
