import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import { MemoryStore } from './memory-store.ts';
import { DAY_MS, MINUTE_MS, ipWindows, keyWindows } from './policy.ts';

const BAN = { threshold: 3, periodMs: MINUTE_MS, durationMs: 10 * MINUTE_MS };

test('idle partitions expire: memory stays bounded by the partitions active within a day', async () => {
  const clock = new ManualClock();
  const store = new MemoryStore(clock, { sweepIntervalMs: MINUTE_MS });
  for (let i = 0; i < 1_000; i++) await store.consume({ partition: `ip:10.0.${i >> 8}.${i & 255}`, windows: ipWindows(30), ban: BAN, cost: 1 });
  await store.consume({ partition: 'key:k', windows: keyWindows({ perMinute: 60, perDay: 1_000 }), ban: BAN, cost: 1 });
  assert.is(store.size, 1_001);
  clock.advance(MINUTE_MS);
  await store.consume({ partition: 'key:k', windows: keyWindows({ perMinute: 60, perDay: 1_000 }), ban: BAN, cost: 1 });
  assert.is(store.size, 1, 'the IP partitions (one-minute windows) are gone; the key keeps its day window');
  clock.advance(DAY_MS);
  store.sweep();
  assert.is(store.size, 0);
});

test('a ban keeps its partition alive until it ends', async () => {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  const request = { partition: 'ip:192.0.2.1', windows: ipWindows(1), ban: BAN, cost: 1 } as const;
  for (let i = 0; i < 1 + BAN.threshold; i++) await store.consume(request);
  clock.advance(BAN.durationMs - 1);
  store.sweep();
  assert.is(store.size, 1);
  clock.advance(1);
  store.sweep();
  assert.is(store.size, 0);
});

test('an admitted probe (cost 0) leaves nothing behind', async () => {
  const store = new MemoryStore(new ManualClock());
  await store.consume({ partition: 'ip:192.0.2.9', windows: ipWindows(30), ban: BAN, cost: 0 });
  assert.is(store.size, 0);
});

test('past the partition ceiling the oldest partition makes room', async () => {
  const store = new MemoryStore(new ManualClock(), { maxPartitions: 3 });
  for (const id of ['a', 'b', 'c', 'd']) await store.consume({ partition: id, windows: ipWindows(1), ban: null, cost: 1 });
  assert.is(store.size, 3);
  assert.is((await store.consume({ partition: 'a', windows: ipWindows(1), ban: null, cost: 1 })).outcome, 'admitted', 'a was evicted');
  assert.is((await store.consume({ partition: 'd', windows: ipWindows(1), ban: null, cost: 1 })).outcome, 'refused');
});

test.run();
