// The proxy case of `npm run bench`: its figures from recorded rounds (pure), and one short real run
// through the command line when wrk is installed. The figures belong to the benchmark; the run only
// proves the case measures what it says, end to end.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { countFindings, proxyVerdicts, renderProxyCase, summarizeSeries, type ProxyCaseReport, type ProxyRound } from './proxy-case-report.ts';
import { findWrk } from './wrk.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';

const round = (r: Partial<ProxyRound> & Pick<ProxyRound, 'round' | 'via' | 'rps'>): ProxyRound => ({
  connections: 32,
  ok: r.rps * 10,
  seconds: 10,
  wrong: 0,
  serverMsPerRequest: 0.25,
  proxyMsPerRequest: r.via === 'proxy' ? 0.4 : null,
  forwardingMsPerRequest: r.via === 'direct' ? null : (r.proxyMsPerRequest ?? 0.4) / 2,
  wrkBusy: 0.1,
  foreignCores: 0,
  proxyRssBytes: r.via === 'proxy' ? 100e6 : null,
  ...r,
});

test('the proxy prints one line per finding: each counted by side, the console report at exit is not', () => {
  const output = [
    'proxy: http://127.0.0.1:4000 -> http://127.0.0.1:3000; one line per finding, a report per key at exit',
    '   +51.5 s  test-l…      server MUST   schema.every-response: no response: ECONNRESET (#4992)',
    '    +0.0 s  test…(13 chars) client SHOULD client.avoids-deprecated: avoids deprecated operations (getPet): 1 of 1 requests (#1)',
    '  FAIL must   schema.every-response: no response: ECONNRESET',
  ].join('\n');
  const found = countFindings(output);
  assert.equal([found.server, found.client, found.lines.length, found.unjudged], [1, 1, 2, null]);
  // Its report at exit says whether its judge took every exchange.
  const reported = `${output}\n\nTraffic through the proxy to http://127.0.0.1:3000: 9 requests in 1.0 s, 0 findings`;
  assert.is(countFindings(reported).unjudged, 0);
  assert.is(countFindings(`${reported}\nNOT JUDGED: 12 exchanges passed while the judge was too far behind`).unjudged, 12);
});

