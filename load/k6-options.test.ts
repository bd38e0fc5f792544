// k6's own --vus, --duration and --iterations on every script: k6 then replaces `scenarios` with one
// scenario running the exported `default`, so each script must export one that does its main
// iteration (issue 39: `k6 run --vus 1 --duration 5s load/smoke.js` exited 104, "function 'default'
// not found"). Under the shim always; with a real k6 against a reference server when one is found.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limitedTarget, petsTarget } from './testing/fake-targets.ts';
import { findK6, runK6 } from './testing/k6-bin.ts';
import { captureConsole, type Handler } from './testing/k6-shim.ts';
import { runScript, type Overrides } from './testing/k6-run.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const START = Date.UTC(2026, 10, 22, 10, 0, 17, 300);

async function run(script: string, env: Record<string, string>, handler: Handler, overrides: Overrides) {
  const out = captureConsole();
  try {
    return { ...(await runScript(join(here, script), { env, handler, startMs: START, overrides })), console: [...out.lines] };
  } finally {
    out.restore();
  }
}

test('smoke.js --vus 1 --duration 5s: the smoke iteration, paced to RATE a minute, and the run passes', async () => {
  const r = await run('smoke.js', {}, petsTarget(), { vus: 1, duration: '5s' });
  assert.is(r.aborted, null);
  assert.equal(r.failed, [], JSON.stringify(r.failed));
  // RATE=30 a minute for one VU: one every 2 s, so 3 within 5 s (two POSTs each: a pet and an invalid
  // one); the fourth would come after the duration, so it only waits for the end.
  assert.is(r.shim.requests.filter((q) => q.method === 'POST').length, 6);
  assert.match(r.summary.stdout!, /k6's --vus 1 --duration 5s ran instead of the scenario/);
  assert.match(r.summary.stdout!, /result: PASS/);
});

test('smoke.js --iterations 2: exactly two smoke iterations', async () => {
  const r = await run('smoke.js', {}, petsTarget(), { iterations: 2 });
  assert.is(r.iterations, 2);
  assert.is(r.shim.requests.filter((q) => q.method === 'POST').length, 4, 'two creates and two invalid creates');
  assert.equal(r.failed, []);
});

test('smoke.js --vus 1 --duration 5s still judges: a broken target fails', async () => {
  const r = await run('smoke.js', {}, petsTarget('no-rate-limit-headers' as never), { vus: 1, duration: '5s' });
  assert.ok(r.failed.length > 0 || r.aborted !== null);
});

const SMALL = { API_KEY: 'k', LIMIT: '12', OVERDRIVE: '10', CROSS_WINDOWS: '0' };

test("rate-limit.js --duration 40s: the main client, judged under the main scenario's thresholds", async () => {
  const r = await run('rate-limit.js', SMALL, limitedTarget({ limit: 12 }), { duration: '40s' });
  assert.is(r.aborted, null, r.aborted ?? '');
  assert.equal(r.failed, [], JSON.stringify(r.failed));
  const saturated = r.thresholds.find((t) => t.key === 'ratelimit_window_saturated{scenario:limit}');
  assert.ok(saturated && saturated.ok, 'the saturated window is counted under scenario:limit');
  assert.ok(r.shim.requests.length > 13, `${r.shim.requests.length} requests`);
});

test('rate-limit.js --duration 40s against an over-admitting limiter fails, as its own scenario does', async () => {
  const r = await run('rate-limit.js', SMALL, limitedTarget({ limit: 12, fault: 'over-admit' }), { duration: '40s' });
  assert.ok(
    r.failed.some((t) => /over_admitted/.test(t.key)),
    JSON.stringify(r.failed.map((t) => t.key)),
  );
});

const REFUSED: Array<[string, Record<string, string>, Overrides, RegExp]> = [
  ['--vus 2 (one VU counts every request)', SMALL, { vus: 2, duration: '40s' }, /--vus 2 --duration 40s would split them between 2 VUs.*CLIENTS=2/],
  ['--duration 5s (too short for a window)', { PLAN: 'free' }, { duration: '5s' }, /--duration 5s is too short .*raise --duration to at least/],
  [
    '--iterations 3 (too few)',
    { PLAN: 'free', CROSS_WINDOWS: '0' },
    { iterations: 3 },
    /--iterations 3 \(2 s at 90 a minute\) is too short .*raise --iterations to at least/,
  ],
  ['BAN=1 (a second scenario k6 would not run)', { PLAN: 'free', BAN: '1' }, { duration: '200s' }, /BAN=1 runs a second scenario/],
];
for (const [what, env, overrides, reason] of REFUSED) {
  test(`rate-limit.js refuses k6's own options at setup: ${what}`, async () => {
    const r = await run('rate-limit.js', env, limitedTarget({ limit: 60 }), overrides);
    assert.match(r.aborted ?? '', reason);
    assert.match(r.summary.stdout!, /result: ABORTED \(k6 exits 108\)/);
  });
}

test('capacity.js --vus 2 --duration 3s: the step request back to back, judged as a whole against the objective', async () => {
  const r = await run('capacity.js', {}, petsTarget(), { vus: 2, duration: '3s' });
  assert.is(r.aborted, null, r.aborted ?? '');
  const stdout = r.summary.stdout!;
  assert.match(stdout, /k6's --vus 2 --duration 3s replaced the search: no steps, no knee/);
  assert.match(stdout, /achieved [\d.]+ requests\/s, errors 0\.00%, .*within the objective/);
  assert.match(stdout, /next: search for the knee by running it without --vus, --duration and --iterations/);
  assert.not.match(stdout, /held \d+\/s|broke at/);
  assert.is(r.summary['capacity-summary.svg'], undefined, 'no picture of steps that did not run');
});

test('capacity.js --iterations 5 against a limiting target stops for the key', async () => {
  const r = await run('capacity.js', { API_KEY: 'k' }, limitedTarget({ limit: 3 }), { iterations: 5 });
  assert.match(r.aborted ?? '', /limited by the key/);
});

const k6 = findK6();
if (k6 === null) {
  process.stdout.write('SKIP: k6 not found (set K6_BIN or put k6 on PATH): the real k6 runs with --vus, --duration, --iterations are not made\n');
  test.skip('real k6: --vus/--duration/--iterations on every script', () => undefined);
} else {
  const { createServer } = await import('../server/index.ts');
  const fixtures = JSON.parse(readFileSync(join(root, 'fixtures', 'api-keys.json'), 'utf8')) as Array<Record<string, unknown>>;
  const small = { key: 'k6-options-small-key', plan: 'enterprise', limits: { perMinute: 12, perDay: 100_000 } };
  const server = await createServer({ host: '127.0.0.1', port: 0, logger: false, apiKeys: [...fixtures, small] as never });
  await server.start();
  const baseUrl = `${server.info.uri}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'k6-options-'));
  test.after(async () => {
    await server.stop({ timeout: 1000 });
    rmSync(dir, { recursive: true, force: true });
  });

  // The latency objectives are set past any machine's: a busy one must not fail these runs.
  test('real k6: smoke.js --vus 1 --duration 5s exits 0 (was 104, no default function)', async () => {
    const r = await runK6(k6, 'smoke.js', { BASE_URL: baseUrl, P95_MS: '60000' }, dir, 60_000, ['--vus', '1', '--duration', '5s']);
    assert.is(r.code, 0, r.output);
    assert.match(r.summary!.report.join('\n'), /k6's --vus 1 --duration 5s ran instead of the scenario/);
  });

  test('real k6: rate-limit.js --duration 20s on a 12/min key passes, judged as its main scenario', async () => {
    const env = { BASE_URL: baseUrl, API_KEY: small.key, LIMIT: '12', OVERDRIVE: '10', CROSS_WINDOWS: '0' };
    const r = await runK6(k6, 'rate-limit.js', env, dir, 90_000, ['--duration', '20s']);
    assert.is(r.code, 0, r.output);
  });

  test('real k6: rate-limit.js --vus 2 is refused at setup (108)', async () => {
    const r = await runK6(k6, 'rate-limit.js', { BASE_URL: baseUrl, PLAN: 'free' }, dir, 60_000, ['--vus', '2', '--duration', '5s']);
    assert.is(r.code, 108, r.output);
    assert.match(r.output, /would split them between 2 VUs/);
  });

  test('real k6: capacity.js --iterations 50 exits 0 with the whole-run report', async () => {
    const r = await runK6(k6, 'capacity.js', { BASE_URL: baseUrl, P95_MS: '30000', P99_MS: '60000' }, dir, 60_000, ['--iterations', '50']);
    assert.is(r.code, 0, r.output);
    assert.match(r.summary!.report.join('\n'), /k6's --vus 1 --iterations 50 replaced the search/);
  });
}

test.run();
