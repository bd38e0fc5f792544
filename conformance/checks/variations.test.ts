// The pure parts of the client variations: which spellings and key variants are sent, and how a
// HEAD answer is judged against GET's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ExchangeResponse } from '../../judge/exchange.ts';
import { judgeHead, keyVariants, schemeSpellings, type HeadVerdict } from './variations.ts';

const spellings = suite('schemeSpellings');

const SPELLINGS: Array<[string, string[]]> = [
  ['Bearer', ['bearer', 'BEARER', 'bEARER']],
  ['bearer', ['BEARER']],
  ['BEARER', ['bearer']],
];

for (const [scheme, expected] of SPELLINGS) {
  spellings(`${scheme}: ${expected.join(', ')}, never the scheme itself`, () => {
    assert.equal(schemeSpellings(scheme), expected);
  });
}

spellings.run();

const variants = suite('keyVariants');

const KEYS: Array<[string, string[], string]> = [
  ['test-pro-key', ['Test-pro-key', 'TEST-PRO-KEY'], 'lower-case key: its lower-cased form is itself, left out'],
  ['Second-Key', ['second-Key', 'SECOND-KEY', 'second-key'], 'mixed case: three variants'],
  ['123-abc', ['123-Abc', '123-ABC'], 'the first letter, not the first character, is flipped; upper-cased equals it'],
  ['ABC', ['aBC', 'abc'], 'upper-case key: its upper-cased form is itself, left out'],
  ['12345', [], 'no letters: no variant differs from the key'],
];

for (const [key, expected, why] of KEYS) {
  variants(`${key}: ${why}`, () => {
    const found = keyVariants(key);
    assert.equal(
      found.map((v) => v.variant),
      expected,
    );
    for (const v of found) {
      assert.is.not(v.variant, key);
      assert.is(v.variant.toLowerCase(), key.toLowerCase());
    }
  });
}

variants.run();

const head = suite('judgeHead');

const RATE = { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '299', 'x-ratelimit-reset': '1800000060' };
const JSON_TYPE = { 'content-type': 'application/json' };
const DEPRECATED = { deprecation: '@1764892800', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' };

function res(status: number, headers: Record<string, string>, body = ''): ExchangeResponse {
  return { status, headers, body };
}

const GET_PET = res(200, { ...RATE, ...JSON_TYPE, ...DEPRECATED }, '{"id":1,"name":"Biscuit","categoryId":1}');
const GET_401 = res(401, { ...RATE, ...JSON_TYPE, 'www-authenticate': 'Bearer realm="pets"' }, '{"code":"x","message":"y","status":401}');

const CASES: Array<[string, ExchangeResponse | undefined, ExchangeResponse | undefined, HeadVerdict]> = [
  ['the same status, headers and no content', GET_PET, res(200, { ...RATE, ...JSON_TYPE, ...DEPRECATED }), { problems: [], missing: [] }],
  [
    'Remaining differs: counts are never compared',
    GET_PET,
    res(200, { ...RATE, 'x-ratelimit-remaining': '3', ...JSON_TYPE, ...DEPRECATED }),
    { problems: [], missing: [] },
  ],
  [
    'served where GET is refused for want of a key',
    GET_401,
    res(200, { ...RATE, ...JSON_TYPE }),
    { problems: ['answered 200 where GET answered 401'], missing: ['www-authenticate'] },
  ],
  [
    '404 where GET answers 200',
    GET_PET,
    res(404, { ...RATE, ...JSON_TYPE, ...DEPRECATED }),
    { problems: ['answered 404 where GET answered 200'], missing: [] },
  ],
  [
    'X-RateLimit-* GET carried are missing: must; Deprecation and Sunset: should',
    GET_PET,
    res(200, { ...JSON_TYPE }),
    {
      problems: ['lacks x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, which every response carries'],
      missing: ['deprecation', 'sunset'],
    },
  ],
  ['a header GET did not carry is not asked of HEAD', res(200, JSON_TYPE, '[]'), res(200, JSON_TYPE), { problems: [], missing: [] }],
  [
    '405 where GET answers 200: HEAD is not supported',
    GET_PET,
    res(405, { ...RATE, ...JSON_TYPE, allow: 'GET' }),
    {
      problems: ['refused HEAD with 405 Method Not Allowed where GET answered 200 (RFC 9110 §9.1: servers MUST support GET and HEAD)'],
      missing: ['deprecation', 'sunset'],
    },
  ],
  [
    '501 where GET answers 401: HEAD is not supported, whatever GET answered',
    GET_401,
    res(501, { ...RATE, ...JSON_TYPE }),
    {
      problems: ['refused HEAD with 501 Not Implemented where GET answered 401 (RFC 9110 §9.1: servers MUST support GET and HEAD)'],
      missing: ['www-authenticate'],
    },
  ],
  [
    '405 where GET answers 405 too: the same status, not a refusal of HEAD alone',
    res(405, { ...RATE, ...JSON_TYPE, allow: 'POST' }, '{"code":"x","message":"y","status":405}'),
    res(405, { ...RATE, ...JSON_TYPE, allow: 'POST' }),
    { problems: [], missing: [] },
  ],
  ['a 429 on either side is not compared', GET_PET, res(429, RATE), { incomparable: 'refused for its rate (429)' }],
  ['GET without an answer is not compared', undefined, res(200, RATE), { incomparable: 'GET got no answer' }],
  ['HEAD without an answer fails', GET_PET, undefined, { problems: ['no answer'], missing: [] }],
];

for (const [what, get, answer, expected] of CASES) {
  head(what, () => {
    assert.equal(judgeHead(get, answer), expected);
  });
}

head.run();
