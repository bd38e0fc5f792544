// Keys and secrets out of what the kit keeps and shows, one table per way a key travels. Every row
// also holds the redaction to what a second pass leaves unchanged, and no output may spell a short
// key whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  distinctKeyLabel,
  isSecretName,
  KnownKeys,
  keyLabel,
  keyLabels,
  redactBody,
  redactExchange,
  redactHeader,
  redactHeaders,
  redactText,
  redactUrl,
  secretsOf,
} from './redact.js';

const LONG = 'test-pro-key-0123456789';
const SIX = 'q7Zx9w';
const THREE = 'k9Q';
const ONE = 'Z';
const KEYS = [LONG, SIX, THREE, ONE];

const labels: Array<[string, string]> = [
  [LONG, 'test…(23 chars)'],
  ['test-pro-key', 'test…(12 chars)'],
  ['test-pro-ke', '…(11 chars)'],
  [SIX, '…(6 chars)'],
  [THREE, '…(3 chars)'],
  [ONE, '…(1 char)'],
  ['', '…(0 chars)'],
  ['🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑', '🔑🔑🔑🔑…(12 chars)'],
];
for (const [key, label] of labels) {
  test(`keyLabel(${JSON.stringify(key)}) is ${label}`, () => {
    assert.is(keyLabel(key), label);
    if (key.length > 0 && key.length < 12) assert.not.ok(label.includes(key), 'a short key shows none of its characters');
  });
}

test('two keys that read alike get distinct labels, in the order they were labelled', () => {
  assert.equal(keyLabels(['test-free-key', 'test-load-key', 'test-busy-key', 'abc']), [
    'test…(13 chars)',
    'test…(13 chars) #2',
    'test…(13 chars) #3',
    '…(3 chars)',
  ]);
  assert.is(
    distinctKeyLabel('xyz', (l) => l === '…(3 chars)'),
    '…(3 chars) #2',
  );
});

const names: Array<[string, boolean]> = [
  ['Authorization', true],
  ['Proxy-Authorization', true],
  ['X-Auth', true],
  ['X-Api-Key', true],
  ['api_key', true],
  ['access_token', true],
  ['Cookie', true],
  ['Set-Cookie', true],
  ['password', true],
  ['X-Session-Id', true],
  ['client_credentials', true],
  ['client-secret', true],
  ['WWW-Authenticate', false],
  ['Proxy-Authenticate', false],
  ['Content-Type', false],
  ['X-RateLimit-Remaining', false],
  ['limit', false],
  ['k', false],
];
for (const [name, secret] of names) {
  test(`isSecretName(${name}) is ${secret}`, () => assert.is(isSecretName(name), secret));
}

// [what, header name, value, shown]
const headers: Array<[string, string, string, string]> = [
  ['Authorization keeps its scheme and shows the label', 'Authorization', `Bearer ${LONG}`, 'Bearer test…(23 chars)'],
  ['Authorization with a short key', 'authorization', `Bearer ${SIX}`, 'Bearer …(6 chars)'],
  ['Authorization with a one-character key', 'authorization', `Bearer ${ONE}`, 'Bearer …(1 char)'],
  ['Authorization with two spaces', 'authorization', `Bearer  ${THREE}`, 'Bearer …(3 chars)'],
  ['Authorization without a scheme', 'authorization', SIX, '…(6 chars)'],
  ['Authorization that is only a scheme', 'authorization', 'Bearer', 'Bearer'],
  ['Basic credentials', 'Authorization', 'Basic dGVzdC1wcm8ta2V5Og==', 'Basic dGVz…(20 chars)'],
  ['X-Auth carrying a key', 'X-Auth', SIX, '<redacted>'],
  ['a secret-named header whatever it holds', 'X-Api-Token', 'anything', '<redacted>'],
  ['a cookie', 'Cookie', `session=${SIX}`, '<redacted>'],
  ['a non-secret header is untouched', 'Content-Type', 'application/json', 'application/json'],
  ['a challenge is untouched', 'WWW-Authenticate', 'Bearer error="invalid_token"', 'Bearer error="invalid_token"'],
  ['a non-secret header holding a known key', 'X-Echo', `you sent ${SIX}`, 'you sent …(6 chars)'],
  ['a known key upper-cased is still the key', 'X-Echo', SIX.toUpperCase(), '…(6 chars)'],
];
for (const [what, name, value, shown] of headers) {
  test(`header: ${what}`, () => {
    const once = redactHeader(name, value, KEYS);
    assert.is(once, shown);
    assert.is(redactHeader(name, once, KEYS), once, 'redacting again changes nothing');
    for (const key of [SIX, THREE, LONG]) assert.not.ok(once.includes(key), key);
  });
}

