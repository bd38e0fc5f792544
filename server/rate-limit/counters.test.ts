// The counters' contract, run against both implementations: in memory on a manual clock, in Redis
// on the local Redis under a key prefix of its own (time moved with `advance`).
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import { MemoryCounters } from './memory-counters.ts';
import { DAY_MS, MINUTE_MS, ipWindows, keyWindows, type BanSpec, type WindowSpec } from './policy.ts';
import { RedisCounters } from './redis-counters.ts';
import type { ConsumeRequest, ConsumeResult, Counters } from './counters.ts';
import { REDIS_URL, redisForTests } from '../testing/services.ts';

interface Fixture {
  counters: Counters;
  /**
   * Real milliseconds that may pass inside Redis while a test runs: its timings are checked within
   * them. Measured since the test began, plus a second for the step under way: a busy machine makes
   * a test slower, never wrong.
   */
  slackMs(): number;
  /** Moves time for these counters: the clock for memory, the TTLs for Redis. */
  advance(ms: number): Promise<void>;
  done(): Promise<void>;
}

const factories: Record<string, () => Promise<Fixture>> = {
  memory: async () => {
    const clock = new ManualClock();
    const counters = new MemoryCounters(clock);
    return { counters, slackMs: () => 0, advance: async (ms) => clock.advance(ms), done: () => counters.close() };
  },
  redis: async () => {
    const counters = new RedisCounters({ url: REDIS_URL, prefix: `adoption-test:counters:${randomUUID()}:` });
    assert.ok(await counters.connect(), `Redis stopped answering at ${REDIS_URL}`);
    const began = performance.now();
    return {
      counters,
      // The exact times are the memory fixture's, on the manual clock.
      slackMs: () => Math.ceil(performance.now() - began) + 1_000,
      advance: (ms) => counters.advance(ms),
      done: async () => {
        await counters.reset();
        await counters.close();
      },
    };
  },
};

const FREE = keyWindows({ perMinute: 60, perDay: 1_000 });
const BAN: BanSpec = { threshold: 5, periodMs: MINUTE_MS, durationMs: 10 * MINUTE_MS };
const req = (windows: readonly WindowSpec[], extra: Partial<ConsumeRequest> = {}): ConsumeRequest => ({
  partition: 'key:abc',
  windows,
  ban: null,
  cost: 1,
  ...extra,
});

async function repeat(counters: Counters, request: ConsumeRequest, n: number): Promise<ConsumeResult[]> {
  const results: ConsumeResult[] = [];
  for (let i = 0; i < n; i++) results.push(await counters.consume(request));
  return results;
}
function within(actual: number, expected: number, slack: number) {
  assert.ok(actual <= expected && actual >= expected - slack, `${actual} should be ${expected}${slack ? ` (at most ${slack} ms less)` : ''}`);
}
const outcomes = (results: ConsumeResult[]) => results.map((r) => r.outcome);
const used = (result: ConsumeResult, name: string) => result.windows.find((w) => w.spec.name === name)!.used;

const redis = await redisForTests('counters.test.ts');

