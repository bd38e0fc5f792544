import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  keyLimit,
  keyLimitFromGauges,
  keyLimitLine,
  keyLimitSamples,
  limitShortfalls,
  runPlanLines,
  shortfallLine,
  unreachableReason,
  type ReachPlan,
  type RunPlan,
} from './key-limit.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 30);
const DATE = new Date(NOW).toUTCString();
const reset = (inS: number) => String(Math.floor(NOW / 1000) + inS);
const response = (status: number, headers: Record<string, string>) => ({ status, headers: { Date: DATE, ...headers }, receivedAtMs: NOW });

const cases: Array<[string, ReturnType<typeof response>, number, RegExp | null]> = [
  [
    'a 429 binds, with Limit and Retry-After quoted',
    response(429, { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset(30), 'Retry-After': '30' }),
    50,
    /limited by the key at 50\/s: 429 with X-RateLimit-Limit 60, Retry-After 30 s/,
  ],
  ['a 403 ban binds too', response(403, { 'X-RateLimit-Limit': '60', 'Retry-After': '600' }), 50, /403 with X-RateLimit-Limit 60, Retry-After 600 s/],
  [
    'a window that runs out within two seconds at the step rate binds before any 429',
    response(200, { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': reset(30) }),
    50,
    /Remaining 59 with the window resetting in 30 s would run out within 2 s/,
  ],
  [
    'a window with enough left for two seconds does not',
    response(200, { 'X-RateLimit-Limit': '100000', 'X-RateLimit-Remaining': '3201', 'X-RateLimit-Reset': reset(30) }),
    1600,
    null,
  ],
  [
    'little left but the window resets first: does not',
    response(200, { 'X-RateLimit-Limit': '100000', 'X-RateLimit-Remaining': '1000', 'X-RateLimit-Reset': reset(1) }),
    800,
    null,
  ],
  [
    "a Reset in the past (a mock's example) forecasts nothing",
    response(200, { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': '1794355260' }),
    50,
    null,
  ],
  ['no rate-limit headers forecast nothing', response(200, {}), 50, null],
  ['a 500 is the server, not the key', response(500, { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset(30) }), 50, null],
];
for (const [name, res, rate, line] of cases) {
  test(`keyLimit: ${name}`, () => {
    const k = keyLimit(res, rate);
    if (line === null) return assert.is(k, null);
    assert.ok(k);
    assert.match(keyLimitLine(k!), line);
    // What handleSummary reads back from the gauges is what the VU saw.
    const gauges = new Map(keyLimitSamples(k!).map((s) => [s.metric, s.value]));
    assert.equal(
      keyLimitFromGauges((m) => gauges.get(m)),
      k,
    );
  });
}

test('no gauge recorded: nothing was limited', () => {
  assert.is(
    keyLimitFromGauges(() => undefined),
    null,
  );
});

// rate-limit.js's defaults against the free plan: 90 a minute for 150 s, one request at a time, 2 ms answers.
const PLAN: ReachPlan = {
  limit: 60,
  remaining: 59,
  expectedLimit: 60,
  offeredPerMinute: 90,
  overdrive: 1.5,
  clients: 1,
  durationS: 150,
  crossWindows: true,
  latencyMs: 2,
};
const reach: Array<[string, Partial<ReachPlan>, Array<[boolean, RegExp]>]> = [
  ['the defaults reach the free plan', {}, []],
  [
    'a learned limit above RATE: no window can fill, whatever the target does',
    { limit: 5000, remaining: 4999, expectedLimit: null, offeredPerMinute: 1800 },
    [[true, /offers 1800 requests a minute, below the key's Limit of 5000: no window can fill; raise RATE to 7500 .*or set LIMIT=5000/]],
  ],
  [
    "a Limit above PLAN's is the target's fault (limit_mismatch), not the run's",
    { limit: 1_000_000, remaining: 999_999 },
    [[false, /below the key's Limit of 1000000: .*not the expected 60 \(limit_mismatch\)/]],
  ],
  [
    'too short to fill the window in progress',
    { durationS: 20, crossWindows: false },
    [[true, /DURATION=20 s is too short to send the 60 requests that fill the window and bring its 429 at 90 a minute; raise DURATION to at least 41s$/]],
  ],
  ['just long enough: 59 more after the first, at 1.5 a second', { durationS: 40, crossWindows: false }, []],
  ['a window already nearly spent fills at once', { durationS: 5, remaining: 2, crossWindows: false }, []],
  [
    'no whole window in a minute or less',
    { durationS: 60, offeredPerMinute: 600 },
    [[true, /a whole 60 s window cannot be seen in DURATION=60 s, so ratelimit_window_verified cannot be reached; .*CROSS_WINDOWS=0/]],
  ],
  [
    'slow answers may keep one VU below the limit: a warning with the CLIENTS that would do',
    { limit: 300, remaining: 299, expectedLimit: 300, offeredPerMinute: 450, latencyMs: 800 },
    [[false, /first answer took 800 ms: at that pace its one VU sends at most 75 requests a minute, below the Limit of 300; set CLIENTS=6 /]],
  ],
  [
    "k6's --duration 5s: named as typed, with what to raise",
    { durationS: 5, length: { option: '--duration' } },
    [
      [true, /^--duration 5s is too short to send the 60 requests .*; raise --duration to at least 41s \(150s/],
      [true, /a whole 60 s window cannot be seen in --duration 5s, .*; raise --duration to at least 150s, or set CROSS_WINDOWS=0/],
    ],
  ],
  [
    "k6's --iterations 6: the time they take at the offered rate",
    { durationS: 4, length: { option: '--iterations', iterations: 6 }, crossWindows: false },
    [[true, /^--iterations 6 \(4 s at 90 a minute\) is too short .*; raise --iterations to at least 62, or give --duration instead$/]],
  ],
  ['bursts carry it', { limit: 300, remaining: 299, expectedLimit: 300, offeredPerMinute: 450, latencyMs: 800, clients: 8 }, []],
];
for (const [name, change, expected] of reach) {
  test(`limitShortfalls: ${name}`, () => {
    const found = limitShortfalls({ ...PLAN, ...change });
    assert.is(found.length, expected.length, JSON.stringify(found));
    expected.forEach(([certain, text], i) => {
      assert.is(found[i]!.certain, certain, found[i]!.problem);
      assert.match(`${found[i]!.problem}; ${found[i]!.change}`, text);
    });
  });
}

test('setup warns of every shortfall and stops only on the certain ones, naming each with what to change', () => {
  const slow = limitShortfalls({ ...PLAN, latencyMs: 1500 });
  assert.match(shortfallLine(slow[0]!), /^rate-limit\.js may not reach the key's limit: the first answer took 1500 ms.*; set CLIENTS=3 /);
  assert.is(unreachableReason(slow), null);
  const both = limitShortfalls({ ...PLAN, durationS: 30 });
  assert.match(shortfallLine(both[0]!), /^rate-limit\.js cannot reach the key's limit: DURATION=30 s is too short/);
  assert.match(
    unreachableReason(both)!,
    /^the run as set up cannot reach the key's limit, so its thresholds would fail whatever the target does: DURATION=30 s is too short .*; raise DURATION .*\. Also: a whole 60 s window cannot be seen in DURATION=30 s/,
  );
});

const RUN: RunPlan = {
  baseUrl: 'http://127.0.0.1:3000/v1',
  limit: 60,
  expectedLimit: 60,
  offeredPerMinute: 90,
  durationS: 150,
  clients: 1,
  crossWindows: true,
  banS: null,
  strict: false,
};
const runCases: Array<[string, Partial<RunPlan>, RegExp, number]> = [
  [
    'the defaults',
    {},
    /^rate-limit\.js: http:\/\/127\.0\.0\.1:3000\/v1, Limit 60 \(expected 60\), offering 90 requests\/min for 150 s, must cross at least one window boundary\. One VU/,
    0,
  ],
  [
    'a learned limit, BAN and STRICT',
    { expectedLimit: null, banS: 720, strict: true },
    /Limit 60 \(learned\).*then the ban scenario for up to 720 s; should-level rules fail the run \(STRICT=1\)/,
    0,
  ],
  ['bursts within the limit', { clients: 61 }, /in bursts of 61 at once \(CLIENTS\)/, 0],
  ['bursts above what the key allows', { clients: 62 }, /in bursts of 62/, 1],
];
for (const [name, change, line, warnings] of runCases) {
  test(`runPlanLines: ${name}`, () => {
    const said = runPlanLines({ ...RUN, ...change });
    assert.match(said.line, line);
    assert.is(said.warnings.length, warnings);
    if (warnings) assert.match(said.warnings[0]!, /^CLIENTS=62 but the key allows 60 a minute: .* at most 61 requests go at once/);
  });
}

test.run();
