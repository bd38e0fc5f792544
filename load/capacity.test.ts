// capacity.js's search for the knee, run under the k6 shim against fake targets on a fake clock:
// the doubling pass brackets the knee, the BETWEEN pass narrows it, and only a target that cannot
// carry the first step fails the run's thresholds.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kneeTarget, limitedTarget, petsTarget } from './testing/fake-targets.ts';
import { captureConsole } from './testing/k6-shim.ts';
import { runScript } from './testing/k6-run.ts';

const CAPACITY = join(dirname(fileURLToPath(import.meta.url)), 'capacity.js');
const START = Date.UTC(2026, 10, 22, 10, 0, 17, 300);

async function run(env: Record<string, string>, handler: Parameters<typeof runScript>[1]['handler']) {
  const out = captureConsole();
  try {
    const r = await runScript(CAPACITY, { env, handler, startMs: START });
    return { ...r, json: JSON.parse(r.summary['capacity-summary.json']!) as { extra: Record<string, unknown> } };
  } finally {
    out.restore();
  }
}

const SMALL = { START_RATE: '10', MAX_RATE: '400', HOLD: '5s', P95_MS: '100', P99_MS: '200' };

test('by default the rate doubles until the objective breaks; the run names the rate that held, the one that broke, and the next command', async () => {
  const r = await run(SMALL, kneeTarget(65));
  const scenarios = Object.keys(r.module.options!.scenarios!);
  assert.equal(scenarios, ['step-10', 'step-20', 'step-40', 'step-80', 'step-160', 'step-320']);
  const stdout = r.summary.stdout!;
  assert.match(stdout, /held 40\/s/);
  assert.match(stdout, /MISSED 80\/s: .*\((p95|p99|\d+ iterations dropped|achieved)/);
  assert.match(stdout, /highest sustained rate: 40 requests\/s/);
  assert.match(stdout, /first broken rate: 80 requests\/s/);
  assert.match(stdout, /next: k6 run --no-usage-report -e BETWEEN=40,80 load\/capacity\.js/);
  // A search goes past the knee on purpose: its thresholds only ask that the first step holds.
  assert.equal(r.failed, [], JSON.stringify(r.failed));
  assert.not.match(stdout, /\{scenario:step-/, 'per-step bookkeeping thresholds are hidden from the text');
  const extra = r.json.extra as { mode: string; highestSustained: { rate: number }; firstBroken: { rate: number }; next: unknown };
  assert.equal([extra.mode, extra.highestSustained.rate, extra.firstBroken.rate], ['search', 40, 80]);
  assert.equal(extra.next, { kind: 'refine', between: [40, 80] });
});

test('BETWEEN narrows the knee in STEPS equal climbs, both ends measured again', async () => {
  const r = await run({ ...SMALL, BETWEEN: '40,80', STEPS: '4' }, kneeTarget(65));
  assert.equal(Object.keys(r.module.options!.scenarios!), ['step-40', 'step-50', 'step-60', 'step-70', 'step-80']);
  assert.match(r.summary.stdout!, /highest sustained rate: 60 requests\/s/);
  assert.match(r.summary.stdout!, /first broken rate: 70 requests\/s/);
  assert.match(r.summary.stdout!, /next: k6 run --no-usage-report -e BETWEEN=60,70 load\/capacity\.js/);
  const done = await run({ ...SMALL, BETWEEN: '60,80', STEPS: '2', RESOLUTION: '0.2' }, kneeTarget(65));
  assert.match(done.summary.stdout!, /knee: between 60 and 70 requests\/s, within 20%/);
});

test('a target that cannot carry the first step fails the run; one that never breaks asks for a higher maximum', async () => {
  const weak = await run(SMALL, kneeTarget(5));
  assert.ok(
    weak.failed.some((t) => t.key === 'http_req_duration{scenario:step-10}'),
    JSON.stringify(weak.failed),
  );
  assert.match(weak.summary.stdout!, /highest sustained rate: none/);
  assert.match(weak.summary.stdout!, /the first step broke on the server; lower START_RATE/);
  const strong = await run({ ...SMALL, MAX_RATE: '80' }, petsTarget());
  assert.equal(strong.failed, []);
  assert.match(strong.summary.stdout!, /highest sustained rate: 80 requests\/s/);
  assert.match(strong.summary.stdout!, /first broken rate: none up to 80 requests\/s/);
  assert.match(strong.summary.stdout!, /nothing broke; raise MAX_RATE/);
  assert.ok(strong.shim.requests.some((q) => q.method === 'POST') && strong.shim.requests.some((q) => q.method === 'GET'));
});

test('bad search settings stop the run before any request', async () => {
  for (const [env, message] of [
    [{ START_RATE: '500', MAX_RATE: '100' }, /MAX_RATE must be at least START_RATE/],
    [{ BETWEEN: '80' }, /BETWEEN takes two rates/],
    [{ STEPS: '0' }, /STEPS=0 is below 1/],
  ] as const) {
    try {
      await run(env, petsTarget());
      assert.unreachable(JSON.stringify(env));
    } catch (error) {
      assert.match((error as Error).message, message);
    }
  }
});

test("a key whose limit binds is reported as the key's limit, stopped before a ban, and the run is ABORTED (exit 108)", async () => {
  const r = await run({ ...SMALL, MAX_RATE: '320' }, limitedTarget({ limit: 3000, banAfter: 20 }, petsTarget()));
  const stdout = r.summary.stdout!;
  assert.ok(r.aborted, 'the search aborts');
  assert.match(stdout, /^ABORTED: limited by the key at \d+\/s: X-RateLimit-Limit 3000/m);
  assert.match(stdout, /bound found: the key's limit at \d+\/s/);
  assert.match(stdout, /next: the key, not the server, was measured/);
  assert.not.match(stdout, /BETWEEN=/, 'no narrowing of a knee that is the key');
  assert.match(stdout, /result: ABORTED \(k6 exits 108\)/);
  assert.not.match(stdout, /result: PASS/);
  // Stopped on the forecast: not a single 429, so nothing near the ban.
  assert.is(r.shim.samples.filter((s) => s.metric === 'http_reqs' && s.tags.status === '429').length, 0);
  assert.equal((r.json.extra as { bound: string }).bound, 'key');
});

test('a key refused outright by a 429 is quoted with its Retry-After', async () => {
  const r = await run({ ...SMALL, START_RATE: '40' }, (_req, nowMs) => ({
    status: 429,
    headers: { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Math.floor(nowMs / 1000) + 30), 'Retry-After': '30' },
    body: '{}',
  }));
  assert.match(r.summary.stdout!, /ABORTED: limited by the key at 40\/s: 429 with X-RateLimit-Limit 60, Retry-After 30 s/);
  assert.is(r.shim.requests.length, 1, 'only the probe was sent');
});

test('a setup that cannot reach the target prints ABORTED with the reason first, and no advice', async () => {
  const r = await run(SMALL, () => ({ status: 0 }));
  const lines = r.summary.stdout!.trim().split('\n');
  assert.match(lines[1]!, /^ABORTED: target .* is not answering/);
  assert.not.match(r.summary.stdout!, /next:|highest sustained/);
  assert.match(r.summary.stdout!, /result: ABORTED \(k6 exits 108\)/);
  assert.equal((JSON.parse(r.summary['capacity-summary.json']!) as { result: string }).result, 'ABORTED');
});

test('one generator of two runs half of each rate, judges its half, and names its summary after its segment', async () => {
  const out = captureConsole();
  try {
    const r = await runScript(CAPACITY, {
      env: { ...SMALL, MAX_RATE: '40' },
      handler: petsTarget(),
      startMs: START,
      executionSegment: '1/2:1',
      executionSegmentSequence: '0,1/2,1',
    });
    assert.equal(r.failed, []);
    const json = JSON.parse(r.summary['capacity-summary-1_2-1.json']!) as {
      extra: { segment: { share: number }; steps: Array<{ ok: boolean; offered: number }> };
    };
    assert.is(json.extra.segment.share, 0.5);
    assert.equal(
      json.extra.steps.map((s) => [s.ok, s.offered]),
      [
        [true, 5],
        [true, 10],
        [true, 20],
      ],
    );
    assert.match(r.summary.stdout!, /merge every generator's summary with npm run load:merge/);
  } finally {
    out.restore();
  }
});

test.run();
