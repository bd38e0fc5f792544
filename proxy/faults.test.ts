// The proxy's injected answers are the contract's (x-fault-injection), the reference server's own:
// an Error body with a code the description knows, and the wait a client is to honour.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INJECTED_ANSWERS, REFUSAL_CODES } from '../spec/rules/contract.js';
import { injectedAnswer } from './faults.ts';

const NOW_MS = 1_800_000_000_500;
const NOW = Math.floor(NOW_MS / 1000);

type Case = [string, 429 | 500 | 503, { reset?: number; limit?: number }, Record<string, string | undefined>];
const CASES: Case[] = [
  [
    "a 429 with the key's last window: its Reset, its Limit",
    429,
    { reset: NOW + 42, limit: 60 },
    { 'retry-after': '42', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW + 42) },
  ],
  [
    'a 429 before any answer: a minute, Limit 0',
    429,
    {},
    { 'retry-after': '60', 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW + 60) },
  ],
  [
    'a 429 whose last window has ended: a minute from now',
    429,
    { reset: NOW - 5, limit: 60 },
    { 'retry-after': '60', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW + 60) },
  ],
  ['a 503: Retry-After 1, no window', 503, { reset: NOW + 42, limit: 60 }, { 'retry-after': '1', 'x-ratelimit-limit': undefined }],
  ['a 500: no Retry-After, no window', 500, { reset: NOW + 42 }, { 'retry-after': undefined, 'x-ratelimit-reset': undefined }],
];

for (const [what, code, last, expected] of CASES) {
  test(`injectedAnswer: ${what}`, () => {
    const { headers, body } = injectedAnswer(code, last, NOW_MS);
    assert.is(headers['x-fault-injected'], `code=${code}`);
    assert.is(headers['content-type'], 'application/json; charset=utf-8');
    for (const [name, value] of Object.entries(expected)) assert.is(headers[name], value, name);
    assert.equal(JSON.parse(body), { status: code, code: INJECTED_ANSWERS[code].code, message: INJECTED_ANSWERS[code].message });
  });
}

test("the injected 429's code is one of the contract's refusal codes, naming the key's budget", () => {
  const { body } = injectedAnswer(429, {}, NOW_MS);
  const { code } = JSON.parse(body) as { code: string };
  assert.is(REFUSAL_CODES[code as keyof typeof REFUSAL_CODES], 'key');
});

test.run();
