// The RateLimit and RateLimit-Policy fields: structured-field lists parsed strictly, serialised in
// the reference server's form, and read into names and numbers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatRateLimit, formatRateLimitPolicy, parseList, parseRateLimit, parseRateLimitPolicy, serializeList } from './structured-fields.js';

const lists: Array<[string, ReturnType<typeof parseList>]> = [
  [
    '"minute";q=60;w=60, "day";q=1000;w=86400',
    [
      { value: 'minute', params: { q: 60, w: 60 } },
      { value: 'day', params: { q: 1000, w: 86400 } },
    ],
  ],
  ['default;r=12;t=41', [{ value: { token: 'default' }, params: { r: 12, t: 41 } }]],
  ['"a\\"b";x;y=?0;z=1.25;d=@1764892800', [{ value: 'a"b', params: { x: true, y: false, z: 1.25, d: { date: 1764892800 } } }]],
  [
    '"a",\t"b"',
    [
      { value: 'a', params: {} },
      { value: 'b', params: {} },
    ],
  ],
];
for (const [text, expected] of lists) {
  test(`parseList(${JSON.stringify(text)})`, () => assert.equal(parseList(text), expected));
}

const malformed = [
  '',
  'minute;q=',
  '"minute";q=60,',
  '"unterminated;q=1',
  '"a";Q=1',
  '"a" "b"',
  'minute=12',
  '(a b)',
  ':aGk=:',
  '"a";q=1.2345',
  '1234567890123456',
];
for (const text of malformed) {
  test(`parseList refuses ${JSON.stringify(text)}`, () => assert.is(parseList(text), null));
}

test('serializeList writes what parseList reads', () => {
  for (const [text] of lists.slice(0, 2)) assert.is(serializeList(parseList(text)!), text);
  assert.is(serializeList([{ value: 'a"b', params: { x: true, y: false, z: 1.25, d: { date: 1 } } }]), '"a\\"b";x;y=?0;z=1.25;d=@1');
});

// formatRateLimit writes the list directly (it runs on every response): the same text as serializeList.
const rateLimitStates: Array<Parameters<typeof formatRateLimit>[0]> = [
  [
    { name: 'minute', remaining: 12, reset: 41 },
    { name: 'day', remaining: 940, reset: 80012 },
  ],
  [{ name: 'minute', remaining: 0 }],
  [{ name: 'a "quoted" \\ name', remaining: 1.25, reset: 0 }],
  [],
];
for (const given of rateLimitStates) {
  test(`formatRateLimit writes what serializeList writes for ${JSON.stringify(given)}`, () => {
    const items = given.map((st) => ({ value: st.name, params: st.reset === undefined ? { r: st.remaining } : { r: st.remaining, t: st.reset } }));
    assert.is(formatRateLimit(given), serializeList(items));
  });
}

const policies: Array<[string | undefined, ReturnType<typeof parseRateLimitPolicy>]> = [
  [
    '"minute";q=60;w=60, "day";q=1000;w=86400',
    [
      { name: 'minute', quota: 60, window: 60 },
      { name: 'day', quota: 1000, window: 86400 },
    ],
  ],
  ['"ip-minute";q=30', [{ name: 'ip-minute', quota: 30 }]],
  ['"minute";w=60', null],
  ['"minute";q=-1', null],
  ['"minute";q=1.5', null],
  [undefined, null],
];
for (const [text, expected] of policies) {
  test(`parseRateLimitPolicy(${JSON.stringify(text)})`, () => assert.equal(parseRateLimitPolicy(text), expected));
}

const states: Array<[string | undefined, ReturnType<typeof parseRateLimit>]> = [
  [
    '"minute";r=12;t=41, "day";r=940;t=80012',
    [
      { name: 'minute', remaining: 12, reset: 41 },
      { name: 'day', remaining: 940, reset: 80012 },
    ],
  ],
  ['"minute";r=0', [{ name: 'minute', remaining: 0 }]],
  ['"minute";t=41', null],
  ['minute=12', null],
];
for (const [text, expected] of states) {
  test(`parseRateLimit(${JSON.stringify(text)})`, () => assert.equal(parseRateLimit(text), expected));
}

test('the formatters write the reference server form and parse back', () => {
  const policy = formatRateLimitPolicy([
    { name: 'minute', quota: 60, window: 60 },
    { name: 'day', quota: 1000, window: 86400 },
  ]);
  assert.is(policy, '"minute";q=60;w=60, "day";q=1000;w=86400');
  assert.equal(parseRateLimitPolicy(policy), [
    { name: 'minute', quota: 60, window: 60 },
    { name: 'day', quota: 1000, window: 86400 },
  ]);
  const state = formatRateLimit([
    { name: 'minute', remaining: 12, reset: 41 },
    { name: 'day', remaining: 940, reset: 80012 },
  ]);
  assert.is(state, '"minute";r=12;t=41, "day";r=940;t=80012');
  assert.equal(parseRateLimit(state), [
    { name: 'minute', remaining: 12, reset: 41 },
    { name: 'day', remaining: 940, reset: 80012 },
  ]);
});

test.run();
