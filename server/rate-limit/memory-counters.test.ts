import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import { MemoryCounters } from './memory-counters.ts';
import { DAY_MS, MINUTE_MS, ipWindows, keyWindows } from './policy.ts';

const BAN = { threshold: 3, periodMs: MINUTE_MS, durationMs: 10 * MINUTE_MS };

test('idle partitions expire: memory stays bounded by the partitions active within a day', async () => {
  const clock = new ManualClock();
  const counters = new MemoryCounters(clock, { sweepIntervalMs: MINUTE_MS });
  for (let i = 0; i < 1_000; i++) await counters.consume({ partition: `ip:10.0.${i >> 8}.${i & 255}`, windows: ipWindows(30), ban: BAN, cost: 1 });
  await counters.consume({ partition: 'key:k', windows: keyWindows({ perMinute: 60, perDay: 1_000 }), ban: BAN, cost: 1 });
  assert.is(counters.size, 1_001);
  clock.advance(MINUTE_MS);
  await counters.consume({ partition: 'key:k', windows: keyWindows({ perMinute: 60, perDay: 1_000 }), ban: BAN, cost: 1 });
  assert.is(counters.size, 1, 'the IP partitions (one-minute windows) are gone; the key keeps its day window');
  clock.advance(DAY_MS);
  counters.sweep();
  assert.is(counters.size, 0);
});

test('a ban keeps its partition alive until it ends', async () => {
  const clock = new ManualClock();
  const counters = new MemoryCounters(clock);
  const request = { partition: 'ip:192.0.2.1', windows: ipWindows(1), ban: BAN, cost: 1 } as const;
  for (let i = 0; i < 1 + BAN.threshold; i++) await counters.consume(request);
  clock.advance(BAN.durationMs - 1);
  counters.sweep();
  assert.is(counters.size, 1);
  clock.advance(1);
  counters.sweep();
  assert.is(counters.size, 0);
});

test('an admitted probe (cost 0) leaves nothing behind', async () => {
  const counters = new MemoryCounters(new ManualClock());
  await counters.consume({ partition: 'ip:192.0.2.9', windows: ipWindows(30), ban: BAN, cost: 0 });
  assert.is(counters.size, 0);
});

test('past the partition ceiling the oldest partition makes room', async () => {
  const counters = new MemoryCounters(new ManualClock(), { maxPartitions: 3 });
  for (const id of ['a', 'b', 'c', 'd']) await counters.consume({ partition: id, windows: ipWindows(1), ban: null, cost: 1 });
  assert.is(counters.size, 3);
  assert.is((await counters.consume({ partition: 'a', windows: ipWindows(1), ban: null, cost: 1 })).outcome, 'admitted', 'a was evicted');
  assert.is((await counters.consume({ partition: 'd', windows: ipWindows(1), ban: null, cost: 1 })).outcome, 'refused');
});