test('redactHeaders: every header of a message, in a new object', () => {
  const given = { authorization: `Bearer ${THREE}`, 'x-auth': LONG, accept: 'application/json' };
  assert.equal(redactHeaders(given, KEYS), { authorization: 'Bearer …(3 chars)', 'x-auth': '<redacted>', accept: 'application/json' });
  assert.is(given.authorization, `Bearer ${THREE}`, 'the headers given are left as they were');
});

// [what, url, shown]
const urls: Array<[string, string, string]> = [
  ['?k=<key>, though k names no secret', `http://h/v1/pets?k=${SIX}&limit=1`, 'http://h/v1/pets?k=%E2%80%A6(6%20chars)&limit=1'],
  ['a long key in the query', `http://h/v1/pets?q=${LONG}`, 'http://h/v1/pets?q=test%E2%80%A6(23%20chars)'],
  ['a key percent-encoded', `http://h/v1/pets?k=%71%37Zx9w`, 'http://h/v1/pets?k=%E2%80%A6(6%20chars)'],
  ['a secret-named parameter', 'http://h/v1/pets?limit=1&api_key=whatever', 'http://h/v1/pets?limit=1&api_key=%3Credacted%3E'],
  ['an access token in the fragment', 'http://h/cb#access_token=abc&state=1', 'http://h/cb#access_token=%3Credacted%3E&state=1'],
  ['a key in the path', `http://h/v1/keys/${THREE}/pets`, 'http://h/v1/keys/%E2%80%A6(3%20chars)/pets'],
  ['userinfo with a password', 'postgres://kit:s3cret@127.0.0.1:5432/pets', 'postgres://kit:***@127.0.0.1:5432/pets'],
  ['userinfo with an @ in the password', 'redis://user:p@ss@10.0.0.2:6379', 'redis://user:***@10.0.0.2:6379'],
  ['userinfo that is a key', `https://${LONG}@h/v1`, 'https://test%E2%80%A6(23%20chars)@h/v1'],
  ['a URL without secrets is untouched', 'http://h/v1/pets?limit=1&status=available', 'http://h/v1/pets?limit=1&status=available'],
  ['a short key inside a longer word is not the key', `http://h/v1/pets?name=${THREE}abc`, `http://h/v1/pets?name=${THREE}abc`],
];
for (const [what, url, shown] of urls) {
  test(`URL: ${what}`, () => {
    const once = redactUrl(url, KEYS);
    assert.is(once, shown);
    assert.is(redactUrl(once, KEYS), once, 'redacting again changes nothing');
  });
}

// [what, body, content type, shown]
const bodies: Array<[string, string, string | undefined, string]> = [
  ['a key in a JSON request body', `{"name":"Rex","note":"${SIX}"}`, 'application/json', '{"name":"Rex","note":"…(6 chars)"}'],
  ['a secret-named JSON member, formatting kept', '{ "name": "Rex",\n  "apiKey" : "x1" }', 'application/json', '{ "name": "Rex",\n  "apiKey" : "<redacted>" }'],
  ['a number under a secret name', '{"pin":1,"token":12345}', undefined, '{"pin":1,"token":"<redacted>"}'],
  [
    'a body cut short by a capture',
    `{"password":"hunter2","name":"${LONG.slice(0, 5)}`,
    'application/json',
    `{"password":"<redacted>","name":"${LONG.slice(0, 5)}`,
  ],
  [
    'a key in a response body',
    `{"code":"invalid_api_key","message":"${LONG} is not valid"}`,
    'application/json',
    '{"code":"invalid_api_key","message":"test…(23 chars) is not valid"}',
  ],
  ['a form', `user=a&password=b&k=${THREE}`, 'application/x-www-form-urlencoded', 'user=a&password=%3Credacted%3E&k=%E2%80%A6(3%20chars)'],
  ['a key in plain text', `key ${ONE}, again ${ONE}.`, 'text/plain', 'key …(1 char), again …(1 char).'],
  ['a body without secrets is untouched', '[{"id":1,"name":"Zeus","status":"available"}]', 'application/json', '[{"id":1,"name":"Zeus","status":"available"}]'],
];
for (const [what, body, type, shown] of bodies) {
  test(`body: ${what}`, () => {
    const once = redactBody(body, KEYS, type);
    assert.is(once, shown);
    assert.is(redactBody(once, KEYS, type), once, 'redacting again changes nothing');
  });
}

