// What the judge retains does not grow with the traffic: the heap after N exchanges of one busy key,
// or of N keys with one exchange each, is the same (within a margin) for 3N. The exchanges come from
// a correct fixed-window limiter simulated on a moving clock, so every rule, sample and timeline of
// the judge is exercised as under real traffic.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../judge/exchange.ts';
import { loadContract } from '../judge/contract.ts';
import { TrafficJudge } from './judge.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const contract = await loadContract();

/** The heap in use once garbage is collected. */
function retained(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

const START_MS = Date.UTC(2026, 5, 1, 12, 0, 0);
const LIMIT = 100_000;
const BODY = JSON.stringify([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);

/** Exchange `i` of a client sending every 10 ms to a server with a fixed one-minute window of LIMIT. */
function exchange(i: number, used: { window: number; count: number }): Exchange {
  const sentAt = START_MS + i * 10;
  const window = Math.floor(sentAt / 60_000);
  if (window !== used.window) Object.assign(used, { window, count: 0 });
  used.count++;
  return {
    seq: i + 1,
    operationId: 'listPets',
    purpose: 'GET /v1/pets',
    request: { method: 'GET', url: 'http://127.0.0.1:1/v1/pets?limit=1', headers: { authorization: 'Bearer test…(13 chars)' } },
    sentAt,
    receivedAt: sentAt + 2,
    response: {
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-ratelimit-limit': String(LIMIT),
        'x-ratelimit-remaining': String(LIMIT - used.count),
        'x-ratelimit-reset': String((window + 1) * 60),
      },
      body: BODY,
    },
  };
}

function feed(judge: TrafficJudge, from: number, to: number, keyOf: (i: number) => string, used: Map<string, { window: number; count: number }>): void {
  for (let i = from; i < to; i++) {
    const key = keyOf(i);
    const ex = exchange(i, used.get(key) ?? used.set(key, { window: -1, count: 0 }).get(key)!);
    judge.arrived({ exchange: ex, key });
    judge.observe({ exchange: ex, key });
  }
}

const MARGIN = 3 * 1024 * 1024;

test('one busy key: the judge holds as much after 90,000 exchanges as after 30,000', () => {
  const judge = new TrafficJudge({ contract, dateHeader: false, limits: { keep: 20, timelinePoints: 1000 } });
  const used = new Map<string, { window: number; count: number }>();
  feed(judge, 0, 30_000, () => 'test-free-key', used);
  const after30k = retained();
  feed(judge, 30_000, 90_000, () => 'test-free-key', used);
  const after90k = retained();
  process.stdout.write(`  heap after 30,000: ${(after30k / 1e6).toFixed(1)} MB, after 90,000: ${(after90k / 1e6).toFixed(1)} MB\n`);
  assert.ok(after90k - after30k < MARGIN, `grew by ${((after90k - after30k) / 1e6).toFixed(1)} MB`);
  const [key] = judge.report();
  assert.is(key!.requests, 90_000);
  assert.is(key!.timeline.points.length, 1000);
  assert.is(key!.timelineDropped, 89_000);
  assert.is(key!.sample.exchanges.length, 20);
  assert.is(key!.sample.dropped, 89_980);
  assert.is(judge.told.must, 0, 'a correct limiter raises no must finding');
});

test('many keys, one exchange each: past --max-keys the oldest idle keys are summarised and the heap stays flat', () => {
  const judge = new TrafficJudge({ contract, dateHeader: false, limits: { maxKeys: 500 } });
  const used = new Map<string, { window: number; count: number }>();
  feed(judge, 0, 4_000, (i) => `random-key-${i}`, used);
  used.clear();
  const after4k = retained();
  feed(judge, 4_000, 12_000, (i) => `random-key-${i}`, used);
  used.clear();
  const after12k = retained();
  process.stdout.write(`  heap after 4,000 keys: ${(after4k / 1e6).toFixed(1)} MB, after 12,000: ${(after12k / 1e6).toFixed(1)} MB\n`);
  assert.ok(after12k - after4k < MARGIN, `grew by ${((after12k - after4k) / 1e6).toFixed(1)} MB`);
  assert.is(judge.report().length, 500);
  assert.is(judge.summarised()?.keys, 11_500);
  assert.is(judge.summarised()?.requests, 11_500);
});

test.run();
