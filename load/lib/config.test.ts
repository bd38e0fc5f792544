import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_BASE_URL, MAX_CLIENTS, baseUrl, boolEnv, clientsEnv, durationEnv, expectedLimit, numberEnv, parseDuration, summaryPath } from './config.js';

test('BASE_URL defaults to the local server and loses a trailing slash', () => {
  assert.is(baseUrl({}), DEFAULT_BASE_URL);
  assert.is(baseUrl({ BASE_URL: 'https://api.example.test/v1/' }), 'https://api.example.test/v1');
  assert.throws(() => baseUrl({ BASE_URL: 'api.example.test/v1' }), /not an http/);
  // Its origin is what every request is checked against: one that cannot be read is refused here, not on each request.
  for (const url of ['http://user:secret@api.example.test/v1', 'http://api.example.test\\@evil.test/v1', 'http://api.example.test:3000 /v1']) {
    assert.throws(() => baseUrl({ BASE_URL: url }), /names no origin the key can be kept to/, url);
  }
  assert.is(baseUrl({ BASE_URL: 'http://pet_store:3000/v1' }), 'http://pet_store:3000/v1');
});

for (const [env, expected] of [
  [{}, { plan: null, limit: null }],
  [{ PLAN: 'free' }, { plan: 'free', limit: 60 }],
  [{ PLAN: 'Pro' }, { plan: 'pro', limit: 300 }],
  [{ PLAN: 'business' }, { plan: 'business', limit: 1000 }],
  [{ PLAN: 'enterprise' }, { plan: 'enterprise', limit: null }],
  [
    { PLAN: 'enterprise', LIMIT: '500' },
    { plan: 'enterprise', limit: 500 },
  ],
  [{ LIMIT: '12' }, { plan: null, limit: 12 }],
] as const) {
  test(`expectedLimit(${JSON.stringify(env)})`, () => {
    assert.equal(expectedLimit(env), expected);
  });
}

test('CLIENTS, or BATCH, its older name, is how many requests go at once: 1 to 128, and the two must agree', () => {
  assert.is(clientsEnv({}), 1);
  assert.is(clientsEnv({ CLIENTS: '32' }), 32);
  assert.is(clientsEnv({ BATCH: '4' }), 4);
  assert.is(clientsEnv({ CLIENTS: '128', BATCH: '128' }), 128);
  assert.is(MAX_CLIENTS, 128);
  assert.throws(() => clientsEnv({ CLIENTS: '129' }), /CLIENTS=129 is above 128/);
  assert.throws(() => clientsEnv({ BATCH: '0' }), /BATCH=0 is below 1/);
  assert.throws(() => clientsEnv({ CLIENTS: '32', BATCH: '4' }), /CLIENTS=32 and BATCH=4 disagree/);
});

test('a mistyped environment stops the run with the variable named', () => {
  assert.throws(() => expectedLimit({ PLAN: 'gold' }), /PLAN=gold/);
  assert.throws(() => expectedLimit({ LIMIT: '0' }), /LIMIT=0 is below 1/);
  assert.throws(() => numberEnv({ BATCH: '2.5' }, 'BATCH', 1, { integer: true }), /BATCH=2.5 is not an integer/);
  assert.throws(() => numberEnv({ OVERDRIVE: 'x' }, 'OVERDRIVE', 1.5), /not a number/);
  assert.throws(() => boolEnv({ BAN: 'maybe' }, 'BAN', false), /BAN=maybe/);
  assert.throws(() => durationEnv({ DURATION: '2 minutes' }, 'DURATION', '1m'), /DURATION/);
});

test('booleans, numbers and durations parse as k6 users write them', () => {
  assert.is(boolEnv({ BAN: '1' }, 'BAN', false), true);
  assert.is(boolEnv({ BAN: 'off' }, 'BAN', true), false);
  assert.is(boolEnv({ BAN: ' ' }, 'BAN', true), true, 'blank means unset');
  assert.is(numberEnv({}, 'RATE', 1800), 1800);
  assert.is(parseDuration('150s'), 150);
  assert.is(parseDuration('2m30s'), 150);
  assert.is(parseDuration('1h'), 3600);
  assert.is(parseDuration('45'), 45);
  assert.throws(() => parseDuration('2m30'), /not a duration/);
});

test('the JSON summary goes to SUMMARY_JSON or <script>-summary.json where k6 runs, with the segment in the name', () => {
  assert.is(summaryPath({}, 'smoke'), 'smoke-summary.json');
  assert.is(summaryPath({}, 'smoke', '0:1'), 'smoke-summary.json');
  assert.is(summaryPath({}, 'capacity', '1/2:1'), 'capacity-summary-1_2-1.json');
  assert.is(summaryPath({}, 'capacity', '0:1/3'), 'capacity-summary-0-1_3.json');
  assert.is(summaryPath({ SUMMARY_JSON: 'a.json' }, 'capacity', '0:1/3'), 'a.json');
  assert.is(summaryPath({ SUMMARY_DIR: '/results/' }, 'capacity', '1/2:1'), '/results/capacity-summary-1_2-1.json');
  assert.is(summaryPath({ SUMMARY_JSON: '/tmp/x.json' }, 'smoke'), '/tmp/x.json');
});

test.run();
