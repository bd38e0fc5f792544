// The decisions of one event-loop turn share one Redis round trip, and stay exact: two counters (two
// instances) firing at once on one partition admit exactly its limit between them, in one script
// call each; each request still gets its own decision, chain and ban included.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { roundTrips } from '../round-trips.ts';
import { REDIS_URL, redisForTests } from '../testing/services.ts';
import { ipWindows, keyWindows, MINUTE_MS } from './policy.ts';
import { MAX_COALESCED, RedisCounters } from './redis-counters.ts';
import type { ConsumeRequest } from './counters.ts';

const PREFIX = `adoption-test:coalesce:${randomUUID()}:`;
const redis = await redisForTests('coalesce.test.ts');
const t = suite('coalesced limiter calls');
const test = redis.register(t);
let instances: RedisCounters[] = [];

t.before(async () => {
  if (redis.missing) return;
  instances = [new RedisCounters({ url: REDIS_URL, prefix: PREFIX }), new RedisCounters({ url: REDIS_URL, prefix: PREFIX })];
  for (const counters of instances) assert.ok(await counters.connect(), `Redis must be running at ${REDIS_URL}`);
});

t.after(async () => {
  await instances[0]?.reset();
  for (const counters of instances) await counters.close();
});

const key = (partition: string, limit: number, cost: 0 | 1 = 1): ConsumeRequest => ({
  partition,
  windows: keyWindows({ perMinute: limit, perDay: 1_000_000 }),
  ban: null,
  cost,
});

test('two instances, 150 requests each in one turn, a limit of 37: exactly 37 admitted, in one round trip per instance', async () => {
  const partition = `key:${randomUUID()}`;
  const before = roundTrips.redis;
  const decisions = Array.from({ length: 300 }, (_, i) => instances[i % 2]!.consumeAll([key(partition, 37)]));
  const results = await Promise.all(decisions);
  // One call per instance while under MAX_COALESCED each; above it, one more per MAX_COALESCED.
  assert.is(roundTrips.redis - before, 2 * Math.ceil(150 / MAX_COALESCED));
  const admitted = results.filter(([r]) => r!.outcome === 'admitted');
  assert.is(admitted.length, 37);
  // Decided one after the other: the admitted ones saw 1, 2, ... 37 in the minute window.
  assert.equal(
    admitted.map(([r]) => r!.windows[0]!.used).sort((a, b) => a - b),
    Array.from({ length: 37 }, (_, i) => i + 1),
  );
  for (const [r] of results.filter(([r]) => r!.outcome !== 'admitted')) assert.is(r!.windows[0]!.used, 37);
});

test('more than MAX_COALESCED in one turn: still exact, in several calls', async () => {
  const partition = `key:${randomUUID()}`;
  const results = await Promise.all(Array.from({ length: MAX_COALESCED * 2 + 10 }, () => instances[0]!.consumeAll([key(partition, 300)])));
  assert.is(results.filter(([r]) => r!.outcome === 'admitted').length, 300);
});

test('each request keeps its own chain: a refused address stops its request only, and a ban is decided in order', async () => {
  const address = `ip:${randomUUID()}`;
  const ip = { partition: address, windows: ipWindows(2), ban: { threshold: 2, periodMs: MINUTE_MS, durationMs: MINUTE_MS }, cost: 1 as const };
  const own = key(`key:${randomUUID()}`, 100);
  const results = await Promise.all([
    instances[0]!.consumeAll([ip]),
    instances[0]!.consumeAll([ip]),
    instances[0]!.consumeAll([{ ...ip, cost: 0 }, own]),
    instances[0]!.consumeAll([ip]),
    instances[0]!.consumeAll([ip]),
    instances[0]!.consumeAll([own]),
  ]);
  assert.equal(
    results.map((r) => r.map((d) => d.outcome)),
    [['admitted'], ['admitted'], ['refused'], ['banned'], ['banned'], ['admitted']],
  );
});

t.run();
