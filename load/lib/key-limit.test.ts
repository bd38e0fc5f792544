import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { keyLimit, keyLimitFromGauges, keyLimitLine, keyLimitSamples } from './key-limit.js';

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

test.run();
