// The field parsers accept exactly what their RFCs allow and the formatters write what the reference
// server sends. The rows marked "was:" are where two earlier copies of these parsers disagreed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  formatDeprecation,
  formatHttpDate,
  formatSunset,
  headerValue,
  parseDeprecation,
  parseHttpDate,
  parseInteger,
  parseRetryAfter,
  parseSunset,
} from './fields.js';

const NOW = Date.UTC(2026, 0, 1);
const SUNSET = Date.UTC(2030, 11, 5);

const integers: Array<[string | undefined, number | null, string?]> = [
  ['59', 59],
  [' 0 ', 0],
  ['\t7\t', 7],
  ['-1', -1, 'negative, so that a negative Remaining is reported as negative'],
  ['007', 7],
  ['9007199254740991', 9007199254740991],
  ['9007199254740992', null, 'was: accepted by the kit, which then lost precision'],
  ['12345678901234567', null, 'was: 16 digits allowed by k6, any number by the kit'],
  ['+1', null],
  ['1.5', null],
  ['60.0', null],
  ['1e3', null],
  ['0x10', null],
  ['12abc', null],
  ['', null],
  [undefined, null],
];
for (const [input, expected, why] of integers) {
  test(`parseInteger(${JSON.stringify(input)}) is ${expected}${why ? ` (${why})` : ''}`, () => assert.is(parseInteger(input), expected));
}

const httpDates: Array<[string, number, number | null, string?]> = [
  ['Thu, 05 Dec 2030 00:00:00 GMT', NOW, SUNSET, 'IMF-fixdate'],
  ['Thursday, 05-Dec-30 00:00:00 GMT', NOW, SUNSET, 'RFC 850'],
  ['Thu Dec  5 00:00:00 2030', NOW, SUNSET, 'asctime, day padded with a space'],
  ['Thu Dec 05 00:00:00 2030', NOW, SUNSET, 'asctime, day as two digits'],
  ['  Thu, 05 Dec 2030 00:00:00 GMT ', NOW, SUNSET, 'surrounding whitespace is not part of the value'],
  ['Sun, 06 Nov 1994 08:49:37 GMT', NOW, Date.UTC(1994, 10, 6, 8, 49, 37)],
  ['Sunday, 06-Nov-94 08:49:37 GMT', NOW, Date.UTC(1994, 10, 6, 8, 49, 37), '94 would be 2094, more than 50 years ahead'],
  ['Friday, 06-Nov-26 08:49:37 GMT', NOW, Date.UTC(2026, 10, 6, 8, 49, 37)],
  ['Wednesday, 06-Nov-75 08:49:37 GMT', NOW, Date.UTC(2075, 10, 6, 8, 49, 37), 'less than 50 years ahead stays in this century'],
  ['Saturday, 06-Nov-76 08:49:37 GMT', NOW, Date.UTC(1976, 10, 6, 8, 49, 37), 'more than 50 years ahead is the last century'],
  ['Friday, 06-Nov-76 08:49:37 GMT', Date.UTC(2070, 0, 1), Date.UTC(2076, 10, 6, 8, 49, 37), 'the reference time decides the century'],
  ['Wed, 31 Dec 2025 23:59:60 GMT', NOW, Date.UTC(2025, 11, 31, 23, 59, 59), 'a leap second reads as the second before'],
  ['Fri, 31 Feb 2030 00:00:00 GMT', NOW, null, 'was: invalid to the kit, 3 March to k6'],
  ['Thu, 05 Dec 2030 25:00:00 GMT', NOW, null, 'was: accepted by k6 only'],
  ['Thu, 05 Dec 2030 24:00:00 GMT', NOW, null],
  ['Thu, 05 Dec 2030 23:60:00 GMT', NOW, null],
  ['Thu, 05 Dec 2030 12:00:60 GMT', NOW, null, 'a leap second only ends a day'],
  ['Fri, 05 Dec 2030 00:00:00 GMT', NOW, null, '5 December 2030 is a Thursday'],
  ['Thursday, 05-Dec-30 00:00:00 UTC', NOW, null],
  ['Thu, 05 Dec 2030 00:00:00 UTC', NOW, null, 'only GMT'],
  ['thu, 05 Dec 2030 00:00:00 GMT', NOW, null, 'names are case-sensitive'],
  ['Thu, 5 Dec 2030 00:00:00 GMT', NOW, null, 'IMF-fixdate has a two-digit day'],
  ['Thu,  05 Dec 2030 00:00:00 GMT', NOW, null],
  ['2030-12-05T00:00:00Z', NOW, null],
  ['', NOW, null],
];
for (const [value, reference, expected, why] of httpDates) {
  test(`HTTP-date ${JSON.stringify(value)} → ${expected === null ? 'invalid' : new Date(expected).toISOString()}${why ? ` (${why})` : ''}`, () => {
    assert.is(parseHttpDate(value, reference), expected);
  });
}

