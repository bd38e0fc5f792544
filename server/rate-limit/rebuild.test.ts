// After an outage the shared counts are rebuilt, not restarted: what each instance admitted alone is
// added to the real Redis (127.0.0.1:6379, a prefix of this file's own, dropped at the end), whether
// Redis kept its data or came back empty. The outage is simulated in front of the real counters, so
// no other user of that Redis is disturbed; a Redis really killed and restarted empty under load is
// the chaos scenario (testing/chaos/redis.test.ts).
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { ManualClock } from '../clock.ts';
import { REDIS_URL, redisForTests } from '../testing/services.ts';
import type { ConsumeRequest, ConsumeResult } from './counters.ts';
import { CountersUnavailableError } from './counters.ts';
import { FailoverCounters, type SharedCounters } from './failover-counters.ts';
import { MemoryCounters, type LocalBan, type LocalCount } from './memory-counters.ts';
import { keyWindows } from './policy.ts';
import { RedisCounters, type RedisStatus } from './redis-counters.ts';

const PREFIX = `adoption-test:rebuild:${randomUUID()}:`;
const LIMIT = 10;
const request = (partition: string): ConsumeRequest => ({ partition, windows: keyWindows({ perMinute: LIMIT, perDay: 1_000 }), ban: null, cost: 1 });

/** The real Redis counters, behind a switch that makes them unreachable for this instance only. */
class Outage implements SharedCounters {
  down = false;
  readonly #redis: RedisCounters;
  #listener: (status: RedisStatus, error?: Error) => void = () => {};
  constructor(redis: RedisCounters) {
    this.#redis = redis;
  }
  get ready() {
    return !this.down && this.#redis.ready;
  }
  onStatus(listener: (status: RedisStatus, error?: Error) => void) {
    this.#listener = listener;
  }
  set(down: boolean) {
    this.down = down;
    this.announce(down ? 'unavailable' : 'ready');
  }
  /** What the connection reports, whether or not commands then work. */
  announce(status: RedisStatus) {
    this.#listener(status, status === 'ready' ? undefined : new Error('connection closed'));
  }
  consume = async (r: ConsumeRequest) => (await this.consumeAll([r]))[0]!;
  async consumeAll(requests: readonly ConsumeRequest[]): Promise<ConsumeResult[]> {
    if (this.down) throw new CountersUnavailableError('down');
    return this.#redis.consumeAll(requests);
  }
  async addLocalCounts(counts: readonly LocalCount[], bans: readonly LocalBan[] = []): Promise<void> {
    if (this.down) throw new CountersUnavailableError('down');
    await this.#redis.addLocalCounts(counts, bans);
  }
  connect = () => this.#redis.connect();
  sharedRedis = () => this.#redis.sharedRedis();
  reset = () => this.#redis.reset();
  advance = (ms: number) => this.#redis.advance(ms);
  close = () => this.#redis.close();
}

const redisService = await redisForTests('rate-limit/rebuild.test.ts');
const t = suite('counts kept alone during an outage are added to the shared counters');
const test = redisService.register(t);
const opened: Array<{ close(): Promise<void> }> = [];
let raw: Redis | undefined;

async function instance(prefix: string, clock: ManualClock) {
  const redis = new RedisCounters({ url: REDIS_URL, prefix });
  const shared = new Outage(redis);
  const counters = new FailoverCounters(shared, new MemoryCounters(clock));
  opened.push(counters);
  assert.ok(await counters.connect());
  return { shared, counters, redis };
}

/** Sends requests until `count` or the first refusal; returns how many were admitted. */
async function admit(counters: FailoverCounters, partition: string, count: number): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < count; i++) {
    if ((await counters.consume(request(partition))).outcome !== 'admitted') break;
    admitted++;
  }
  return admitted;
}

t.before(() => {
  if (redisService.missing) return;
  raw = new Redis(REDIS_URL);
});

t.after(async () => {
  for (const counters of opened) await counters.close();
  if (!raw) return;
  const keys = await raw.keys(`${PREFIX.replace(/[*?[\]\\]/g, '\\$&')}*`);
  if (keys.length > 0) await raw.unlink(...keys);
  raw.disconnect();
});

const minuteKey = (prefix: string, partition: string) => `${prefix}{${partition}}:w:minute`;

// Two instances A and B with the key's limit L = 10: a bound of 2L = 20 admitted in one window.
const cases: Array<{
  name: string;
  /** Admitted through Redis by A, then by B, before the outage. */
  before: [number, number];
  /** Redis restarted empty (its keys dropped) before it answers again. */
  lost: boolean;
  /** Admitted by A, by B alone during the outage (each until refused: its fallback starts from what it last read). */
  alone: [number, number];
  /** The minute counter in Redis once both are back. */
  rebuilt: number;
  /** Its expiry, at most: the longest window of those carried back (B's own starts in the outage, 20 s later). */
  ttlAtMost: number;
}> = [
  { name: 'Redis kept its data', before: [3, 2], lost: false, alone: [7, 5], rebuilt: 17, ttlAtMost: 60_000 },
  { name: 'Redis restarted empty', before: [3, 2], lost: true, alone: [7, 5], rebuilt: 15, ttlAtMost: 40_000 },
  { name: 'Redis restarted empty, a key only A had seen', before: [4, 0], lost: true, alone: [6, 10], rebuilt: 20, ttlAtMost: 60_000 },
  { name: 'Redis restarted empty, no traffic during the outage', before: [6, 0], lost: true, alone: [0, 0], rebuilt: 6, ttlAtMost: 40_000 },
];