// A flood: one request each from many distinct addresses without a key, as the attack run sent.
const IP_BAN = { threshold: 3, periodMs: MINUTE_MS, durationMs: 10 * MINUTE_MS };
const addressKinds: Array<[string, (i: number) => string]> = [
  ['IPv4', (i) => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`],
  ['IPv6 /64', (i) => `ip:2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::/64`],
];
const flood = (counters: MemoryCounters, count: number, address: (i: number) => string, from = 0) => {
  for (let i = from; i < from + count; i++) counters.consumeNow({ partition: address(i), windows: ipWindows(30), ban: IP_BAN, cost: 1 });
};
const keyRequest = (partition: string, perMinute: number) => ({ partition, windows: keyWindows({ perMinute, perDay: 100_000 }), ban: BAN, cost: 1 }) as const;
const banAddress = (counters: MemoryCounters, partition: string) => {
  const request = { partition, windows: ipWindows(1), ban: IP_BAN, cost: 1 } as const;
  for (let i = 0; i < 1 + IP_BAN.threshold; i++) counters.consumeNow(request);
  assert.is(counters.consumeNow(request).outcome, 'banned');
};

for (const [kind, address] of addressKinds) {
  test(`a flood of ${kind} addresses, 20 times the cap, lifts no key ban, no address block and no key count`, () => {
    const clock = new ManualClock();
    const counters = new MemoryCounters(clock, { maxPartitions: 1_000 });
    const banned = keyRequest('key:banned', 1);
    for (let i = 0; i < 1 + BAN.threshold; i++) counters.consumeNow(banned);
    assert.is(counters.consumeNow(banned).outcome, 'banned');
    banAddress(counters, 'ip:198.51.100.7');
    const counted = keyRequest('key:counted', 1_000);
    for (let i = 0; i < 5; i++) counters.consumeNow(counted);

    flood(counters, 20_000, address);
    clock.advance(MINUTE_MS / 2);
    flood(counters, 20_000, address, 20_000);

    assert.is(counters.consumeNow(banned).outcome, 'banned', 'the key ban holds');
    const block = counters.consumeNow({ partition: 'ip:198.51.100.7', windows: ipWindows(1), ban: IP_BAN, cost: 1 });
    assert.is(block.outcome, 'banned', 'the address block holds');
    assert.is(block.banMs, IP_BAN.durationMs - MINUTE_MS / 2);
    const next = counters.consumeNow(counted);
    assert.is(next.windows.find((w) => w.spec.name === 'minute')!.used, 6, 'the key counted exactly');
    assert.ok(counters.size <= 1_000 + 3, `${counters.size} partitions`);
  });
}

test('eviction costs the same at any cap: one eviction and no entry examined per new address', () => {
  for (const cap of [1_000, 10_000, 50_000]) {
    const counters = new MemoryCounters(new ManualClock(), { maxPartitions: cap });
    flood(counters, cap, addressKinds[0]![1]);
    const before = counters.stats;
    flood(counters, cap, addressKinds[0]![1], cap);
    const after = counters.stats;
    assert.is(after.evicted - before.evicted, cap, `cap ${cap}: one eviction per new address`);
    assert.is(after.examined - before.examined, 0, `cap ${cap}: no sweep on the request path`);
    assert.is(counters.size, cap);
  }
});

test('a due sweep examines at most its budget per decision, and a pass still reclaims every idle partition', () => {
  const clock = new ManualClock();
  const counters = new MemoryCounters(clock, { maxPartitions: 10_000, sweepBudget: 100, sweepIntervalMs: MINUTE_MS });
  flood(counters, 5_000, addressKinds[0]![1]);
  clock.advance(MINUTE_MS); // every window above has ended: the next pass may drop them all
  const steps: number[] = [];
  for (let i = 0; i < 60; i++) {
    const before = counters.stats.examined;
    counters.consumeNow(keyRequest('key:k', 1_000));
    steps.push(counters.stats.examined - before);
  }
  assert.ok(Math.max(...steps) <= 100, `at most the budget per decision: ${Math.max(...steps)}`);
  assert.is(counters.size, 1, 'only the key is left');
  assert.is(counters.stats.reclaimed, 5_000);
});

test('the caps hold: addresses, blocks and keys each stay under their own ceiling', () => {
  const clock = new ManualClock();
  const counters = new MemoryCounters(clock, { maxPartitions: 500, maxBlocks: 100, maxKeyPartitions: 50 });
  banAddress(counters, 'ip:198.51.100.1');
  // More blocks than the block map holds: the first block stays, the overflow stays among the addresses.
  for (let i = 0; i < 300; i++) banAddress(counters, `ip:203.0.113.${i}/flood`);
  flood(counters, 10_000, addressKinds[1]![1]);
  for (let i = 0; i < 200; i++) counters.consumeNow(keyRequest(`key:${i}`, 10));
  assert.is(counters.blocks, 100);
  assert.ok(counters.size <= 500 + 100 + 50, `${counters.size} partitions`);
  assert.is(counters.consumeNow({ partition: 'ip:198.51.100.1', windows: ipWindows(1), ban: IP_BAN, cost: 1 }).outcome, 'banned');
});

test('a block that ends leaves the block map and the address counts again from its window', () => {
  const clock = new ManualClock();
  const counters = new MemoryCounters(clock);
  banAddress(counters, 'ip:192.0.2.50');
  assert.is(counters.blocks, 1);
  clock.advance(IP_BAN.durationMs);
  const request = { partition: 'ip:192.0.2.50', windows: ipWindows(2), ban: IP_BAN, cost: 1 } as const;
  assert.equal(
    [counters.consumeNow(request), counters.consumeNow(request), counters.consumeNow(request)].map((r) => r.outcome),
    ['admitted', 'admitted', 'refused'],
  );
  assert.is(counters.blocks, 0);
});

test.run();