test('formatHttpDate writes the IMF-fixdate that toUTCString gives, and parses back to the same second', () => {
  for (const ms of [0, SUNSET, Date.UTC(1994, 10, 6, 8, 49, 37, 999), Date.UTC(2026, 1, 28, 23, 59, 59), Date.UTC(9999, 11, 31, 23, 59, 59)]) {
    const text = formatHttpDate(ms);
    assert.is(text, new Date(Math.floor(ms / 1000) * 1000).toUTCString());
    assert.is(parseHttpDate(text, NOW), Math.floor(ms / 1000) * 1000);
  }
  assert.throws(() => formatHttpDate(Date.UTC(10000, 0, 1)), /four-digit year/);
});

const retryAfters: Array<[string | undefined, ReturnType<typeof parseRetryAfter>['form'], number | null, string?]> = [
  ['42', 'delay-seconds', 42],
  [' 7 ', 'delay-seconds', 7],
  ['0', 'delay-seconds', 0, 'valid syntax; whether 0 is a sensible answer is for the window rules'],
  ['12345678901', 'delay-seconds', 12345678901, 'was: refused by k6 (at most 10 digits), accepted by the kit'],
  ['9007199254740991', 'delay-seconds', 9007199254740991, 'the upper bound: the largest safe integer'],
  ['9007199254740992', 'invalid', null],
  ['Thu, 05 Dec 2030 00:00:00 GMT', 'http-date', SUNSET],
  ['Thursday, 05-Dec-30 00:00:00 GMT', 'http-date', SUNSET],
  ['Fri, 31 Feb 2030 00:00:00 GMT', 'invalid', null],
  ['41.5', 'invalid', null],
  ['-1', 'invalid', null],
  ['+1', 'invalid', null],
  ['1e3', 'invalid', null],
  ['soon', 'invalid', null],
  ['', 'invalid', null],
  [undefined, 'missing', null],
];
for (const [value, form, expected, why] of retryAfters) {
  test(`Retry-After ${JSON.stringify(value)} is ${form}${why ? ` (${why})` : ''}`, () => {
    const parsed = parseRetryAfter(value, NOW);
    assert.is(parsed.form, form);
    if (parsed.form === 'delay-seconds') assert.is(parsed.seconds, expected);
    if (parsed.form === 'http-date') assert.is(parsed.atMs, expected);
    if (parsed.form === 'invalid') assert.ok(parsed.reason.length > 10);
  });
}

const deprecations: Array<[string | undefined, number | null]> = [
  ['@1764892800', 1764892800000],
  [' @0 ', 0],
  ['@-1', -1000],
  ['@1234567890123456', null],
  ['true', null], // the pre-RFC 9745 draft form Prism sends
  ['Thu, 05 Dec 2030 00:00:00 GMT', null], // an earlier draft's HTTP-date
  ['@1764892800;x=1', null],
  [undefined, null],
];
for (const [value, expected] of deprecations) {
  test(`Deprecation ${JSON.stringify(value)} → ${expected}`, () => assert.is(parseDeprecation(value), expected));
}

test('Deprecation and Sunset format the instants of getPet as the reference server sends them', () => {
  assert.is(formatDeprecation(Date.parse('2025-12-05T00:00:00Z')), '@1764892800');
  assert.is(formatDeprecation(Date.parse('2025-12-05T00:00:00.900Z')), '@1764892800');
  assert.is(parseDeprecation(formatDeprecation(1764892800000)), 1764892800000);
  assert.is(formatSunset(SUNSET), 'Thu, 05 Dec 2030 00:00:00 GMT');
  assert.is(parseSunset('Thu, 05 Dec 2030 00:00:00 GMT', NOW), SUNSET);
});

test('headerValue ignores the casing of names and takes the first of repeated values', () => {
  const headers = { 'X-Ratelimit-Limit': '60', 'retry-after': ['5', '7'], empty: [], nothing: null };
  assert.is(headerValue(headers, 'X-RateLimit-Limit'), '60');
  assert.is(headerValue(headers, 'Retry-After'), '5');
  assert.is(headerValue(headers, 'empty'), undefined);
  assert.is(headerValue(headers, 'nothing'), undefined);
  assert.is(headerValue(headers, 'Date'), undefined);
  assert.is(headerValue(undefined, 'Date'), undefined);
});

test.run();
