// The field parsers accept exactly what their RFCs allow, so no check demands one spelling.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { linkWithRel, parseDeprecation, parseHttpDate, parseLinks, parseRetryAfter, parseStructuredList, retryAt } from './fields.ts';

const SUNSET = Date.UTC(2030, 11, 5);

const httpDates: Array<[string, number | undefined]> = [
  ['Thu, 05 Dec 2030 00:00:00 GMT', SUNSET], // IMF-fixdate
  ['Thursday, 05-Dec-30 00:00:00 GMT', SUNSET], // obsolete RFC 850
  ['Thu Dec  5 00:00:00 2030', SUNSET], // obsolete asctime
  ['Thu, 05 Dec 2030 00:00:00 UTC', undefined], // only GMT is allowed
  ['2030-12-05T00:00:00Z', undefined],
  ['Thu, 31 Feb 2030 00:00:00 GMT', undefined],
  ['Thu, 05 Dec 2030 24:00:00 GMT', undefined],
  ['', undefined],
];
for (const [value, expected] of httpDates) {
  test(`HTTP-date ${JSON.stringify(value)} → ${expected}`, () => assert.is(parseHttpDate(value), expected));
}

const retryAfters: Array<[string | undefined, string, number | undefined]> = [
  ['42', 'delay-seconds', 42],
  ['0', 'delay-seconds', 0],
  [' 7 ', 'delay-seconds', 7],
  ['Thu, 05 Dec 2030 00:00:00 GMT', 'http-date', SUNSET],
  ['41.5', 'invalid', undefined],
  ['-1', 'invalid', undefined],
  ['1e3', 'invalid', undefined],
  ['soon', 'invalid', undefined],
  [undefined, 'invalid', undefined],
];
for (const [value, kind, at] of retryAfters) {
  test(`Retry-After ${JSON.stringify(value)} is ${kind}`, () => {
    const parsed = parseRetryAfter(value);
    assert.is(parsed.kind, kind);
    const base = SUNSET - 60_000;
    const expectedAt = kind === 'delay-seconds' ? base + at! * 1000 : at;
    assert.is(retryAt(parsed, base), expectedAt);
  });
}

test('RateLimit-Policy and RateLimit parse as structured lists with parameters', () => {
  assert.equal(parseStructuredList('"minute";q=60;w=60, "day";q=1000;w=86400'), [
    { value: 'minute', params: { q: 60, w: 60 } },
    { value: 'day', params: { q: 1000, w: 86400 } },
  ]);
  assert.equal(parseStructuredList('"minute";r=12;t=41'), [{ value: 'minute', params: { r: 12, t: 41 } }]);
});

const malformed = ['', 'minute;q=', '"minute";q=60,', '"unterminated;q=1', '"a";Q=1', '"a" "b"'];
for (const value of malformed) {
  test(`structured list ${JSON.stringify(value)} is refused`, () => assert.is(parseStructuredList(value), undefined));
}

const deprecations: Array<[string | undefined, number | undefined]> = [
  ['@1688169599', 1688169599000],
  [' @0 ', 0],
  ['true', undefined], // the pre-RFC 9745 draft form
  ['Thu, 05 Dec 2030 00:00:00 GMT', undefined], // an HTTP-date was an earlier draft
  [undefined, undefined],
];
for (const [value, expected] of deprecations) {
  test(`Deprecation ${JSON.stringify(value)} → ${expected}`, () => assert.is(parseDeprecation(value), expected));
}

test('Link headers: several links, quoted and unquoted parameters, rel lists', () => {
  const links = parseLinks('</v1/pets?cursor=abc&limit=1>; rel="next", <https://x.test/d>; rel=deprecation; type="text/html", </v1/pets?status=available>; rel="alternate successor-version"');
  assert.is(links.length, 3);
  assert.is(linkWithRel(links, 'next')?.target, '/v1/pets?cursor=abc&limit=1');
  assert.is(linkWithRel(links, 'deprecation')?.params.type, 'text/html');
  assert.is(linkWithRel(links, 'successor-version')?.target, '/v1/pets?status=available');
  assert.is(linkWithRel(links, 'prev'), undefined);
  assert.equal(parseLinks(undefined), []);
});

test.run();
