// Runs the k6 scripts themselves under Node with the k6 shim, against synchronous fake targets on a
// fake clock: a correct limiter must pass every threshold, each flawed limiter must fail the
// threshold that names its fault, and smoke/capacity must judge good and bad targets apart. This
// proves the scripts' wiring and logic; k6.test.ts runs them with a real k6 when one is installed.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kneeTarget, limitedTarget, petsTarget, type LimiterFault } from './testing/fake-targets.ts';
import { isBookkeeping } from './lib/summary.js';
import { isTimelineMetric } from './lib/timeline.js';
import { captureConsole, type FakeResponse } from './testing/k6-shim.ts';
import { runScript, type RunResult } from './testing/k6-run.ts';

const here = dirname(fileURLToPath(import.meta.url));
const RATE_LIMIT = join(here, 'rate-limit.js');
const SMOKE = join(here, 'smoke.js');
const CAPACITY = join(here, 'capacity.js');
// 17.3 s into a minute: the run joins a window part-way, as a real run usually does.
const START = Date.UTC(2026, 10, 22, 10, 0, 17, 300);

async function run(file: string, env: Record<string, string>, handler: Parameters<typeof runScript>[1]['handler']) {
  const out = captureConsole();
  try {
    const result = await runScript(file, { env, handler, startMs: START });
    return { ...result, console: [...out.lines] };
  } finally {
    out.restore();
  }
}

const failedKeys = (r: RunResult) => r.failed.map((t) => t.key).sort();