// [what, keys, text, shown]: where a short key could over-redact, and where it must not escape.
const texts: Array<[string, string[], string, string]> = [
  ['the longest key first', ['abcdefgh', 'abcdefghij'], 'x abcdefghij y', 'x …(10 chars) y'],
  ['a short key inside a word is left', ['pro'], 'production pro', 'production …(3 chars)'],
  ['a short key glued to _ is left: error codes stay readable', ['key'], 'key_banned', 'key_banned'],
  ['a short key between punctuation is replaced', ['k9Q'], 'Bearer k9Q;k=k9Q&"k9Q"', 'Bearer …(3 chars);k=…(3 chars)&"…(3 chars)"'],
  ['a long key is replaced inside anything', [LONG], `x${LONG}y`, 'xtest…(23 chars)y'],
  ['a one-character key does not eat labels', ['3', 's'], 'Bearer …(13 chars) and 3 s', 'Bearer …(13 chars) and …(1 char) …(1 char)'],
  ['a key named like the placeholder does not eat it', ['redacted'], '<redacted> redacted', '<redacted> …(8 chars)'],
  ['no key known: the text as it is', [], 'anything', 'anything'],
];
// Past 32 keys the text is read character by character instead of searched key by key: the same answers.
const MANY = Array.from({ length: 40 }, (_, i) => `unrelated-key-${i}-zzzzzz`);
for (const [what, keys, text, shown] of texts) {
  test(`text: ${what}`, () => {
    for (const known of [keys, [...keys, ...MANY]]) {
      const once = redactText(text, known);
      assert.is(once, shown);
      assert.is(redactText(once, known), once, 'redacting again changes nothing');
    }
  });
}

test('short keys (1, 3 and 6 characters) never appear whole in anything redacted', () => {
  for (const key of [ONE, THREE, SIX]) {
    const outputs = [
      keyLabel(key),
      redactHeader('authorization', `Bearer ${key}`),
      redactHeader('x-auth', key),
      redactHeader('x-echo', key, [key]),
      redactUrl(`http://h/v1/pets?k=${key}`, [key]),
      redactBody(`{"note":"${key}"}`, [key], 'application/json'),
      redactText(`${key} ${key}`, [key]),
    ];
    // A one-character key is compared as a word: its letter may stand in other words.
    for (const out of outputs) assert.not.ok(key.length === 1 ? new RegExp(`\\b${key}\\b`).test(out) : out.includes(key), `${key} in ${out}`);
  }
});

test('an exchange: URL, headers and both bodies, in a new object', () => {
  const exchange = {
    seq: 1,
    purpose: `list with ${SIX}`,
    request: {
      method: 'POST',
      url: `http://h/v1/pets?k=${SIX}`,
      headers: { authorization: `Bearer ${SIX}`, 'x-auth': SIX, 'content-type': 'application/json' },
      body: `{"name":"${SIX}"}`,
    },
    response: { status: 500, headers: { 'x-echo': SIX, 'set-cookie': `s=${SIX}` }, body: `{"message":"bad ${SIX}"}` },
    error: `reset after ${SIX}`,
  };
  const shown = redactExchange(exchange, [SIX]);
  assert.not.ok(JSON.stringify(shown).includes(SIX), JSON.stringify(shown));
  assert.is(shown.seq, 1);
  assert.is(shown.request.method, 'POST');
  assert.is(shown.response.status, 500);
  assert.is(exchange.request.url, `http://h/v1/pets?k=${SIX}`, 'the exchange given is left as it was');
  assert.equal(redactExchange(shown, [SIX]), shown, 'redacting again changes nothing');
});

