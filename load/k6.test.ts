// Runs the scripts with a real k6 against a reference server started in-process, whenever a k6
// binary is found (K6_BIN, or k6 on PATH): smoke.js, a short rate-limit.js that must pass, the same
// against an over-admitting limiter that must fail, capacity.js with the load key, with a key that
// binds, split over two generators and merged, and stopped at setup; with K6_FULL=1 the full
// rate-limit.js that crosses window boundaries and probes a ban until it lifts (about 6 minutes). Without k6 those runs are not registered at all
// (no pass is counted for what did not run) and the file says so; the guide's tests below always run.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EVENTS } from '../spec/rules/rules.js';
import { limitedTarget } from './testing/fake-targets.ts';
import { findK6, runK6, type K6Run } from './testing/k6-bin.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const README = join(here, 'README.md');

// --- always: load/README.md documents what the scripts read --------------------------------------

const envNames = (file: string) => {
  const text = readFileSync(join(here, file), 'utf8');
  const names = new Set<string>();
  for (const m of text.matchAll(/(?:Env|stringEnv|numberEnv|boolEnv|durationEnv)\(__ENV, '([A-Z_0-9]+)'/g)) names.add(m[1]!);
  for (const m of text.matchAll(/__ENV\.([A-Z_0-9]+)/g)) names.add(m[1]!);
  return names;
};
const libEnv = new Set<string>();
for (const f of readdirSync(join(here, 'lib')).filter((f) => f.endsWith('.js'))) {
  for (const n of envNames(`lib/${f}`)) libEnv.add(n);
  for (const m of readFileSync(join(here, 'lib', f), 'utf8').matchAll(/raw\(env, '([A-Z_0-9]+)'\)|Env\(env, '([A-Z_0-9]+)'/g)) libEnv.add((m[1] ?? m[2])!);
}

for (const script of ['smoke.js', 'rate-limit.js', 'capacity.js']) {
  test(`load/README.md documents every environment variable ${script} reads`, () => {
    const readme = readFileSync(README, 'utf8');
    const names = new Set([...envNames(script), ...libEnv]);
    assert.ok(names.size >= 4, [...names].join(', '));
    for (const name of names) assert.match(readme, new RegExp('`' + name + '`'), `${name} is not documented in load/README.md`);
  });

  test(`load/README.md has k6 run lines for ${script} against our server, a Prism mock and a remote implementation`, () => {
    const lines = readFileSync(README, 'utf8')
      .split('\n')
      .filter((l) => l.includes(`k6 run`) && l.includes(`load/${script}`));
    assert.ok(
      lines.some((l) => !l.includes('BASE_URL')),
      `a line against our server (default BASE_URL) for ${script}`,
    );
    if (script === 'smoke.js')
      assert.ok(
        lines.some((l) => l.includes('BASE_URL=http://127.0.0.1:4010')),
        'a line against the Prism mock',
      );
    assert.ok(
      lines.some((l) => /BASE_URL=https:\/\//.test(l)),
      `a line against a remote implementation for ${script}`,
    );
  });
}

// Each rule's row is generated into the README (scripts/generate.ts); the event counters are prose.
test('load/README.md explains every event counter rate-limit.js reports', () => {
  const readme = readFileSync(README, 'utf8');
  for (const event of EVENTS.filter((e) => !['admitted', 'rejected', 'transport_error'].includes(e))) {
    assert.match(readme, new RegExp('`ratelimit_' + event), `ratelimit_${event} is not explained`);
  }
});

// --- only with k6: real runs --------------------------------------------------------------------

const k6 = findK6();

/** The runs a real k6 does; without a k6 binary each is registered as skipped, never as passed. */
const K6_RUNS = [
  'k6: smoke.js passes against the reference server',
  'k6: a short rate-limit.js passes against the reference server (12/min key, boundary not required)',
  'k6: the same rate-limit.js run FAILS against a limiter that over-admits',
  'k6: capacity.js with the default key measures the server: no 429, no ban',
  "k6: capacity.js with a key whose limit binds reports the key's limit and exits 108, before any ban",
  'k6: two capacity.js generators with execution segments merge into one verdict',
  'k6: an aborted setup prints ABORTED with its reason first and exits 108; rate-limit.js refuses a segment',
];

if (k6 === null) {
  process.stdout.write(
    'SKIP: k6 not found (set K6_BIN or put k6 on PATH), so the real k6 runs are not made; the scripts were type-checked, syntax-checked and run under the k6 shim instead\n',
  );
  for (const name of K6_RUNS) test.skip(name, () => undefined);
} else {
  const { createServer } = await import('../server/index.ts');
  const fixtures = JSON.parse(readFileSync(join(root, 'fixtures', 'api-keys.json'), 'utf8')) as Array<Record<string, unknown>>;
  const SMALL = { key: 'k6-test-small-key', plan: 'enterprise', limits: { perMinute: 12, perDay: 100_000 } };
  const server = await createServer({ host: '127.0.0.1', port: 0, logger: false, apiKeys: [...fixtures, SMALL] as never });
  await server.start();
  const baseUrl = `${server.info.uri}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'k6-runs-'));
  process.stdout.write(`k6 found at ${k6}; reference server at ${baseUrl}\n`);

  test.after(async () => {
    await server.stop({ timeout: 1000 });
    rmSync(dir, { recursive: true, force: true });
  });

  const expectPass = (r: K6Run) => {
    assert.ok(r.summary, `no JSON summary; k6 said:\n${r.output}`);
    assert.is(r.code, 0, `k6 exited ${r.code}:\n${r.output}`);
    assert.is(r.summary!.passed, true, JSON.stringify(r.summary!.failedThresholds));
  };

  test(K6_RUNS[0]!, async () => {
    expectPass(await runK6(k6, 'smoke.js', { BASE_URL: baseUrl, API_KEY: 'test-pro-key', DURATION: '10s' }, dir, 60_000));
  });

  test(K6_RUNS[1]!, async () => {
    const r = await runK6(
      k6,
      'rate-limit.js',
      { BASE_URL: baseUrl, API_KEY: SMALL.key, LIMIT: '12', OVERDRIVE: '10', DURATION: '25s', CROSS_WINDOWS: '0' },
      dir,
      90_000,
    );
    expectPass(r);
    assert.match(r.output, /window boundary not required/);
    assert.match(
      readFileSync(r.summaryPath.replace(/\.json$/, '.svg'), 'utf8'),
      /^<svg[\s\S]*tl-refused[\s\S]*<\/svg>\n?$/,
      'the timeline lands beside the JSON',
    );
  });

  test(K6_RUNS[2]!, async () => {
    const fake = limitedTarget({ limit: 12, fault: 'over-admit' });
    const http: HttpServer = createHttpServer((req, res) => {
      const r = fake(
        {
          method: req.method ?? 'GET',
          url: `http://127.0.0.1${req.url ?? '/'}`,
          headers: { Authorization: String(req.headers.authorization ?? '') },
          body: null,
        },
        Date.now(),
      );
      res.writeHead(r.status, r.headers);
      res.end(r.body ?? '');
    });
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    try {
      const port = (http.address() as AddressInfo).port;
      const r = await runK6(
        k6,
        'rate-limit.js',
        { BASE_URL: `http://127.0.0.1:${port}/v1`, API_KEY: 'any', LIMIT: '12', OVERDRIVE: '10', DURATION: '25s', CROSS_WINDOWS: '0' },
        dir,
        90_000,
      );
      assert.is(r.code, 99, `k6 exits 99 when thresholds fail; it exited ${r.code}:\n${r.output}`);
      assert.ok(
        r.summary!.failedThresholds.some((t) => t.metric === 'ratelimit_violations{kind:over_admitted}'),
        JSON.stringify(r.summary!.failedThresholds),
      );
    } finally {
      await new Promise((done) => http.close(done));
    }
  });

  const CAPACITY = { BASE_URL: baseUrl, RATES: '50,100', HOLD: '3s' };

  test(K6_RUNS[3]!, async () => {
    const r = await runK6(k6, 'capacity.js', CAPACITY, dir, 60_000);
    expectPass(r);
    assert.is(r.summary!.extra.keyLimited, null);
    assert.match(readFileSync(r.summaryPath.replace(/\.json$/, '.svg'), 'utf8'), /class="cap-knee"|class="cap-step/, 'the chart lands beside the JSON');
    assert.match(r.output, /bound found: none up to 100\/s/);
    assert.match(r.output, /held 50\/s: .* k6: VUs busy at most \d+ of 200, \d+ dropped, iteration [\d.]+ ms for a [\d.]+ ms request/);
    const after = await fetch(`${baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer test-load-key' } });
    assert.is(after.status, 200, 'the load key is neither limited nor banned');
  });

  test(K6_RUNS[4]!, async () => {
    // 1,000 a minute: at 400/s the window runs out within seconds, even if it resets once meanwhile.
    const r = await runK6(k6, 'capacity.js', { ...CAPACITY, RATES: '400', HOLD: '5s', API_KEY: 'test-business-key' }, dir, 60_000);
    assert.is(r.code, 108, r.output);
    assert.is(r.summary!.result, 'ABORTED');
    assert.match(
      r.output,
      /ABORTED: limited by the key at 400\/s: X-RateLimit-Limit 1000, X-RateLimit-Remaining \d+ with the window resetting in \d+ s would run out within 2 s/,
    );
    assert.match(r.output, /bound found: the key's limit at 400\/s/);
    assert.not.match(r.output, /result: PASS|BETWEEN=/);
    const after = await fetch(`${baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer test-business-key' } });
    assert.is(after.status, 200, 'stopped before the key was refused, so it is not banned');
  });

  test(K6_RUNS[5]!, async () => {
    const sequence = ['--execution-segment-sequence', '0,1/2,1'];
    const [a, b] = await Promise.all([
      runK6(k6, 'capacity.js', CAPACITY, dir, 60_000, ['--execution-segment', '0:1/2', ...sequence]),
      runK6(k6, 'capacity.js', CAPACITY, dir, 60_000, ['--execution-segment', '1/2:1', ...sequence]),
    ]);
    expectPass(a);
    expectPass(b);
    const { mergeSummaries } = await import('./lib/merge.js');
    const merged = mergeSummaries([a, b].map((r) => ({ name: r.summaryPath, summary: JSON.parse(readFileSync(r.summaryPath, 'utf8')) })));
    assert.is(merged.result, 'PASS', merged.lines.join('\n'));
    assert.match(merged.lines.join('\n'), /held 50\/s: achieved (4[89]|5[01])\.\d\/s/);
  });

  test(K6_RUNS[6]!, async () => {
    const down = await runK6(k6, 'capacity.js', { ...CAPACITY, BASE_URL: 'http://127.0.0.1:9/v1' }, dir, 60_000);
    assert.is(down.code, 108, down.output);
    assert.match(down.output, /== capacity\.js against http:\/\/127\.0\.0\.1:9\/v1 ==\nABORTED: target .* is not answering/);
    assert.not.match(down.output, /next:|result: PASS/);
    const segment = await runK6(k6, 'rate-limit.js', { BASE_URL: baseUrl, API_KEY: SMALL.key }, dir, 60_000, [
      '--execution-segment',
      '0:1/2',
      '--execution-segment-sequence',
      '0,1/2,1',
    ]);
    assert.is(segment.code, 108, segment.output);
    assert.match(segment.output, /ABORTED: rate-limit\.js judges each window by counting every request of the key, so it runs on ONE k6 process/);
  });

  if (process.env.K6_FULL === '1') {
    test('k6 (K6_FULL=1): the full rate-limit.js crosses window boundaries and passes, with the ban scenario', async () => {
      // A server of its own, whose ban (5 refusals) lasts 90 s: the probes see it past its window and lifted.
      const banning = await createServer({
        host: '127.0.0.1',
        port: 0,
        logger: false,
        rateLimit: { ban: { threshold: 5, periodSeconds: 60, durationSeconds: 90 } },
      });
      await banning.start();
      try {
        const r = await runK6(
          k6,
          'rate-limit.js',
          { BASE_URL: `${banning.info.uri}/v1`, API_KEY: 'test-free-key', PLAN: 'free', BAN: '1', BAN_DURATION: '200s' },
          dir,
          600_000,
        );
        expectPass(r);
        assert.ok(
          r.summary!.report.some((l) => /crossed \d+ window boundar/.test(l)),
          r.summary!.report.join('\n'),
        );
        assert.ok(
          r.summary!.report.some((l) => /after the window it began in had ended; lifted when Retry-After said: yes/.test(l)),
          r.summary!.report.join('\n'),
        );
      } finally {
        await banning.stop({ timeout: 1000 });
      }
    });
  } else {
    process.stdout.write('K6_FULL is not 1: the full rate-limit.js run (window boundaries, a ban until it lifts) is left out.\n');
  }
}

test.run();
