// capacity.js's search for the knee, run under the k6 shim against fake targets on a fake clock:
// the doubling pass brackets the knee, the BETWEEN pass narrows it, and only a target that cannot
// carry the first step fails the run's thresholds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';
import { CAPACITY_VARIABLES } from './lib/next-run.js';
import { kneeTarget, limitedTarget, petsTarget } from './testing/fake-targets.ts';
import { findK6, runK6 } from './testing/k6-bin.ts';
import { captureConsole, type Handler } from './testing/k6-shim.ts';
import { runScript } from './testing/k6-run.ts';

const CAPACITY = join(dirname(fileURLToPath(import.meta.url)), 'capacity.js');
const START = Date.UTC(2026, 10, 22, 10, 0, 17, 300);

async function run(env: Record<string, string>, handler: Parameters<typeof runScript>[1]['handler']) {
  const out = captureConsole();
  try {
    // k6 run from the repository's root, as the guide's lines are: k6 hands the script PWD.
    const r = await runScript(CAPACITY, { env: { PWD: join(dirname(CAPACITY), '..'), ...env }, handler, startMs: START });
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
  assert.match(
    stdout,
    /next: k6 run --no-usage-report -e START_RATE=10 -e MAX_RATE=400 -e HOLD=5s -e P95_MS=100 -e P99_MS=200 -e BETWEEN=40,80 load\/capacity\.js/,
  );
  // A search goes past the knee on purpose: its thresholds only ask that the first step holds.
  assert.equal(r.failed, [], JSON.stringify(r.failed));
  assert.not.match(stdout, /\{scenario:step-/, 'per-step bookkeeping thresholds are hidden from the text');
  const extra = r.json.extra as { mode: string; highestSustained: { rate: number }; firstBroken: { rate: number }; next: unknown };
  assert.equal([extra.mode, extra.highestSustained.rate, extra.firstBroken.rate], ['search', 40, 80]);
  assert.equal(extra.next, { kind: 'refine', between: [40, 80] });
});

test('BETWEEN narrows the knee in STEPS equal climbs, both ends measured again, after a first step at START_RATE', async () => {
  const r = await run({ ...SMALL, BETWEEN: '40,80', STEPS: '4' }, kneeTarget(65));
  assert.equal(Object.keys(r.module.options!.scenarios!), ['step-10', 'step-40', 'step-50', 'step-60', 'step-70', 'step-80']);
  assert.match(r.summary.stdout!, /highest sustained rate: 60 requests\/s/);
  assert.match(r.summary.stdout!, /first broken rate: 70 requests\/s/);
  assert.match(
    r.summary.stdout!,
    /next: k6 run --no-usage-report -e START_RATE=10 -e MAX_RATE=400 -e STEPS=4 -e HOLD=5s -e P95_MS=100 -e P99_MS=200 -e BETWEEN=60,70 load\/capacity\.js/,
  );
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
  assert.match(
    strong.summary.stdout!,
    /next: nothing broke up to 80\/s; search higher: k6 run --no-usage-report -e START_RATE=10 -e HOLD=5s .* -e MAX_RATE=320 load\/capacity\.js/,
  );
  assert.ok(strong.shim.requests.some((q) => q.method === 'POST') && strong.shim.requests.some((q) => q.method === 'GET'));
});

/**
 * The server: its request time grows from 2 ms to `slowMs` (within the objective) once the
 * search reaches 40/s, `afterMs` after the first request, and the slower answers keep the few VUs busy.
 */
function slowingTarget(afterMs: number, slowMs: number): Handler {
  const pets = petsTarget();
  let first: number | null = null;
  return (req, now) => {
    if (req.url.includes('limit=1')) return pets(req, now);
    first ??= now;
    return { ...pets(req, now), latencyMs: now - first >= afterMs ? slowMs : 2 };
  };
}

/**
 * A server that slows to `slowMs` a request from its `afterRequests`-th on, 2 ms before. For a real
 * k6, whose steps a busy machine shifts in time and bunches: what slows it is how much it has been
 * sent (at 10 and 20/s for 3 s each, 90 requests), never when the run began or how the requests came.
 */
function slowAfterRequests(afterRequests: number, slowMs: number): Handler {
  const pets = petsTarget();
  let served = 0;
  return (req, now) => {
    if (req.url.includes('limit=1')) return pets(req, now);
    served++;
    return { ...pets(req, now), latencyMs: served > afterRequests ? slowMs : 2 };
  };
}

test("the issue's run: VUs ran out because the server's request time grew, so the bound is the server's knee, in the text and in the picture", async () => {
  const r = await run({ ...SMALL, MAX_RATE: '80', MAX_VUS: '1' }, slowingTarget(10_000, 45));
  const stdout = r.summary.stdout!;
  assert.match(
    stdout,
    /MISSED 40\/s: .*k6: VUs busy at most 1 of 1, .* \(x22\.5 since 10\/s\) \(.*the server slowed down: its requests took 45\.0 ms, x22\.5 the 2\.0 ms at 10\/s, and kept the VUs waiting \(all 1 busy\)\)/,
  );
  assert.match(stdout, /bound found: the server's knee, between 20 and 40\/s/);
  assert.match(stdout, /ran out of VUs from 40\/s, waiting on the server's slower answers/);
  assert.match(stdout, / -e MAX_VUS=1 -e P95_MS=100 -e P99_MS=200 -e BETWEEN=20,40 load\/capacity\.js/);
  const svg = r.summary['capacity-summary.svg']!;
  assert.match(svg, /<title>bound found: the server&#39;s knee, between 20 and 40\/s/);
  assert.match(svg, /class="cap-knee" data-held="20" data-broke="40" data-bound="server"/);
  const extra = r.json.extra as { bound: string; steps: Array<{ cause: string | null; requestMs: number | null }> };
  assert.is(extra.bound, 'server');
  assert.equal(extra.steps.map((s) => s.cause)[2], 'slowdown');
});

test('the next line repeats every option the run was given (BASE_URL, MAX_VUS...), the key only by reference', async () => {
  const env = { ...SMALL, BASE_URL: 'http://127.0.0.1:3999/v1', MAX_VUS: '150', API_KEY: 'sk-live-7f3a', CREATE_RATIO: '0.5' };
  const r = await run(env, kneeTarget(65));
  const next = r.summary.stdout!.split('\n').find((l) => l.includes('next: '))!;
  assert.is(
    next.trim(),
    'next: k6 run --no-usage-report -e BASE_URL=http://127.0.0.1:3999/v1 -e API_KEY="$API_KEY" -e START_RATE=10 -e MAX_RATE=400 -e HOLD=5s -e MAX_VUS=150 -e P95_MS=100 -e P99_MS=200 -e CREATE_RATIO=0.5 -e BETWEEN=40,80 load/capacity.js   (narrows the knee in 4 steps)   (API_KEY: the value you gave, not printed)',
  );
  assert.not.match(JSON.stringify(r.summary), /sk-live/, 'the key is in no output');
});

test('the next line knows every variable capacity.js reads', async () => {
  const source = await readFile(CAPACITY, 'utf8');
  const read = new Set([...source.matchAll(/\w+Env\(__ENV, '([A-Z0-9_]+)'/g)].map((m) => m[1]!));
  // Read through lib/config.js: baseUrl(__ENV) and summaryPath(__ENV, ...).
  assert.match(source, /baseUrl\(__ENV\)/);
  assert.match(source, /summaryPath\(__ENV, /);
  for (const name of ['BASE_URL', 'SUMMARY_DIR', 'SUMMARY_JSON']) read.add(name);
  assert.ok(read.size >= 17, [...read].join(' '));
  assert.equal(
    [...read].filter((name) => !CAPACITY_VARIABLES.includes(name)),
    [],
  );
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
  assert.match(stdout, /next: the key, not the server, was measured; .*: k6 run --no-usage-report .* -e API_KEY=test-load-key load\/capacity\.js/);
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

/** A handler served over HTTP on 127.0.0.1 (a port the system picks), each answer held for its latencyMs: a real k6's target. */
async function serve(handler: Handler) {
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      // As k6 scripts name them (Authorization), which the fake targets read.
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase()), String(v)]));
      const answer = handler(
        { method: req.method ?? 'GET', url: `http://${req.headers.host}${req.url}`, headers, body: body === '' ? null : body },
        Date.now(),
      );
      setTimeout(() => res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? ''), answer.latencyMs ?? 0);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => new Promise<void>((done) => server.close(() => done())) };
}

const k6 = findK6();
if (k6 === null) process.stdout.write('SKIP: no k6 (K6_BIN or k6 on PATH), so capacity.js is not run by a real k6 here (it ran under the k6 shim above)\n');
(k6 === null ? test.skip : test)(
  "a real k6 against a server whose request time grows in its 40/s step with 16 VUs: the server's knee, the next line with every option",
  async () => {
    // 1 s a request at 40/s needs 40 VUs, far past 16; at 10 and 20/s, 2 ms a request, 16 VUs ride out
    // stalls of 800 ms (a run beside two busy loops dropped iterations at 20/s with 4 VUs, and read the
    // generator's ceiling). Objectives far above 1 s, so that a busy machine's answers still meet them
    // and the miss at 40/s is blamed, not failed on latency.
    const target = await serve(slowAfterRequests(100, 1000));
    const dir = mkdtempSync(join(tmpdir(), 'capacity-k6-'));
    const options = { BASE_URL: target.baseUrl, RATES: '10,20,40', HOLD: '3s', MAX_VUS: '16', P95_MS: '5000', P99_MS: '10000' };
    try {
      const r = await runK6(k6!, 'capacity.js', options, dir, START_BOUND_MS);
      assert.is(r.code, 0, r.output);
      assert.match(r.output, /MISSED 40\/s: .*the server slowed down: its requests took [\d.]+ ms, x\d+\.\d the [\d.]+ ms at (10|20)\/s/, r.output);
      assert.match(r.output, /bound found: the server's knee, between 20 and 40\/s/, r.output);
      assert.ok(
        r.output.includes(
          `next: k6 run --no-usage-report -e BASE_URL=${target.baseUrl} -e HOLD=3s -e MAX_VUS=16 -e P95_MS=5000 -e P99_MS=10000 -e SUMMARY_JSON=${r.summaryPath} -e BETWEEN=20,40 load/capacity.js`,
        ),
        r.output,
      );
      const svg = readFileSync(r.summaryPath.replace(/\.json$/, '.svg'), 'utf8');
      assert.match(svg, /<title>bound found: the server&#39;s knee, between 20 and 40\/s/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await target.close();
    }
  },
);

// Issue 39: the search kept stepping to 12,800/s after 800/s broke. Against a target that falls over
// (every answer a 503 from 15 s on), the steps after the one that saw it send nothing.
test('once a step shows the target overwhelmed, the search sends nothing more: later steps are not run', async () => {
  const pets = petsTarget();
  const fallsAtMs = START + 15_000;
  const times: number[] = [];
  const handler: Handler = (req, now) => {
    times.push(now);
    return now < fallsAtMs
      ? pets(req, now)
      : { status: 503, headers: { 'Content-Type': 'application/json' }, body: '{"code":"unavailable","message":"down","status":503}' };
  };
  const r = await run({ START_RATE: '10', MAX_RATE: '160', HOLD: '10s', CREATE_RATIO: '0' }, handler);
  const stdout = r.summary.stdout!;
  // step-10 (0-10 s) held; step-20 (10-20 s) broke when the target fell; 40, 80 and 160 are not run.
  assert.match(stdout, /first broken rate: 20 requests\/s/);
  for (const rate of [40, 80, 160]) assert.match(stdout, new RegExp(`not run ${rate}/s \\(the search had stopped\\)`));
  assert.match(stdout, /stopped sending: 1 VU\(s\) saw a step plainly broken/);
  assert.ok(times.length > 0);
  assert.is(times.filter((t) => t >= START + 21_000).length, 0, 'nothing sent once step-20 had ended');
});

test('a search stops after the step that plainly missed its rate, never before: every step up to the knee runs', async () => {
  const r = await run({ START_RATE: '10', MAX_RATE: '400', HOLD: '5s', P95_MS: '100', P99_MS: '200', CREATE_RATIO: '0' }, kneeTarget(65));
  const stdout = r.summary.stdout!;
  for (const rate of [10, 20, 40]) assert.match(stdout, new RegExp(`held ${rate}/s`));
  assert.match(stdout, /MISSED 80\/s: achieved 72\.0\/s/);
  for (const rate of [160, 320]) assert.match(stdout, new RegExp(`not run ${rate}/s \\(the search had stopped\\)`));
  assert.match(stdout, /bound found: the server's knee, between 40 and 80\/s/);
});

test.run();
