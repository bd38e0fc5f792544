// The failover logic with fake shared counters and fake time: which counters decide, when the shared
// ones are tried again, and what is reported. (Real Redis going away and back: redis-failover.test.ts.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import { FailoverCounters, type FailoverEvent, type SharedCounters } from './failover-counters.ts';
import { MemoryCounters, type LocalBan, type LocalCount } from './memory-counters.ts';
import { keyWindows } from './policy.ts';
import type { RedisStatus } from './redis-counters.ts';
import type { ConsumeRequest, ConsumeResult } from './counters.ts';
import type { SharedRedis } from './passenger.ts';

class FakeShared implements SharedCounters {
  ready = true;
  failing = false;
  calls = 0;
  readonly #inner = new MemoryCounters(new ManualClock());
  #listener: (status: RedisStatus, error?: Error) => void = () => {};
  onStatus(listener: (status: RedisStatus, error?: Error) => void) {
    this.#listener = listener;
  }
  emit(status: RedisStatus) {
    this.ready = status === 'ready';
    this.#listener(status, status === 'ready' ? undefined : new Error('connection closed'));
  }
  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    return (await this.consumeAll([request]))[0]!;
  }
  async consumeAll(requests: readonly ConsumeRequest[]): Promise<ConsumeResult[]> {
    this.calls++;
    if (this.failing) throw new Error('Command timed out');
    return this.#inner.consumeAll(requests);
  }
  rebuilt: LocalCount[] = [];
  rebuilds = 0;
  async addLocalCounts(counts: readonly LocalCount[], _bans: readonly LocalBan[]): Promise<void> {
    this.rebuilds++;
    if (this.failing) throw new Error('Command timed out');
    this.rebuilt.push(...counts);
  }
  connect = async () => this.ready;
  readonly redis: SharedRedis = { prefix: 'fake:', carry: () => {}, script: () => async () => [] };
  asked = 0;
  sharedRedis = () => {
    this.asked++;
    return this.redis;
  };
  reset = () => this.#inner.reset();
  advance = (ms: number) => this.#inner.advance(ms);
  close = () => this.#inner.close();
}

function setup() {
  const shared = new FakeShared();
  const fallback = new MemoryCounters(new ManualClock());
  const events: FailoverEvent['type'][] = [];
  let now = 0;
  const counters = new FailoverCounters(shared, fallback, {
    retryAfterFailureMs: 1_000,
    monotonicNow: () => now,
    onEvent: (e) => events.push(e.type),
  });
  return { shared, fallback, counters, events, tick: (ms: number) => (now += ms) };
}
const req: ConsumeRequest = { partition: 'key:k', windows: keyWindows({ perMinute: 5, perDay: 100 }), ban: null, cost: 1 };

test('while the shared counters answer, they decide and the fallback holds only what they said', async () => {
  const { shared, fallback, counters, events } = setup();
  for (let i = 0; i < 6; i++) await counters.consume(req);
  assert.is(shared.calls, 6);
  assert.equal(
    fallback.takeLocalCounts().map(({ window, seen, local }) => ({ window, seen, local })),
    [
      { window: 'minute', seen: 5, local: 0 },
      { window: 'day', seen: 5, local: 0 },
    ],
  );
  assert.is((await counters.consume(req)).outcome, 'refused');
  assert.equal(events, []);
  assert.not.ok(counters.degraded);
});

test('failing (hung) shared counters: the fallback decides, and the shared counters rest for 1 s', async () => {
  const { shared, fallback, counters, events, tick } = setup();
  shared.failing = true;
  assert.is((await counters.consume(req)).outcome, 'admitted');
  assert.is(shared.calls, 1);
  for (let i = 0; i < 10; i++) await counters.consume(req);
  assert.is(shared.calls, 1, 'not asked again within the pause: no request waits for the timeout');
  assert.is(fallback.size, 1);
  assert.ok(counters.degraded);
  tick(1_000);
  await counters.consume(req);
  assert.is(shared.rebuilds, 1, 'tried again after the pause, first with the counts kept alone');
  assert.is(shared.calls, 1);
  shared.failing = false;
  tick(1_000);
  await counters.consume(req);
  assert.equal(
    shared.rebuilt.map(({ window, seen, local }) => ({ window, seen, local })),
    [
      { window: 'minute', seen: 0, local: 5 },
      { window: 'day', seen: 0, local: 5 },
    ],
    'the 5 admitted alone went to the shared counters before they decided again',
  );
  assert.is(shared.calls, 2);
  assert.equal(events, ['fallback', 'recovered']);
  assert.not.ok(counters.degraded);
});

test('the fallback still enforces the limit on its own', async () => {
  const { shared, counters } = setup();
  shared.failing = true;
  const outcomes = [];
  for (let i = 0; i < 7; i++) outcomes.push((await counters.consume(req)).outcome);
  assert.equal(outcomes, ['admitted', 'admitted', 'admitted', 'admitted', 'admitted', 'refused', 'refused']);
});

test('a closed connection switches at once; ready switches back without waiting for the pause', async () => {
  const { shared, counters, events } = setup();
  shared.emit('unavailable');
  assert.ok(counters.degraded);
  await counters.consume(req);
  assert.is(shared.calls, 0);
  shared.emit('ready');
  await counters.consume(req);
  assert.is(shared.calls, 1);
  assert.equal(events, ['fallback', 'recovered']);
});

test('reset and advance reach both counters', async () => {
  const { shared, fallback, counters } = setup();
  shared.failing = true;
  await counters.consume(req);
  assert.is(fallback.size, 1);
  shared.failing = false;
  await counters.reset();
  assert.is(fallback.size, 0);
});

test("connecting and the Redis a passenger rides on are the shared counters': the fallback has neither", async () => {
  const { shared, counters } = setup();
  assert.ok(await counters.connect());
  shared.emit('unavailable');
  assert.not.ok(await counters.connect(), 'not there: false, and decisions fall back');
  assert.is(counters.sharedRedis(), shared.redis);
  assert.is(shared.asked, 1);
});

test('memory counters answer at once (no promise), are ready at once and share no Redis', async () => {
  const memory = new MemoryCounters(new ManualClock());
  assert.not.instance(memory.consumeAll([req]), Promise);
  assert.ok(await memory.connect());
  assert.is(memory.sharedRedis(), undefined);
});

test.run();
