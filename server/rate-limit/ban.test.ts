// The ban rule (ban.ts) held to its cases (ban-cases.ts), for a key and for an address, by both
// implementations: the memory counters on a manual clock, and consume.lua in the local Redis under a
// key prefix of this file's own (time moved with `advance`; every key removed after each case).
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import { REDIS_URL, redisForTests } from '../testing/services.ts';
import { BAN_CASES, type BanCase } from './ban-cases.ts';
import type { ConsumeRequest, Counters } from './counters.ts';
import { MemoryCounters } from './memory-counters.ts';
import { ipWindows, keyWindows, type PartitionKind } from './policy.ts';
import { RedisCounters } from './redis-counters.ts';

interface Fixture {
  counters: Counters;
  /**
   * Real milliseconds that may have passed inside Redis since the case began: a ban's end is checked
   * within them. Measured, not budgeted: a busy machine makes a case slower, never wrong.
   */
  slackMs(): number;
  /** Moves time for these counters: the clock for memory, the TTLs for Redis. */
  advance(ms: number): Promise<void>;
  done(): Promise<void>;
}

const redis = await redisForTests('ban.test.ts');
const PREFIX = `adoption-test:ban:${randomUUID()}:`;
let shared: RedisCounters | undefined;

const implementations: Record<string, () => Promise<Fixture>> = {
  memory: async () => {
    const clock = new ManualClock();
    const counters = new MemoryCounters(clock);
    return { counters, slackMs: () => 0, advance: async (ms) => clock.advance(ms), done: () => counters.close() };
  },
  redis: async () => {
    const counters = (shared ??= new RedisCounters({ url: REDIS_URL, prefix: PREFIX }));
    assert.ok(await counters.connect(), `Redis stopped answering at ${REDIS_URL}`);
    const began = performance.now();
    return { counters, slackMs: () => Math.ceil(performance.now() - began), advance: (ms) => counters.advance(ms), done: () => counters.reset() };
  },
};

const request = (kind: PartitionKind, { perMinute, ban }: BanCase, cost: 0 | 1): ConsumeRequest => ({
  partition: kind === 'key' ? 'key:ban-case' : 'ip:198.51.100.9',
  windows: kind === 'key' ? keyWindows({ perMinute, perDay: 1_000_000 }) : ipWindows(perMinute),
  ban,
  cost,
});

for (const [name, open] of Object.entries(implementations)) {
  const s = suite(`the ban rule, ${name}`);
  const t = name === 'redis' ? redis.register(s) : s;
  let fx: Fixture;
  s.before.each(async () => {
    fx = await open();
  });
  s.after.each(async () => {
    await fx.done();
  });
  s.after(async () => {
    await shared?.reset();
    await shared?.close();
    shared = undefined;
  });

  for (const kind of ['key', 'ip'] as const) {
    for (const banCase of BAN_CASES) {
      t(`${kind}: ${banCase.name}`, async () => {
        let now = 0;
        for (const [i, step] of banCase.steps.entries()) {
          await fx.advance(step.at - now);
          now = step.at;
          const result = await fx.counters.consume(request(kind, banCase, step.cost));
          const where = `request ${i + 1}, at ${step.at} ms`;
          assert.is(result.outcome, step.outcome, where);
          if (step.banEndsAt === undefined) {
            assert.is(result.banMs, 0, `${where}: no ban`);
            continue;
          }
          const endsAt = step.at + result.banMs;
          const slackMs = fx.slackMs();
          assert.ok(endsAt <= step.banEndsAt && endsAt >= step.banEndsAt - slackMs, `${where}: the ban ends at ${endsAt} ms, not ${step.banEndsAt}`);
        }
      });
    }
  }

  s.run();
}