test('a body cut short (a capture, a kept body) that ends inside a key: the part of it goes too', () => {
  const cut = LONG.slice(0, 11);
  const exchange = {
    request: { url: 'http://h/v1/pets', headers: {}, body: `{"note":"${cut}`, truncatedFrom: 70_000 },
    response: { headers: {}, body: `{"message":"${cut}…` },
  };
  const shown = redactExchange(exchange, [LONG]);
  assert.is(shown.request.body, '{"note":"…(11 chars)');
  assert.is(shown.response.body, '{"message":"…(11 chars)…');
  assert.is(redactText(`ran a ${LONG.slice(0, 4)}`, [LONG]), `ran a ${LONG.slice(0, 4)}`, 'a text that is not cut keeps its last word');
});

test('a ring learns keys as they pass and forgets the one seen longest ago past its limit; keys given at the start stay', () => {
  const ring = new KnownKeys(['fixed-key-1'], 2);
  ring.add('learned-a');
  ring.add('learned-b');
  ring.add('learned-a'); // seen again: now the most recent
  ring.add('learned-c');
  assert.is(ring.size, 3);
  assert.is(redactText('fixed-key-1 learned-a learned-b learned-c', ring), '…(11 chars) …(9 chars) learned-b …(9 chars)');
});

test('the secrets a set of headers carries: credentials after the scheme, values of secret-named headers', () => {
  assert.equal(secretsOf({ Authorization: 'Bearer abc', 'X-Auth': ' def ', Accept: 'application/json', Cookie: undefined }), ['abc', 'def']);
  assert.equal(secretsOf({ authorization: 'abc' }), ['abc']);
  assert.equal(secretsOf({ authorization: 'Bearer', 'x-auth': ' ' }), [], 'a scheme alone, or nothing, is no key');
});

// What a proxy learns from headers sent twice (joined as forwarded) and from cookies: the keys alone.
const LEARNT: Array<[string, Record<string, string>, string[]]> = [
  ['Authorization sent twice, joined', { authorization: 'Bearer first-key-0001, Bearer second-key-0002' }, ['first-key-0001', 'second-key-0002']],
  ['Proxy-Authorization sent twice, other schemes', { 'proxy-authorization': 'Basic dXNlcjpwdw==, Token tok-0003' }, ['dXNlcjpwdw==', 'tok-0003']],
  ['a comma inside one key stays in it', { authorization: 'Bearer a,b-key-0004' }, ['a,b-key-0004']],
  ['a secret-named cookie: its value alone', { cookie: 'apikey=cookie-key-0005' }, ['cookie-key-0005']],
  ['cookies of other names are not secrets', { cookie: 'theme=dark; api_key="quoted-key-0006"; session=s-0007; lang=en' }, ['quoted-key-0006', 's-0007']],
  ['a cookie without a name is taken whole', { cookie: 'bare-cookie-0008' }, ['bare-cookie-0008']],
  ['session ids named their own way', { cookie: 'PHPSESSID=php-0009; connect.sid=s%3Aexpress-0010; residence=paris' }, ['php-0009', 's%3Aexpress-0010']],
];
for (const [name, headers, secrets] of LEARNT) {
  test(`secretsOf: ${name}`, () => {
    assert.equal(secretsOf(headers), secrets);
  });
}

test('an Authorization value sent twice (joined as forwarded) shows each scheme with its own label', () => {
  const shown = redactHeader('authorization', 'Bearer first-key-0001, Bearer second-key-0002');
  assert.is(shown, 'Bearer firs…(14 chars), Bearer seco…(15 chars)');
  assert.is(redactHeader('authorization', shown), shown, 'redacting again changes nothing');
});

test.run();