test('rate-limit.js passes every threshold against a correct fixed-window limiter, and says it crossed a boundary', async () => {
  const r = await run(RATE_LIMIT, { PLAN: 'free' }, limitedTarget({ limit: 60 }));
  assert.is(r.setupError, null);
  assert.equal(r.failed, [], JSON.stringify(r.failed));
  // The timeline's buckets are bookkeeping (always true): a bucket with no refusal has nothing to evaluate.
  assert.equal(
    r.unsampled.filter((key) => !isTimelineMetric(key)),
    [],
    'every threshold metric got a sample, so k6 evaluates it',
  );
  const stdout = r.summary.stdout!;
  assert.match(stdout, /crossed 2 window boundaries/);
  assert.not.match(stdout, /ratelimit_tl_/, 'the buckets are hidden from the text');
  // The picture beside the JSON: every request of the run, the windows and the refusals.
  const svg = r.summary['rate-limit-summary.svg']!;
  assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.is((svg.match(/class="tl-request /g) ?? []).length, r.shim.requests.length - 1, 'one mark per request of the scenario');
  assert.ok((svg.match(/tl-window-boundary/g) ?? []).length >= 2);
  assert.match(svg, /tl-refused/);
  assert.match(svg, /key test\u2026\(13 chars\)/);
  assert.not.match(svg, /test-free-key/);
  assert.match(stdout, /whole windows verified: 1/);
  assert.match(stdout, /no rate-limit rule was broken/);
  assert.match(stdout, /result: PASS/);
  assert.ok(
    r.console.some((l) => /window boundary crossed/.test(l)),
    r.console.join('\n'),
  );
  const json = JSON.parse(r.summary['rate-limit-summary.json']!);
  assert.is(json.passed, true);
  // 1.5 x 60 per minute for 150 s, less the holds after each 429: well above the limit, never a flood.
  const sent = r.shim.requests.length;
  assert.ok(sent > 150 && sent < 240, `sent ${sent}`);
});

test('rate-limit.js runs each scenario on exactly one VU, so one ledger sees every request of the key', async () => {
  const r = await run(RATE_LIMIT, { PLAN: 'free', BAN: '1' }, limitedTarget({ limit: 60, banAfter: 5 }));
  const scenarios = r.module.options!.scenarios!;
  assert.equal(Object.keys(scenarios).sort(), ['ban', 'limit']);
  for (const [name, sc] of Object.entries(scenarios)) {
    assert.is(sc.executor, 'constant-arrival-rate', name);
    assert.is(sc.preAllocatedVUs, 1, name);
    assert.is(sc.maxVUs, 1, name);
  }
  assert.is(scenarios.ban!.startTime, '165s', 'the ban scenario starts after the main one and its graceful stop');
});

test('rate-limit.js learns the limit from X-RateLimit-Limit when PLAN is not given, and drives batches', async () => {
  const r = await run(RATE_LIMIT, { BATCH: '4', SUMMARY_JSON: '/tmp/rl.json' }, limitedTarget({ limit: 40 }));
  assert.equal(r.failed, [], JSON.stringify(r.failed));
  assert.ok(r.summary['/tmp/rl.json']);
  assert.match(r.console.join('\n'), /Limit 40 \(learned\)/);
});

const faults: Array<[LimiterFault, string[]]> = [
  ['over-admit', ['ratelimit_violations{kind:over_admitted}']],
  ['stuck-remaining', ['ratelimit_violations{kind:remaining_not_decremented}']],
  ['moving-reset', ['ratelimit_violations{kind:reset_moved}']],
  // "0" is valid RFC 9110 syntax; what is wrong is sending the client back while the window is closed.
  ['retry-after-zero', ['ratelimit_violations{kind:retry_after_early}', 'ratelimit_violations{kind:not_readmitted}']],
  ['no-reset', ['ratelimit_violations{kind:reset_in_past}', 'ratelimit_window_crossed{scenario:limit}']],
];

for (const [fault, expected] of faults) {
  test(`rate-limit.js FAILS against a limiter with the fault "${fault}"`, async () => {
    const r = await run(RATE_LIMIT, { PLAN: 'free' }, limitedTarget({ limit: 60, fault }));
    const keys = failedKeys(r);
    for (const key of expected) assert.ok(keys.includes(key), `${key} should fail; failed: ${keys.join(', ')}`);
    // Counted among the thresholds that judge the run, not the hundreds that keep the timeline's buckets.
    const judging = r.thresholds.filter((t) => !isBookkeeping(t.expression));
    const failed = judging.filter((t) => !t.ok).length;
    assert.ok(judging.length < 40 && r.thresholds.length > 300, `${judging.length} of ${r.thresholds.length}`);
    assert.match(r.summary.stdout!, new RegExp(`result: FAIL \\(k6 exits 99\\): ${failed} of ${judging.length} thresholds failed`));
  });
}

test('should-level rules only warn, and fail the run with STRICT=1', async () => {
  const cacheable = (limit: number) => {
    const inner = limitedTarget({ limit });
    return (req: Parameters<typeof inner>[0], now: number) => {
      const res = inner(req, now);
      const { 'Cache-Control': _dropped, ...headers } = res.headers ?? {};
      return res.status === 429 ? { ...res, headers } : res;
    };
  };
  const lenient = await run(RATE_LIMIT, { PLAN: 'free' }, cacheable(60));
  assert.equal(lenient.failed, [], JSON.stringify(lenient.failed));
  assert.match(lenient.summary.stdout!, /violation refusal_cacheable x\d+ \(should: a warning; STRICT=1 fails the run\)/);
  assert.not.match(lenient.summary.stdout!, /count>=0/, 'warning-only thresholds are hidden from the text');
  const strict = await run(RATE_LIMIT, { PLAN: 'free', STRICT: '1' }, cacheable(60));
  assert.equal(failedKeys(strict), ['ratelimit_violations{kind:refusal_cacheable}']);
  const clean = await run(RATE_LIMIT, { PLAN: 'free', STRICT: '1' }, limitedTarget({ limit: 60 }));
  assert.equal(clean.failed, [], JSON.stringify(clean.failed));
});

test('rate-limit.js FAILS when the limit is never reached (a limiter that does not limit at all), and says so at setup', async () => {
  const r = await run(RATE_LIMIT, { PLAN: 'free' }, limitedTarget({ limit: 1_000_000 }));
  const keys = failedKeys(r);
  assert.ok(keys.includes('ratelimit_window_saturated{scenario:limit}'), keys.join(', '));
  assert.ok(keys.includes('ratelimit_violations{kind:limit_mismatch}'), keys.join(', '));
  // The target's Limit, not the run, is at fault: warned at once, judged to the end.
  assert.is(r.aborted, null);
  assert.match(
    r.console.join('\n'),
    /rate-limit\.js may not reach the key's limit: it offers 90 requests a minute, below the key's Limit of 1000000: .*\(limit_mismatch\)/,
  );
});

const unreachable: Array<[string, Record<string, string>, number, RegExp]> = [
  [
    'a learned limit above what RATE offers',
    { RATE: '600' },
    1000,
    /it offers 600 requests a minute, below the key's Limit of 1000: no window can fill; raise RATE to 1500 \(it caps the rate offered to a learned limit\), or set LIMIT=1000/,
  ],
  [
    'a run too short to fill the window',
    { PLAN: 'free', DURATION: '20s', CROSS_WINDOWS: '0' },
    60,
    /DURATION=20 s is too short to send the 60 requests .*; raise DURATION to at least 41s/,
  ],
  ['a run too short to see a whole window', { PLAN: 'free', DURATION: '60s', OVERDRIVE: '10' }, 60, /a whole 60 s window cannot be seen in DURATION=60 s/],
];
for (const [name, env, limit, reason] of unreachable) {
  test(`rate-limit.js says at setup that it cannot reach the key's limit, and stops there (ABORTED, 108): ${name}`, async () => {
    const r = await run(RATE_LIMIT, env, limitedTarget({ limit }));
    const warned = r.console.findIndex((l) => /^rate-limit\.js cannot reach the key's limit: /.test(l));
    assert.ok(warned >= 0 && reason.test(r.console[warned]!), r.console.join('\n'));
    assert.match(String(r.aborted), reason);
    assert.is(r.shim.requests.length, 1, "only setup's first request was sent");
    assert.match(r.summary.stdout!, /^ABORTED: the run as set up cannot reach the key's limit, so its thresholds would fail whatever the target does: /m);
    assert.match(r.summary.stdout!, /result: ABORTED \(k6 exits 108\)/);
  });
}

test('rate-limit.js warns at setup when answers are too slow for one VU to reach the limit, and runs on', async () => {
  const inner = limitedTarget({ limit: 60 });
  const r = await run(RATE_LIMIT, { PLAN: 'free', DURATION: '70s', CROSS_WINDOWS: '0' }, (req, now) => ({ ...inner(req, now), latencyMs: 1500 }));
  assert.match(
    r.console.join('\n'),
    /rate-limit\.js may not reach the key's limit: the first answer took 1500 ms: at that pace its one VU sends at most 40 requests a minute, below the Limit of 60; set CLIENTS=3/,
  );
  assert.is(r.aborted, null);
  assert.ok(r.shim.requests.length > 1);
});

test('rate-limit.js FAILS when the plan says 60 but the implementation enforces 100', async () => {
  const r = await run(RATE_LIMIT, { PLAN: 'free' }, limitedTarget({ limit: 100 }));
  assert.ok(failedKeys(r).includes('ratelimit_violations{kind:limit_mismatch}'));
});

test('rate-limit.js with CROSS_WINDOWS=0 is a short check that still catches over-admission', async () => {
  const env = { LIMIT: '12', OVERDRIVE: '10', DURATION: '25s', CROSS_WINDOWS: '0' };
  const good = await run(RATE_LIMIT, env, limitedTarget({ limit: 12 }));
  assert.equal(good.failed, [], JSON.stringify(good.failed));
  assert.ok(!good.thresholds.some((t) => t.key.startsWith('ratelimit_window_crossed')));
  assert.match(good.console.join('\n'), /window boundary not required/);
  const bad = await run(RATE_LIMIT, env, limitedTarget({ limit: 12, fault: 'over-admit' }));
  assert.ok(failedKeys(bad).includes('ratelimit_violations{kind:over_admitted}'));
});

test('BAN=1 finds the temporary ban, sees it enforced past the window it began in and lifted when Retry-After said, with three probes', async () => {
  const env = { PLAN: 'free', BAN: '1', BAN_DURATION: '150s' };
  const banned = await run(RATE_LIMIT, env, limitedTarget({ limit: 60, banAfter: 5, banSeconds: 90 }));
  assert.equal(banned.failed, [], JSON.stringify(banned.failed) + banned.summary.stdout);
  assert.match(
    banned.summary.stdout!,
    /ban scenario: ban detected 1, enforced on \d+ request\(s\) while it lasted, [1-9]\d* of them after the window it began in had ended; lifted when Retry-After said: yes/,
  );
  // Once the ban is announced only three probes follow: never enough to extend it.
  const detected = banned.shim.samples.findIndex((s) => s.metric === 'ratelimit_ban_detected' && s.value === 1);
  const after = banned.shim.samples.slice(detected + 1).filter((s) => s.metric === 'http_reqs').length;
  assert.is(after, 3);
  const never = await run(RATE_LIMIT, env, limitedTarget({ limit: 60 }));
  assert.ok(failedKeys(never).includes('ratelimit_ban_detected{scenario:ban}'), failedKeys(never).join(', '));
});

test('BAN=1 fails a ban that is announced but lifted when the window reopens', async () => {
  const r = await run(
    RATE_LIMIT,
    { PLAN: 'free', BAN: '1', BAN_DURATION: '150s' },
    limitedTarget({ limit: 60, banAfter: 5, banSeconds: 90, fault: 'ban-unenforced' }),
  );
  const keys = failedKeys(r);
  assert.ok(keys.includes('ratelimit_violations{kind:ban_not_enforced}'), keys.join(', '));
  assert.ok(keys.includes('ratelimit_ban_held_past_reset{scenario:ban}'), keys.join(', '));
  assert.match(r.summary.stdout!, /result: FAIL/);
});

test('rate-limit.js stops at once, ABORTED with the reason first, when the target is down or refuses the key', async () => {
  const down = await run(RATE_LIMIT, {}, (): FakeResponse => ({ status: 0 }));
  assert.match(down.summary.stdout!, /^ABORTED: target .* is not answering/m);
  assert.match(String(down.aborted), /not answering/);
  assert.is(down.shim.requests.length, 1);
  const refused = await run(RATE_LIMIT, { API_KEY: 'nope' }, limitedTarget({ limit: 60, keys: ['test-free-key'] }));
  assert.match(refused.summary.stdout!, /result: ABORTED \(k6 exits 108\): target .* refused API_KEY \(401\)/);
});

test('rate-limit.js refuses an execution segment: a window is judged only on every request of the key', async () => {
  const out = captureConsole();
  try {
    const r = await runScript(RATE_LIMIT, {
      env: { PLAN: 'free' },
      handler: limitedTarget({ limit: 60 }),
      startMs: START,
      executionSegment: '0:1/2',
      executionSegmentSequence: '0,1/2,1',
    });
    assert.match(r.summary.stdout!, /^ABORTED: rate-limit\.js judges each window by counting every request of the key, so it runs on ONE k6 process/m);
    assert.is(r.shim.requests.length, 0);
  } finally {
    out.restore();
  }
});

test('a mistyped environment variable stops the script at load time', async () => {
  const out = captureConsole();
  try {
    await assert.not.throws(async () => undefined);
    let error: unknown = null;
    try {
      await runScript(RATE_LIMIT, { env: { PLAN: 'gold' }, handler: limitedTarget({ limit: 60 }), startMs: START });
    } catch (e) {
      error = e;
    }
    assert.match(String(error), /PLAN=gold/);
  } finally {
    out.restore();
  }
});

test('smoke.js passes against a correct service and checks all three operations', async () => {
  const r = await run(SMOKE, {}, petsTarget());
  assert.equal(r.failed, [], JSON.stringify(r.failed));
  assert.equal(r.unsampled, []);
  const ops = new Set(r.shim.requests.map((q) => `${q.method} ${new URL(q.url).pathname.replace(/\d+$/, '{id}')}`));
  assert.equal([...ops].sort(), ['GET /v1/pets', 'GET /v1/pets/{id}', 'POST /v1/pets']);
  assert.ok(
    r.shim.requests.some((q) => !q.headers.Authorization),
    'one request goes without a key, expecting 401',
  );
  assert.match(r.summary.stdout!, /^ {3}✓ checks\.+: 100\.00% ✓ \d+ +✗ 0/m);
});

test("the summary keeps k6's own table (the figures of its default summary) above the verdict", async () => {
  const r = await run(SMOKE, {}, petsTarget());
  const stdout = r.summary.stdout!;
  for (const row of [
    /^ {5}✓ createPet 201$/m,
    /^ {5}data_received\.+: [\d.]+ kB +[\d.]+ B\/s$/m,
    /^ {5}data_sent\.+: [\d.]+ kB/m,
    /^ {5}http_req_duration\.+: avg=[\d.]+ms +min=[\d.]+ms +med=[\d.]+ms +max=[\d.]+ms +p\(90\)=[\d.]+ms +p\(95\)=[\d.]+ms +p\(99\)=[\d.]+ms/m,
    /^ {5}✓ \{ expected_response:true \}\.+: avg=/m,
    /^ {3}✓ http_req_failed\.+: 0\.00% +✓ 0 +✗ \d+/m,
    /^ {5}http_reqs\.+: \d+ +[\d.]+\/s$/m,
    /^ {5}iteration_duration\.+: avg=/m,
    /^ {5}vus_max\.+: 2 +min=2 +max=2$/m,
  ]) {
    assert.match(stdout, row);
  }
  assert.ok(stdout.indexOf('http_reqs') < stdout.indexOf('result: PASS'), 'the table comes first, the verdict last');
});

const smokeFaults: Array<[Parameters<typeof petsTarget>[0], string, Record<string, string>]> = [
  ['wrapped-list', 'checks', {}],
  ['no-rate-limit-headers', 'checks', {}],
  ['ignores-status', 'checks', {}],
  ['slow', 'http_req_duration{expected_response:true}', {}],
];
for (const [fault, key, env] of smokeFaults) {
  test(`smoke.js FAILS against a service with the fault "${fault}"`, async () => {
    const r = await run(SMOKE, env, petsTarget(fault));
    assert.ok(failedKeys(r).includes(key), failedKeys(r).join(', '));
  });
}

test('smoke.js SHAPE_ONLY=1 asks a mock only for what a mock can give', async () => {
  const r = await run(SMOKE, { SHAPE_ONLY: '1' }, petsTarget('ignores-status'));
  assert.equal(r.failed, []);
});

test('capacity.js reports the highest rate held within the bounds, and its thresholds fail past the knee', async () => {
  const env = { RATES: '10,20,40', HOLD: '10s', P95_MS: '100', P99_MS: '200' };
  const r = await run(CAPACITY, env, kneeTarget(30));
  assert.match(r.summary.stdout!, /highest sustained rate: 20 requests\/s/);
  assert.match(r.summary.stdout!, /MISSED 40\/s/);
  assert.ok(failedKeys(r).includes('http_req_duration'), failedKeys(r).join(', '));
  assert.not.match(r.summary.stdout!, /\{scenario:step-/, 'per-step bookkeeping thresholds are hidden from the text');
  const json = JSON.parse(r.summary['capacity-summary.json']!);
  assert.is(json.extra.highestSustained.rate, 20);

  const easy = await run(CAPACITY, env, petsTarget());
  assert.equal(easy.failed, []);
  assert.match(easy.summary.stdout!, /highest sustained rate: 40 requests\/s/);
  assert.ok(easy.shim.requests.some((q) => q.method === 'POST') && easy.shim.requests.some((q) => q.method === 'GET'));
});

test.run();
