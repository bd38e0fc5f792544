import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bindingWindow, epochSecondsAt, formatPolicy, formatState, secondsUntil, verdict } from './decision.ts';
import { DAY_MS, MINUTE_MS, ipWindows, keyWindows } from './policy.ts';
import type { ConsumeResult, Outcome } from './counters.ts';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0, 250); // a quarter second past a whole second
const FREE = keyWindows({ perMinute: 60, perDay: 1_000 });
const MINUTE = FREE[0]!;
const DAY = FREE[1]!;

function result(outcome: Outcome, minute: [number, number], day: [number, number], banMs = 0): ConsumeResult {
  return {
    outcome,
    banMs,
    windows: [
      { spec: MINUTE, used: minute[0], resetMs: minute[1] },
      { spec: DAY, used: day[0], resetMs: day[1] },
    ],
  };
}

const rounding: Array<[number, number]> = [
  [0, 0],
  [1, 1],
  [999, 1],
  [1_000, 1],
  [1_001, 2],
  [41_200, 42],
];
for (const [ms, seconds] of rounding) {
  test(`${ms} ms is ${seconds} s when rounded up`, () => assert.is(secondsUntil(ms), seconds));
}

const binding: Array<[string, ConsumeResult, string]> = [
  ['admitted: the minute has fewer left', result('admitted', [50, 30_000], [100, DAY_MS]), 'minute'],
  ['admitted: the day has fewer left', result('admitted', [5, 30_000], [990, DAY_MS]), 'day'],
  ['admitted: a tie goes to the window that resets last', result('admitted', [50, 30_000], [990, DAY_MS]), 'day'],
  ['refused by the minute only', result('refused', [60, 30_000], [500, DAY_MS]), 'minute'],
  ['refused by the day only', result('refused', [3, 30_000], [1_000, 5 * MINUTE_MS]), 'day'],
  ['refused by both: the one that resets last', result('refused', [60, 30_000], [1_000, 10_000]), 'minute'],
];
for (const [name, r, expected] of binding) {
  test(`binding window, ${name}`, () => assert.is(bindingWindow(r).spec.name, expected));
}

test('RateLimit-Policy lists both windows in the draft-11 syntax', () => {
  assert.is(formatPolicy(keyWindows({ perMinute: 60, perDay: 1_000 })), '"minute";q=60;w=60, "day";q=1000;w=86400');
  assert.is(formatPolicy(ipWindows(30)), '"ip-minute";q=30;w=60');
});

test('RateLimit gives what is left and the seconds until each window resets', () => {
  assert.is(formatState(result('admitted', [48, 40_100], [60, 80_000_000])), '"minute";r=12;t=41, "day";r=940;t=80000');
  assert.is(formatState(result('refused', [60, 40_100], [60, 80_000_000])), '"minute";r=0;t=41, "day";r=940;t=80000');
});

// A ban spends no allowance: each window says what it really has left, and the ban is an item of
// its own, with nothing left until it ends (the one item that matches X-RateLimit-Remaining 0).
const banned: Array<[string, 'key' | 'ip', ConsumeResult, string]> = [
  ['a key, its minute spent', 'key', result('banned', [60, 30_000], [70, 900_000], 599_500), '"ban";r=0;t=600, "minute";r=0;t=30, "day";r=930;t=900'],
  ['a key, its minute window over', 'key', result('banned', [0, MINUTE_MS], [70, 900_000], 540_000), '"ban";r=0;t=540, "minute";r=60;t=60, "day";r=930;t=900'],
  [
    'an address',
    'ip',
    { outcome: 'banned', banMs: 599_001, windows: [{ spec: ipWindows(30)[0]!, used: 30, resetMs: 5_500 }] },
    '"ip-block";r=0;t=600, "ip-minute";r=0;t=6',
  ],
];
for (const [name, kind, r, expected] of banned) {
  test(`RateLimit during a ban (${name}): the ban's own item, the windows as they are`, () => {
    assert.is(formatState(r, kind), expected);
    assert.is(verdict(kind, r, NOW).headers.ratelimit, expected);
  });
}

test('an admitted request reports the binding window, Reset as rounded-up epoch seconds', () => {
  const v = verdict('key', result('admitted', [48, 40_100], [60, 80_000_000]), NOW);
  assert.ok(v.admitted);
  assert.is(v.headers['x-ratelimit-limit'], '60');
  assert.is(v.headers['x-ratelimit-remaining'], '12');
  assert.is(v.headers['x-ratelimit-reset'], String(Math.ceil((NOW + 40_100) / 1000)));
  assert.is(v.headers['retry-after'], undefined);
  assert.is(v.error, undefined);
});

test('Remaining never goes negative, even if the counters over-counted', () => {
  const v = verdict('key', result('admitted', [75, 1_000], [80, DAY_MS]), NOW);
  assert.is(v.headers['x-ratelimit-remaining'], '0');
});

const refusals: Array<[string, 'key' | 'ip', ConsumeResult, string, string, number, number]> = [
  ['minute window', 'key', result('refused', [60, 41_200], [200, DAY_MS]), 'rate_limited_minute', '60', 42, 41_200],
  ['day window', 'key', result('refused', [10, 41_200], [1_000, 3_600_000]), 'rate_limited_day', '1000', 3_600, 3_600_000],
  ['a window about to end still says 1 s', 'key', result('refused', [60, 1], [200, DAY_MS]), 'rate_limited_minute', '60', 1, 1],
  ['banned key', 'key', result('banned', [0, MINUTE_MS], [61, DAY_MS], 600_000), 'key_banned', '60', 600, 600_000],
  ['IP limit', 'ip', { outcome: 'refused', banMs: 0, windows: [{ spec: ipWindows(30)[0]!, used: 30, resetMs: 5_500 }] }, 'rate_limited_ip', '30', 6, 5_500],
  [
    'blocked IP',
    'ip',
    { outcome: 'banned', banMs: 599_001, windows: [{ spec: ipWindows(30)[0]!, used: 30, resetMs: 5_500 }] },
    'ip_blocked',
    '30',
    600,
    599_001,
  ],
];
for (const [name, kind, r, code, limit, retryAfter, waitMs] of refusals) {
  test(`refused (${name}): ${code}, Retry-After ${retryAfter}, Remaining 0, Reset consistent`, () => {
    const v = verdict(kind, r, NOW);
    assert.not.ok(v.admitted);
    assert.is(v.error?.code, code);
    assert.ok(v.error?.message.includes(`retry after ${retryAfter} second`), v.error?.message);
    assert.is(v.headers['x-ratelimit-limit'], limit);
    assert.is(v.headers['x-ratelimit-remaining'], '0');
    assert.is(v.headers['retry-after'], String(retryAfter));
    assert.is(v.headers['cache-control'], 'no-store');
    const reset = Number(v.headers['x-ratelimit-reset']);
    assert.is(reset, epochSecondsAt(NOW, waitMs));
    // Neither value points before the real end of the wait, and they agree within a second.
    assert.ok(reset * 1000 >= NOW + waitMs && reset * 1000 < NOW + waitMs + 1000);
    assert.ok(retryAfter * 1000 >= waitMs && retryAfter * 1000 < waitMs + 1000);
    assert.ok(Math.abs(reset - (Math.floor(NOW / 1000) + retryAfter)) <= 1);
  });
}

test.run();
