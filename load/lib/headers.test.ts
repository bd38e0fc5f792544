import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { header, parseHttpDate, parseInteger, parseRetryAfter, snapshot } from './headers.js';

test('header lookup ignores case and takes the first of repeated values', () => {
  const h = { 'X-Ratelimit-Limit': '60', 'retry-after': ['5', '7'] };
  assert.is(header(h, 'X-RateLimit-Limit'), '60');
  assert.is(header(h, 'Retry-After'), '5');
  assert.is(header(h, 'Date'), undefined);
  assert.is(header(undefined, 'Date'), undefined);
});

for (const [input, expected] of [
  ['59', 59],
  [' 0 ', 0],
  ['-1', -1],
  ['1.5', null],
  ['', null],
  ['12abc', null],
  ['0x10', null],
  [undefined, null],
] as const) {
  test(`parseInteger(${JSON.stringify(input)}) is ${expected}`, () => {
    assert.is(parseInteger(input), expected);
  });
}

test('parseHttpDate reads the three forms RFC 9110 makes recipients accept, and nothing sloppier', () => {
  const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
  assert.is(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), expected);
  assert.is(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(2026, 0, 1)), expected);
  assert.is(parseHttpDate('Sunday, 06-Nov-26 08:49:37 GMT', Date.UTC(2026, 0, 1)), Date.UTC(2026, 10, 6, 8, 49, 37));
  assert.is(parseHttpDate('Sun Nov  6 08:49:37 1994'), expected);
  assert.is(parseHttpDate('Sun, 6 Nov 1994 08:49:37 GMT'), null);
  assert.is(parseHttpDate('Sun, 06 Nov 1994 08:49:37 UTC'), null);
  assert.is(parseHttpDate('2026-01-01T00:00:00Z'), null);
  assert.is(parseHttpDate('Sun, 06 Foo 1994 08:49:37 GMT'), null);
});

test('parseRetryAfter takes delay-seconds or an HTTP-date measured from the server clock', () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);
  assert.equal(parseRetryAfter('42', now), { seconds: 42, form: 'delay-seconds' });
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), { seconds: 30, form: 'http-date' });
  assert.is(parseRetryAfter('-3', now), null);
  assert.is(parseRetryAfter('1.5', now), null);
  assert.is(parseRetryAfter(undefined, now), null);
});

test('snapshot reads the three headers, prefers the Date header as the server clock, and names what is malformed', () => {
  const s = snapshot(
    429,
    { 'X-Ratelimit-Limit': '60', 'X-Ratelimit-Remaining': '0', 'X-Ratelimit-Reset': '1767225660', 'Retry-After': '60', Date: 'Thu, 01 Jan 2026 00:00:00 GMT' },
    Date.UTC(2026, 0, 1, 0, 0, 5),
  );
  assert.is(s.admitted, false);
  assert.is(s.serverNow, Date.UTC(2026, 0, 1) / 1000);
  assert.is(s.clock, 'date-header');
  assert.equal(s.retryAfter, { seconds: 60, form: 'delay-seconds' });
  assert.equal(s.malformed, []);

  const bad = snapshot(200, { 'X-RateLimit-Remaining': 'lots' }, 1_000_500);
  assert.is(bad.admitted, true);
  assert.is(bad.clock, 'client-clock');
  assert.is(bad.serverNow, 1000);
  assert.equal(bad.malformed, ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);

  const lost = snapshot(0, {}, 0);
  assert.is(lost.admitted, false);
  assert.equal(lost.malformed, [], 'no response, so no headers to blame');
});

test.run();
