// `window: 'sliding'` over real sockets on a manual clock: each admission holds a slot for exactly
// 60 s, and bans end no earlier than the Reset announced. The fixed window is limiter.test.ts's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHttpDate } from '../../../spec/rules/fields.js';
import { assertError, call, ietf, rate, until, withServer } from './test-support.ts';

// ---------------------------------------------------------------------------------------------
const sliding = suite("window: 'sliding': each admission holds one of the minute's slots for exactly 60 s");

/** A whole second after START_MS, so that Reset and Retry-After name the slots' own moments. */
const SLIDE_MS = Date.UTC(2026, 0, 1, 0, 0, 13);

type Step = [atMs: number, status: 200 | 429, remaining: number, resetSecond: number];

/** Free key, Limit 60: a saturation, then the slots freeing one at a time; times and Reset from SLIDE_MS. */
const SATURATION: readonly Step[] = [
  ...Array.from({ length: 60 }, (_, i): Step => [i * 1000, 200, 59 - i, 60]),
  [59_500, 429, 0, 60],
  [59_700, 429, 0, 60],
  [59_800, 429, 0, 60],
  [59_999, 429, 0, 60],
  // The slot of t=0 frees: exactly one more, and the next slot to free is t=1's.
  [60_000, 200, 0, 61],
  [60_000, 429, 0, 61],
  [60_500, 429, 0, 61],
  [60_800, 429, 0, 61],
  [60_999, 429, 0, 61],
  [61_000, 200, 0, 62],
  // Held at t=90: t=31..59 and 60, 61.
  [90_000, 200, 28, 91],
  // Held at t=120: 61, 90.
  [120_000, 200, 57, 121],
];

sliding('Remaining, Reset, Retry-After and RateLimit over a saturation and the freeing of single slots; 4 refusals between admissions never ban', async () => {
  await withServer({ window: 'sliding' }, async (r) => {
    const key = r.server.keys.free;
    let admitted = 0;
    for (const [at, status, remaining, resetSecond] of SATURATION) {
      r.clock.set(SLIDE_MS + at);
      const reply = await call(r, '/pets', { key });
      const context = `t=${at / 1000}`;
      const resetMs = SLIDE_MS + resetSecond * 1000;
      if (status === 200) {
        assert.is(reply.status, 200, `${context}: ${reply.text}`);
        admitted++;
      } else {
        assertError(reply, 429, 'RATE_LIMITED', context);
        assert.is(parseHttpDate(reply.headers.get('retry-after'), r.clock.now()), resetMs, `${context}: Retry-After names the moment the next slot frees`);
      }
      assert.equal(rate(reply), { limit: 60, remaining, reset: resetMs / 1000 }, context);
      assert.equal(
        ietf(reply).states,
        [
          { name: 'minute', remaining, reset: until(r, resetMs) },
          { name: 'day', remaining: 1000 - admitted, reset: until(r, SLIDE_MS + 86_400_000) },
        ],
        context,
      );
    }
  });
});

sliding('a ban after banAfter 429s ends no earlier than the Reset announced; after it the slots still held count', async () => {
  const CASES = [
    // 60 one a second, banned at t=59.5 for 30 s: at t=90 the slots of t=31..59 are still held.
    { what: 'spread', banSeconds: 30, admittedAt: (i: number) => i * 1000, refusedAt: 59_500, endSecond: 90, after: { remaining: 30, reset: 91 } },
    // 60 at once, banned at t=1 for 1 s: the ban lasts until Reset (t=60) announced, when all free.
    { what: 'burst', banSeconds: 1, admittedAt: () => 0, refusedAt: 1_000, endSecond: 60, after: { remaining: 59, reset: 120 } },
  ];
  for (const { what, banSeconds, admittedAt, refusedAt, endSecond, after } of CASES) {
    await withServer({ window: 'sliding', banAfter: 2, banSeconds }, async (r) => {
      const key = r.server.keys.free;
      for (let i = 0; i < 60; i++) {
        r.clock.set(SLIDE_MS + admittedAt(i));
        assert.is((await call(r, '/pets', { key })).status, 200, `${what}: request ${i + 1}`);
      }
      r.clock.set(SLIDE_MS + refusedAt);
      for (let i = 1; i <= 2; i++) assertError(await call(r, '/pets', { key }), 429, 'RATE_LIMITED', `${what}: refusal ${i}`);
      const endMs = SLIDE_MS + endSecond * 1000;
      for (const at of [refusedAt + 1, endSecond * 1000 - 1]) {
        r.clock.set(SLIDE_MS + at);
        const banned = await call(r, '/pets', { key });
        assertError(banned, 403, 'FORBIDDEN_BANNED', `${what}: t=${at / 1000}`);
        assert.equal(rate(banned), { limit: 60, remaining: 0, reset: endMs / 1000 }, what);
        assert.is(parseHttpDate(banned.headers.get('retry-after'), r.clock.now()), endMs, what);
      }
      r.clock.set(endMs);
      const admitted = await call(r, '/pets', { key });
      assert.is(admitted.status, 200, `${what}: the ban lifts when Retry-After said`);
      assert.equal(rate(admitted), { limit: 60, ...after, reset: (SLIDE_MS + after.reset * 1000) / 1000 }, what);
    });
  }
});

sliding.run();
