// The failover logic with a fake shared store and fake time: which store decides, when it is
// tried again, and what is reported. (Real Redis going away and back: redis-failover.test.ts.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import { FailoverStore, type FailoverEvent, type SharedStore } from './failover-store.ts';
import { MemoryStore } from './memory-store.ts';
import { keyWindows } from './policy.ts';
import type { RedisStatus } from './redis-store.ts';
import type { ConsumeRequest, ConsumeResult } from './store.ts';

class FakeShared implements SharedStore {
  ready = true;
  failing = false;
  calls = 0;
  readonly #inner = new MemoryStore(new ManualClock());
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
  connect = async () => this.ready;
  readonly versions = { bump: async () => ({ version: 1, epoch: 1 }) };
  sharedAs: string | undefined;
  sharePetsVersion = (name: string) => {
    this.sharedAs = name;
    return this.versions;
  };
  reset = () => this.#inner.reset();
  advance = (ms: number) => this.#inner.advance(ms);
  close = () => this.#inner.close();
}

function setup() {
  const shared = new FakeShared();
  const fallback = new MemoryStore(new ManualClock());
  const events: FailoverEvent['type'][] = [];
  let now = 0;
  const store = new FailoverStore(shared, fallback, {
    retryAfterFailureMs: 1_000,
    monotonicNow: () => now,
    onEvent: (e) => events.push(e.type),
  });
  return { shared, fallback, store, events, tick: (ms: number) => (now += ms) };
}
const req: ConsumeRequest = { partition: 'key:k', windows: keyWindows({ perMinute: 5, perDay: 100 }), ban: null, cost: 1 };

test('while the shared store answers, it decides and the fallback holds nothing', async () => {
  const { shared, fallback, store, events } = setup();
  for (let i = 0; i < 6; i++) await store.consume(req);
  assert.is(shared.calls, 6);
  assert.is(fallback.size, 0);
  assert.is((await store.consume(req)).outcome, 'refused');
  assert.equal(events, []);
  assert.not.ok(store.degraded);
});

test('a failing (hung) shared store: the fallback decides, and the shared store rests for 1 s', async () => {
  const { shared, fallback, store, events, tick } = setup();
  shared.failing = true;
  assert.is((await store.consume(req)).outcome, 'admitted');
  assert.is(shared.calls, 1);
  for (let i = 0; i < 10; i++) await store.consume(req);
  assert.is(shared.calls, 1, 'not asked again within the pause: no request waits for the timeout');
  assert.is(fallback.size, 1);
  assert.ok(store.degraded);
  tick(1_000);
  await store.consume(req);
  assert.is(shared.calls, 2, 'tried again after the pause');
  shared.failing = false;
  tick(1_000);
  assert.is((await store.consume(req)).outcome, 'admitted');
  assert.equal(events, ['fallback', 'recovered']);
  assert.not.ok(store.degraded);
});

test('the fallback still enforces the limit on its own', async () => {
  const { shared, store } = setup();
  shared.failing = true;
  const outcomes = [];
  for (let i = 0; i < 7; i++) outcomes.push((await store.consume(req)).outcome);
  assert.equal(outcomes, ['admitted', 'admitted', 'admitted', 'admitted', 'admitted', 'refused', 'refused']);
});

test('a closed connection switches at once; ready switches back without waiting for the pause', async () => {
  const { shared, store, events } = setup();
  shared.emit('unavailable');
  assert.ok(store.degraded);
  await store.consume(req);
  assert.is(shared.calls, 0);
  shared.emit('ready');
  await store.consume(req);
  assert.is(shared.calls, 1);
  assert.equal(events, ['fallback', 'recovered']);
});

test('reset and advance reach both stores', async () => {
  const { shared, fallback, store } = setup();
  shared.failing = true;
  await store.consume(req);
  assert.is(fallback.size, 1);
  shared.failing = false;
  await store.reset();
  assert.is(fallback.size, 0);
});

test("connecting and the pets' version are the shared store's: the fallback has neither", async () => {
  const { shared, store } = setup();
  assert.ok(await store.connect());
  shared.emit('unavailable');
  assert.not.ok(await store.connect(), 'not there: false, and decisions fall back');
  assert.is(store.sharePetsVersion('public'), shared.versions);
  assert.is(shared.sharedAs, 'public');
});

test('the memory store answers at once (no promise), is ready at once and shares no version', async () => {
  const memory = new MemoryStore(new ManualClock());
  assert.not.instance(memory.consumeAll([req]), Promise);
  assert.ok(await memory.connect());
  assert.is(memory.sharePetsVersion('public'), undefined);
});

test.run();