test('a series: rates and CPU by median of clean rounds (the proxy and the bare forwarding floor), the throughput paired by round, RSS growth first to last, a void round left out', () => {
  const rounds = [
    round({ round: 1, via: 'direct', rps: 4000 }),
    round({ round: 1, via: 'proxy', rps: 1000, proxyRssBytes: 90e6, proxyMsPerRequest: 0.75 }),
    round({ round: 2, via: 'proxy', rps: 50, wrong: 3, void: '3 x non-2xx/3xx', proxyMsPerRequest: 9 }),
    round({ round: 2, via: 'direct', rps: 2000 }),
    round({ round: 3, via: 'direct', rps: 3000 }),
    round({ round: 3, via: 'proxy', rps: 1500, proxyRssBytes: 130e6, proxyMsPerRequest: 0.25 }),
    round({ round: 1, via: 'bare', rps: 2500, proxyMsPerRequest: 0.125, forwardingMsPerRequest: 0.125 }),
    round({ round: 3, via: 'bare', rps: 2500, proxyMsPerRequest: 0.25, forwardingMsPerRequest: 0.25 }),
  ];
  const series = summarizeSeries(32, rounds, { server: 0, client: 0, lines: [] }, { nullRps: 20_000, wrkBusy: 0.5, ceiling: 40_000 });
  assert.is(series.directRps, 3000);
  assert.is(series.proxyRps, 1250);
  // Round 1: 1000/4000, round 3: 1500/3000; round 2's proxy side is void.
  assert.is(series.throughputRatio, (0.25 + 0.5) / 2);
  assert.is(series.cpuRatio, (3 + 1) / 2);
  // The floor: forwarding alone, over the server's CPU of the same round.
  assert.is(series.bareMs, (0.125 + 0.25) / 2);
  assert.is(series.bareRatio, (0.5 + 1) / 2);
  // By thread, paired by round: round 1's proxy forwards at 0.375 against the bare 0.125 (3x), round 3's at 0.125 against 0.25 (0.5x).
  assert.is(series.threads.forwardingOverBare, (3 + 0.5) / 2);
  assert.is(series.threads.totalOverBare, (6 + 1) / 2);
  assert.is(series.threads.proxy.forwarding, (0.375 + 0.125) / 2);
  assert.is(series.threads.proxy.other, (0.375 + 0.125) / 2);
  assert.is(series.threads.bare.other, 0);
  assert.is(series.rssGrowthBytes, 40e6);
  assert.is(series.headroom, 10);
  const report: ProxyCaseReport = {
    settings: {
      rounds: 3,
      duration: 10,
      warmup: 0,
      connections: [32],
      pin: true,
      keep: false,
      generator: 'wrk',
      layout: 'test',
      proxyOwnCore: true,
      build: '',
    },
    series: [series],
  };
  const verdicts = Object.fromEntries(proxyVerdicts(report).map((v) => [v.what.split(' ').slice(0, 2).join(' '), v.met]));
  assert.equal(verdicts, {
    'no server': true,
    'every exchange': null,
    'proxy RSS': false,
    'proxy CPU': false,
    'proxy forwarding': false,
    'throughput via': false,
    'load generator': true,
  });
  const text = renderProxyCase(report);
  assert.match(text, /round 2 proxy is VOID: 3 x non-2xx\/3xx/);
  assert.match(text, /MISSED proxy CPU per request at most 1\.0x the server's: 2\.00x at 32/);
  // The forwarding thread is judged against the bare proxy; the total of every thread is shown beside it.
  assert.match(
    text,
    /MISSED proxy forwarding thread CPU per request at most 1\.25x the bare forwarding proxy's \(issue 42; every thread counted: 3\.50x at 32\): 1\.75x at 32/,
  );
  // Sharing a core with wrk is not the condition the throughput target names: not judged.
  assert.is(proxyVerdicts({ ...report, settings: { ...report.settings, proxyOwnCore: false } }).find((v) => v.what.startsWith('throughput'))!.met, null);
});

const root = fileURLToPath(new URL('..', import.meta.url));
const wrk = await findWrk();
if (!wrk) process.stdout.write('SKIP: wrk is not installed, so the proxy case is not run (apt-get install wrk)\n');
const live = wrk ? test : test.skip;

live('a short real run: every process measured in every round (the bare forwarding floor too), the proxy judged the reference server clean', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-proxy-'));
  try {
    const json = join(dir, 'bench.json');
    const args = ['--cases', 'proxy', '--proxy-rounds', '2', '--proxy-duration', '1', '--warmup', '0', '--proxy-connections', '4', '--json', json];
    const run = spawnSync(process.execPath, [...sourceArgs('bench/cli.ts'), ...args], { cwd: root, encoding: 'utf8', timeout: 180_000 });
    assert.is(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
    const { proxy } = JSON.parse(readFileSync(json, 'utf8')) as { proxy: ProxyCaseReport };
    assert.is(proxy.skipped, undefined);
    const [series] = proxy.series;
    assert.equal(
      series!.rounds.map((r) => `${r.round} ${r.via}`),
      ['1 direct', '1 proxy', '1 bare', '2 proxy', '2 bare', '2 direct'],
    );
    for (const r of series!.rounds) {
      assert.is(r.void, undefined, `round ${r.round} ${r.via}: ${r.void}`);
      assert.ok(r.rps > 0 && Number.isFinite(r.serverMsPerRequest), `round ${r.round} ${r.via}`);
      if (r.via === 'proxy') assert.ok(Number.isFinite(r.proxyMsPerRequest) && r.proxyRssBytes! > 20e6, `round ${r.round}: ${JSON.stringify(r)}`);
      if (r.via === 'bare') assert.ok(Number.isFinite(r.proxyMsPerRequest), `round ${r.round}: ${JSON.stringify(r)}`);
      // The main thread is one of the process's threads: never more than all of them.
      if (r.via !== 'direct')
        assert.ok(r.forwardingMsPerRequest! >= 0 && r.forwardingMsPerRequest! <= r.proxyMsPerRequest!, `round ${r.round}: ${JSON.stringify(r)}`);
    }
    assert.is(series!.findings.server, 0, series!.findings.lines.join('\n'));
    assert.is(series!.findings.unjudged, 0, 'the proxy reported at exit, every exchange judged');
    assert.ok(series!.ceiling && series!.ceiling.nullRps > 0, 'the null server measured the load generator');
    assert.match(run.stdout, /^proxy case: the reference server/m);
    assert.match(run.stdout, /targets \(issues 29 and 42\):/);
    assert.match(run.stdout, /by thread, against the bare proxy in the same rounds: forwarding \(main thread\) [\d.]+ ms/);
    assert.match(run.stdout, /forwarding alone \(bench\/peers\/bare-proxy\.mjs, nothing judged\): [\d.]+ ms/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
