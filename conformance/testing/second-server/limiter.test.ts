// The rate limits over real sockets on a manual clock: a key's fixed windows, 429s, bans and the
// day limit, and the IETF RateLimit-Policy and RateLimit fields naming the windows really applied.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PLAN_LIMITS } from '../../../spec/rules/contract.js';
import { parseHttpDate } from '../../../spec/rules/fields.js';
import { ADDRESS_LIMIT_PER_MINUTE, type SecondServerOptions } from './index.ts';
import { START_MS, assertError, call, ietf, rate, until, withServer, type Reply } from './test-support.ts';

// ---------------------------------------------------------------------------------------------
const limits = suite('rate limits: a window from the first request, 429 with an HTTP-date, then a ban');

/** The fixed window is the default, and the same when asked for. */
const FIXED: readonly SecondServerOptions[] = [{}, { window: 'fixed' }];

limits('the window starts at the key’s first request: Reset is 60 s after it, rounded up, and it reopens exactly then', async () => {
  for (const options of FIXED) {
    await withServer(options, async (r) => {
      const context = JSON.stringify(options);
      const key = r.server.keys.free;
      r.clock.advance(1_500);
      const opened = r.clock.now();
      const reset = Math.ceil((opened + 60_000) / 1000);
      assert.equal(rate(await call(r, '/pets', { key })), { limit: 60, remaining: 59, reset }, context);
      r.clock.advance(30_000);
      assert.equal(rate(await call(r, '/pets/1', { key })), { limit: 60, remaining: 58, reset }, context);
      r.clock.set(opened + 59_999);
      assert.equal(rate(await call(r, '/pets', { key })), { limit: 60, remaining: 57, reset }, context);
      r.clock.set(opened + 60_000);
      assert.equal(rate(await call(r, '/pets', { key })), { limit: 60, remaining: 59, reset: Math.ceil((opened + 120_000) / 1000) }, context);
      assert.equal(
        rate(await call(r, '/pets', { key: r.server.keys.pro })),
        { limit: 300, remaining: 299, reset: Math.ceil((opened + 120_000) / 1000) },
        `${context}: each key has its own`,
      );
    });
  }
});