for (const c of cases) {
  test(`${c.name}: the counter is rebuilt, and no more than 2L pass in the window`, async () => {
    const prefix = `${PREFIX}${randomUUID()}:`;
    const clock = new ManualClock();
    const a = await instance(prefix, clock);
    const b = await instance(prefix, clock);
    const partition = 'key:rebuild';
    assert.is(await admit(a.counters, partition, c.before[0]), c.before[0]);
    assert.is(await admit(b.counters, partition, c.before[1]), c.before[1]);

    a.shared.set(true);
    b.shared.set(true);
    clock.advance(20_000);
    const aloneA = c.alone[0] === 0 ? 0 : await admit(a.counters, partition, 2 * LIMIT);
    const aloneB = c.alone[1] === 0 ? 0 : await admit(b.counters, partition, 2 * LIMIT);
    assert.equal([aloneA, aloneB], c.alone, 'each fallback starts from the counts it last read');
    if (c.lost) await raw!.unlink(...(await raw!.keys(`${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`)));

    a.shared.set(false);
    b.shared.set(false);
    const after = await admit(a.counters, partition, 2 * LIMIT);
    const afterB = await admit(b.counters, partition, 2 * LIMIT);
    assert.is(Number(await raw!.get(minuteKey(prefix, partition))), Math.max(c.rebuilt, Math.min(LIMIT, c.rebuilt + after + afterB)));
    const total = c.before[0] + c.before[1] + aloneA + aloneB + after + afterB;
    assert.ok(total <= 2 * LIMIT, `${total} admitted in one window, above the bound of ${2 * LIMIT}`);
    // A lost counter ends when the window the instances counted in ends (20 s of it gone), not a new minute later.
    const ttl = await raw!.pttl(minuteKey(prefix, partition));
    assert.ok(ttl > 35_000 && ttl <= c.ttlAtMost, `expiry ${ttl} ms, expected at most ${c.ttlAtMost}`);
    assert.not.ok(a.counters.degraded);
    assert.not.ok(b.counters.degraded);
  });
}

test('a window that ended during the outage: only the new window is carried, with its own expiry', async () => {
  const prefix = `${PREFIX}${randomUUID()}:`;
  const clock = new ManualClock();
  const a = await instance(prefix, clock);
  const partition = 'key:ended';
  assert.is(await admit(a.counters, partition, LIMIT), LIMIT);
  a.shared.set(true);
  clock.advance(61_000);
  assert.is(await admit(a.counters, partition, 4), 4);
  clock.advance(10_000);
  await raw!.unlink(...(await raw!.keys(`${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`)));
  a.shared.set(false);
  await a.counters.consume({ ...request('key:other'), cost: 0 });
  assert.is(await raw!.get(minuteKey(prefix, partition)), '4');
  const ttl = await raw!.pttl(minuteKey(prefix, partition));
  assert.ok(ttl > 48_000 && ttl <= 50_000, `the local window had 50 s left: ${ttl} ms`);
});

test('carrying back fails while Redis is still away: the counts are kept for the next attempt', async () => {
  const prefix = `${PREFIX}${randomUUID()}:`;
  const clock = new ManualClock();
  const a = await instance(prefix, clock);
  const partition = 'key:again';
  a.shared.set(true);
  assert.is(await admit(a.counters, partition, 3), 3);
  // 'ready' heard, but the next command fails: the counts stay owed.
  a.shared.announce('ready');
  await new Promise((resolve) => setImmediate(resolve));
  assert.is((await a.counters.consume(request(partition))).outcome, 'admitted');
  assert.ok(a.counters.degraded);
  a.shared.set(false);
  assert.is((await a.counters.consume(request(partition))).outcome, 'admitted');
  assert.is(await raw!.get(minuteKey(prefix, partition)), '5', '4 admitted alone, carried once, then 1 through Redis');
});

const banned = (partition: string): ConsumeRequest => ({ ...request(partition), ban: { threshold: 2, periodMs: 60_000, durationMs: 600_000 } });

test('a ban Redis lost is set again, with what is left of it; one begun alone during the outage is shared', async () => {
  const prefix = `${PREFIX}${randomUUID()}:`;
  const clock = new ManualClock();
  const a = await instance(prefix, clock);
  for (let i = 0; i < LIMIT; i++) await a.counters.consume(banned('key:banned'));
  assert.is((await a.counters.consume(banned('key:banned'))).outcome, 'refused');
  assert.is((await a.counters.consume(banned('key:banned'))).outcome, 'banned');
  a.shared.set(true);
  clock.advance(100_000);
  assert.is((await a.counters.consume(banned('key:banned'))).outcome, 'banned', 'the fallback knows the shared ban');
  // Alone: another key is refused twice and banned here only.
  for (let i = 0; i < LIMIT; i++) await a.counters.consume(banned('key:alone'));
  await a.counters.consume(banned('key:alone'));
  assert.is((await a.counters.consume(banned('key:alone'))).outcome, 'banned');
  await raw!.unlink(...(await raw!.keys(`${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`)));
  a.shared.set(false);
  const again = await a.counters.consume(banned('key:banned'));
  assert.is(again.outcome, 'banned', 'still banned once Redis is back empty');
  const left = await raw!.pttl(`${prefix}{key:banned}:ban`);
  assert.ok(left > 495_000 && left <= 500_000, `the ban had 500 s left: ${left} ms`);
  const alone = await raw!.pttl(`${prefix}{key:alone}:ban`);
  assert.ok(alone > 595_000 && alone <= 600_000, `the ban begun alone is shared with its 600 s: ${alone} ms`);
});

t.run();