for (const [name, make] of Object.entries(factories)) {
  const s = suite(`${name} counters`);
  const t = name === 'redis' ? redis.register(s) : s;
  let fx: Fixture;
  s.before.each(async () => {
    fx = await make();
  });
  s.after.each(async () => {
    await fx.done();
  });

  t('admits exactly the minute limit, then refuses', async () => {
    const results = await repeat(fx.counters, req(FREE), 62);
    assert.equal(outcomes(results).slice(0, 60), Array(60).fill('admitted'));
    assert.equal(outcomes(results).slice(60), ['refused', 'refused']);
    assert.equal(
      results.slice(0, 3).map((r) => used(r, 'minute')),
      [1, 2, 3],
    );
  });

  t('a refused request moves neither window (a 429 uses no quota)', async () => {
    await repeat(fx.counters, req(FREE), 60);
    const refused = await repeat(fx.counters, req(FREE), 25);
    assert.ok(refused.every((r) => r.outcome === 'refused'));
    assert.is(used(refused.at(-1)!, 'day'), 60);
    await fx.advance(MINUTE_MS);
    const next = await fx.counters.consume(req(FREE));
    assert.is(next.outcome, 'admitted');
    assert.is(used(next, 'day'), 61, 'the day counted 60 + this one, none of the 25 refusals');
    assert.is(used(next, 'minute'), 1);
  });

  t('the day window is enforced on its own, across minute windows', async () => {
    const windows = keyWindows({ perMinute: 10, perDay: 25 });
    const all: ConsumeResult[] = [];
    for (let minute = 0; minute < 3; minute++) {
      all.push(...(await repeat(fx.counters, req(windows), 10)));
      await fx.advance(MINUTE_MS);
    }
    assert.is(outcomes(all).filter((o) => o === 'admitted').length, 25);
    assert.equal(outcomes(all).slice(25), Array(5).fill('refused'));
    const refusal = all.at(-1)!;
    assert.is(used(refusal, 'day'), 25);
    assert.is(used(refusal, 'minute'), 5, 'the minute window had room; the day did not');
  });

  t('windows start at the first request and roll over exactly after their length', async () => {
    await fx.advance(12_345); // no alignment to the clock: the window starts here
    const first = await fx.counters.consume(req(FREE));
    within(first.windows[0]!.resetMs, MINUTE_MS, fx.slackMs());
    within(first.windows[1]!.resetMs, DAY_MS, fx.slackMs());
    await repeat(fx.counters, req(FREE), 59);
    const before = MINUTE_MS - 1 - fx.slackMs();
    await fx.advance(before);
    const late = await fx.counters.consume(req(FREE));
    assert.is(late.outcome, 'refused', 'just before the end the window is still full');
    within(late.windows[0]!.resetMs, MINUTE_MS - before, fx.slackMs());
    await fx.advance(MINUTE_MS - before);
    const fresh = await fx.counters.consume(req(FREE));
    assert.is(fresh.outcome, 'admitted');
    assert.is(used(fresh, 'minute'), 1);
    within(fresh.windows[0]!.resetMs, MINUTE_MS, fx.slackMs());
    within(fresh.windows[1]!.resetMs, DAY_MS - MINUTE_MS, fx.slackMs());
  });

  t('a fixed window admits up to twice its limit across a boundary (documented)', async () => {
    const windows = keyWindows({ perMinute: 5, perDay: 1_000 });
    await fx.counters.consume(req(windows));
    await fx.advance(MINUTE_MS - 1_000);
    await repeat(fx.counters, req(windows), 4);
    await fx.advance(1_000);
    const burst = await repeat(fx.counters, req(windows), 6);
    assert.equal(outcomes(burst), [...Array(5).fill('admitted'), 'refused']);
  });

  t('repeated refusals ban the partition; the ban reports its time left and lifts by itself', async () => {
    const windows = keyWindows({ perMinute: 2, perDay: 1_000 });
    await repeat(fx.counters, req(windows, { ban: BAN }), 2);
    const refusals = await repeat(fx.counters, req(windows, { ban: BAN }), 5);
    assert.equal(outcomes(refusals), ['refused', 'refused', 'refused', 'refused', 'banned']);
    within(refusals[4]!.banMs, BAN.durationMs, fx.slackMs());
    await fx.advance(MINUTE_MS); // the minute window is fresh, the ban is not over
    const banned = await fx.counters.consume(req(windows, { ban: BAN }));
    assert.is(banned.outcome, 'banned');
    within(banned.banMs, BAN.durationMs - MINUTE_MS, fx.slackMs());
    assert.is(used(banned, 'minute'), 0, 'requests during a ban are not counted');
    await fx.advance(BAN.durationMs - MINUTE_MS);
    const after = await repeat(fx.counters, req(windows, { ban: BAN }), 3);
    assert.equal(outcomes(after), ['admitted', 'admitted', 'refused'], 'the refusal count started again from 0');
  });

  t('refusals spread wider than the ban period never ban', async () => {
    const windows = keyWindows({ perMinute: 1, perDay: 1_000 });
    for (let i = 0; i < 3; i++) {
      await fx.counters.consume(req(windows, { ban: BAN }));
      await repeat(fx.counters, req(windows, { ban: BAN }), BAN.threshold - 1);
      await fx.advance(MINUTE_MS);
    }
    const last = await fx.counters.consume(req(windows, { ban: BAN }));
    assert.is(last.outcome, 'admitted');
  });

  t('cost 0 only asks: it counts nothing, and is refused once no slot is left', async () => {
    const windows = keyWindows({ perMinute: 3, perDay: 1_000 });
    const probe = await fx.counters.consume(req(windows, { cost: 0 }));
    assert.is(probe.outcome, 'admitted');
    assert.is(used(probe, 'minute'), 0);
    await repeat(fx.counters, req(windows), 3);
    assert.is((await fx.counters.consume(req(windows, { cost: 0 }))).outcome, 'refused');
  });

  t('partitions are independent', async () => {
    await repeat(fx.counters, req(FREE), 60);
    assert.is((await fx.counters.consume(req(FREE))).outcome, 'refused');
    assert.is((await fx.counters.consume(req(FREE, { partition: 'key:other' }))).outcome, 'admitted');
  });

  t('reset forgets windows and bans', async () => {
    const windows = keyWindows({ perMinute: 1, perDay: 1_000 });
    await repeat(fx.counters, req(windows, { ban: BAN }), 1 + BAN.threshold);
    assert.is((await fx.counters.consume(req(windows, { ban: BAN }))).outcome, 'banned');
    await fx.counters.reset();
    assert.is((await fx.counters.consume(req(windows, { ban: BAN }))).outcome, 'admitted');
  });

  t('a chain decides in order and stops at the first partition that does not admit', async () => {
    const address = { partition: 'ip:192.0.2.1', windows: ipWindows(2), ban: BAN, cost: 0 as const };
    const key = req(FREE);
    const both = await fx.counters.consumeAll([address, key]);
    assert.equal(outcomes(both), ['admitted', 'admitted']);
    assert.is(used(both[0]!, 'ip-minute'), 0, 'the probe counts nothing');
    assert.is(used(both[1]!, 'minute'), 1);

    await repeat(fx.counters, { ...address, cost: 1 }, 2); // the address has no room left
    const stopped = await fx.counters.consumeAll([address, key]);
    assert.equal(outcomes(stopped), ['refused'], 'the key was not reached');
    assert.is(used(await fx.counters.consume({ ...key, cost: 0 }), 'minute'), 1, 'and not counted');
  });

  t('a chain whose last partition refuses leaves the earlier probes untouched', async () => {
    const address = { partition: 'ip:192.0.2.2', windows: ipWindows(30), ban: BAN, cost: 0 as const };
    await repeat(fx.counters, req(keyWindows({ perMinute: 1, perDay: 10 })), 1);
    const results = await fx.counters.consumeAll([address, req(keyWindows({ perMinute: 1, perDay: 10 }))]);
    assert.equal(outcomes(results), ['admitted', 'refused']);
    assert.is(used(results[0]!, 'ip-minute'), 0);
  });

  t('concurrent consumers admit exactly the limit', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, () => fx.counters.consume(req(FREE))));
    assert.is(outcomes(results).filter((o) => o === 'admitted').length, 60);
    assert.is(Math.max(...results.map((r) => used(r, 'minute'))), 60);
  });

  s.run();
}