limits(
  'the 61st request of a free key in a minute is 429 with Remaining 0, no-store and a Retry-After HTTP-date that is Reset; waiting it out is admitted',
  async () => {
    for (const options of FIXED) {
      await withServer(options, async (r) => {
        const context = JSON.stringify(options);
        const key = r.server.keys.free;
        for (let i = 1; i <= 60; i++) assert.is((await call(r, '/pets', { key })).status, 200, `${context}: request ${i}`);
        const refused = await call(r, '/pets', { key });
        assertError(refused, 429, 'RATE_LIMITED', `${context}: the 61st`);
        assert.equal(rate(refused), { limit: 60, remaining: 0, reset: Math.ceil((START_MS + 60_000) / 1000) }, context);
        const retryAfter = refused.headers.get('retry-after') ?? '';
        assert.match(retryAfter, /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
        assert.is(parseHttpDate(retryAfter, START_MS), rate(refused).reset * 1000, context);
        assert.is(refused.headers.get('cache-control'), 'no-store', context);
        r.clock.set(rate(refused).reset * 1000);
        const again = await call(r, '/pets', { key });
        assert.is(again.status, 200, context);
        assert.is(rate(again).remaining, 59, context);
      });
    }
  },
);

limits('after banAfter refused requests in one window the key is banned: 403 until exactly the Retry-After, then admitted', async () => {
  for (const { banAfter, banSeconds } of [
    { banAfter: undefined, banSeconds: undefined },
    { banAfter: 2, banSeconds: 90 },
  ]) {
    const options: SecondServerOptions = {};
    if (banAfter !== undefined) options.banAfter = banAfter;
    if (banSeconds !== undefined) options.banSeconds = banSeconds;
    await withServer(options, async (r) => {
      const refusals = banAfter ?? 5;
      const key = r.server.keys.free;
      const windowEnd = rate(await call(r, '/pets', { key })).reset * 1000;
      for (let i = 2; i <= 60; i++) await call(r, '/pets', { key });
      r.clock.advance(10_000);
      for (let i = 1; i <= refusals; i++) assertError(await call(r, '/pets', { key }), 429, 'RATE_LIMITED', `refusal ${i}`);
      const bannedAt = r.clock.now();
      // Never before the window it punishes ends: the Reset it announced stays true.
      const end = Math.max(Math.ceil((bannedAt + (banSeconds ?? 30) * 1000) / 1000) * 1000, windowEnd);
      r.clock.advance(1);
      const banned = await call(r, '/pets', { key });
      assertError(banned, 403, 'FORBIDDEN_BANNED', 'after the refusals');
      assert.equal(rate(banned), { limit: 60, remaining: 0, reset: end / 1000 });
      assert.is(parseHttpDate(banned.headers.get('retry-after'), bannedAt), end);
      r.clock.set(end - 1);
      assertError(await call(r, '/pets/1', { key }), 403, 'FORBIDDEN_BANNED', 'just before the end');
      assert.is((await call(r, '/pets', { key: r.server.keys.pro })).status, 200, 'other keys are not banned');
      r.clock.set(end);
      const admitted = await call(r, '/pets', { key });
      assert.is(admitted.status, 200, 'the ban lifts when Retry-After said');
      assert.equal(rate(admitted), { limit: 60, remaining: 59, reset: Math.ceil((end + 60_000) / 1000) });
    });
  }
});

limits('fewer than banAfter refusals in a window do not ban: the count starts again with the next window', async () => {
  await withServer({ banAfter: 3 }, async (r) => {
    const key = r.server.keys.free;
    for (let round = 0; round < 2; round++) {
      for (let i = 1; i <= 60; i++) await call(r, '/pets', { key });
      for (let i = 1; i <= 2; i++) assert.is((await call(r, '/pets', { key })).status, 429);
      r.clock.advance(60_000);
    }
    assert.is((await call(r, '/pets', { key })).status, 200);
  });
});

limits('the day limit applies in a 24 h window from the first request; Limit, Remaining and Reset then describe it', async () => {
  await withServer({}, async (r) => {
    const key = r.server.keys.free;
    const dayReset = Math.ceil((START_MS + 86_400_000) / 1000);
    let last: Reply | undefined;
    for (let minute = 0; minute < 20; minute++) {
      for (let i = 0; i < 50; i++) {
        last = await call(r, '/pets', { key });
        assert.is(last.status, 200);
      }
      if (minute === 18)
        assert.equal(rate(last!), { limit: 60, remaining: 10, reset: Math.ceil((START_MS + 18 * 61_000 + 60_000) / 1000) }, 'the minute is nearer');
      if (minute < 19) r.clock.advance(61_000);
    }
    assert.equal(rate(last!), { limit: 1000, remaining: 0, reset: dayReset }, 'the day is nearer');
    r.clock.advance(61_000);
    const refused = await call(r, '/pets', { key });
    assertError(refused, 429, 'RATE_LIMITED', 'the 1001st of the day');
    assert.equal(rate(refused), { limit: 1000, remaining: 0, reset: dayReset });
    assert.is(parseHttpDate(refused.headers.get('retry-after'), START_MS), dayReset * 1000);
    assert.equal(ietf(refused).states[1], { name: 'day', remaining: 0, reset: until(r, START_MS + 86_400_000) }, 'RateLimit: the day is spent until it ends');
    assert.is(ietf(refused).states[0]!.name, 'minute');
    for (let i = 2; i <= 5; i++) await call(r, '/pets', { key });
    const banned = await call(r, '/pets', { key });
    assertError(banned, 403, 'FORBIDDEN_BANNED', 'banned while the day is spent');
    assert.is(rate(banned).reset, dayReset, 'the ban lasts until the day window ends');
    assert.equal(ietf(banned).states, [
      { name: 'minute', remaining: 0, reset: until(r, dayReset * 1000) },
      { name: 'day', remaining: 0, reset: until(r, dayReset * 1000) },
    ]);
    r.clock.set(dayReset * 1000);
    assert.is((await call(r, '/pets', { key })).status, 200);
  });
});

limits.run();

// ---------------------------------------------------------------------------------------------
const fields = suite('IETF RateLimit-Policy and RateLimit: the windows really applied, agreeing with X-RateLimit-*');

fields('an admitted request: the plan’s minute and day policies, and r and t of each window as it stands', async () => {
  await withServer({}, async (r) => {
    r.clock.advance(1_500);
    const opened = r.clock.now();
    for (const plan of ['free', 'pro', 'business'] as const) {
      const reply = await call(r, '/pets', { key: r.server.keys[plan] });
      assert.is(reply.status, 200);
      const { perMinute, perDay } = PLAN_LIMITS[plan];
      assert.is(reply.headers.get('ratelimit-policy'), `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`, plan);
      assert.is(reply.headers.get('ratelimit'), `"minute";r=${perMinute - 1};t=60, "day";r=${perDay - 1};t=86400`, plan);
      assert.equal(rate(reply), { limit: perMinute, remaining: perMinute - 1, reset: Math.ceil((opened + 60_000) / 1000) }, plan);
    }
    const key = r.server.keys.free;
    r.clock.advance(20_250);
    const later = await call(r, '/pets/1', { key });
    assert.equal(ietf(later).policies, [
      { name: 'minute', quota: 60, window: 60 },
      { name: 'day', quota: 1000, window: 86400 },
    ]);
    assert.equal(ietf(later).states, [
      { name: 'minute', remaining: 58, reset: until(r, opened + 60_000) },
      { name: 'day', remaining: 998, reset: until(r, opened + 86_400_000) },
    ]);
    assert.equal(
      ietf(later).states.map((st) => st.reset),
      [40, 86380],
      't counts down with the clock, rounded up',
    );
    assert.is(rate(later).remaining, 58);
  });
});

fields('a 429: the spent minute has r=0 and t until it ends, when Retry-After lets in again; the day still says what it has left', async () => {
  await withServer({}, async (r) => {
    const key = r.server.keys.free;
    for (let i = 1; i <= 60; i++) await call(r, '/pets', { key });
    r.clock.advance(12_700);
    const refused = await call(r, '/pets', { key });
    assertError(refused, 429, 'RATE_LIMITED', 'the 61st');
    assert.equal(rate(refused), { limit: 60, remaining: 0, reset: Math.ceil((START_MS + 60_000) / 1000) });
    const { policies, states } = ietf(refused);
    assert.equal(policies, [
      { name: 'minute', quota: 60, window: 60 },
      { name: 'day', quota: 1000, window: 86400 },
    ]);
    assert.equal(states, [
      { name: 'minute', remaining: 0, reset: until(r, START_MS + 60_000) },
      { name: 'day', remaining: 940, reset: until(r, START_MS + 86_400_000) },
    ]);
    assert.is(states[0]!.reset, 48);
    const retryAt = parseHttpDate(refused.headers.get('retry-after'), START_MS)!;
    assert.ok(
      retryAt - 1000 < r.clock.now() + states[0]!.reset! * 1000 && r.clock.now() + states[0]!.reset! * 1000 <= retryAt + 1000,
      't and Retry-After name the same end',
    );
  });
});

fields('a 403 ban: every window has r=0 until the ban ends', async () => {
  await withServer({ banAfter: 2, banSeconds: 90 }, async (r) => {
    const key = r.server.keys.free;
    for (let i = 1; i <= 62; i++) await call(r, '/pets', { key });
    r.clock.advance(5_000);
    const banned = await call(r, '/pets', { key });
    assertError(banned, 403, 'FORBIDDEN_BANNED', 'banned');
    const endMs = rate(banned).reset * 1000;
    assert.equal(ietf(banned).policies, [
      { name: 'minute', quota: 60, window: 60 },
      { name: 'day', quota: 1000, window: 86400 },
    ]);
    assert.equal(ietf(banned).states, [
      { name: 'minute', remaining: 0, reset: until(r, endMs) },
      { name: 'day', remaining: 0, reset: until(r, endMs) },
    ]);
    assert.is(ietf(banned).states[0]!.reset, 86, 'the 90 s ban ends on a whole second: 85.655 s left, rounded up');
  });
});

fields('without a valid key (401, and a 429 beyond the address limit): only the address’s minute window', async () => {
  await withServer({}, async (r) => {
    const endMs = START_MS + 60_000;
    const first = await call(r, '/pets', { key: null });
    assertError(first, 401, 'UNAUTHORIZED', 'no key');
    assert.is(first.headers.get('ratelimit-policy'), `"address-minute";q=${ADDRESS_LIMIT_PER_MINUTE};w=60`);
    assert.is(first.headers.get('ratelimit'), `"address-minute";r=${ADDRESS_LIMIT_PER_MINUTE - 1};t=60`);
    r.clock.advance(30_000);
    const wrong = await call(r, '/pets', { key: 'wrong' });
    assertError(wrong, 401, 'UNAUTHORIZED', 'an unknown key');
    assert.equal(ietf(wrong).states, [{ name: 'address-minute', remaining: ADDRESS_LIMIT_PER_MINUTE - 2, reset: 30 }]);
    assert.is(rate(wrong).remaining, ADDRESS_LIMIT_PER_MINUTE - 2);
    for (let i = 3; i <= ADDRESS_LIMIT_PER_MINUTE; i++) await call(r, '/pets', { key: null });
    r.clock.advance(10_500);
    const refused = await call(r, '/pets', { key: null });
    assertError(refused, 429, 'RATE_LIMITED', 'over the address limit');
    assert.equal(ietf(refused).policies, [{ name: 'address-minute', quota: ADDRESS_LIMIT_PER_MINUTE, window: 60 }]);
    assert.equal(ietf(refused).states, [{ name: 'address-minute', remaining: 0, reset: until(r, endMs) }]);
    assert.is(ietf(refused).states[0]!.reset, 20);
  });
});

fields.run();
