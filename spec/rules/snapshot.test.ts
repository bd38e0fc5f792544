// The one judge of a response's X-RateLimit-* headers, shared by the conformance kit
// (headers.rate-limit) and smoke.js.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rateLimitHeaderProblems, readSnapshot } from './snapshot.js';

const judge = (headers: Record<string, string>) => rateLimitHeaderProblems(readSnapshot({ status: 200, headers, receivedAtMs: 0 }));
const ok = { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': '1795400000' };

for (const [name, headers, problems] of [
  ['three non-negative integers, Remaining <= Limit', ok, []],
  ['names are case-insensitive', { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' }, []],
  ['Remaining above Limit', { ...ok, 'X-RateLimit-Remaining': '61' }, ['Remaining 61 exceeds Limit 60']],
  ['a negative Remaining', { ...ok, 'X-RateLimit-Remaining': '-1' }, ['X-RateLimit-Remaining missing or not a non-negative integer']],
  [
    'a missing Limit and a fractional Reset',
    { 'X-RateLimit-Remaining': '1', 'X-RateLimit-Reset': '1.5' },
    ['X-RateLimit-Limit missing or not a non-negative integer', 'X-RateLimit-Reset missing or not a non-negative integer'],
  ],
] as const) {
  test(`rateLimitHeaderProblems: ${name}`, () => {
    assert.equal(judge(headers as Record<string, string>), problems);
  });
}

test.run();
