// The flood against the MemoryStore alone, called as the server's rate-limit plugin calls it.
import { ipPartitionId } from '../../server/rate-limit/client-ip.ts';
import { MemoryStore } from '../../server/rate-limit/memory-store.ts';
import { MINUTE_MS, ipWindows, keyWindows } from '../../server/rate-limit/policy.ts';
import type { ConsumeRequest } from '../../server/rate-limit/store.ts';
import { cpuMicros, heapAfterCollection, floodAddress, percentile, rssMB, type FloodFigures } from './figures.ts';

const BAN = { threshold: 20, periodMs: MINUTE_MS, durationMs: 10 * MINUTE_MS };

/** The store alone, as the server's plugin calls it, on the real clock. */
export function floodStore(planned: number, sampleEvery: number, maxSeconds = Infinity): FloodFigures {
  const store = new MemoryStore({ now: () => Date.now() });
  const ipRequest = (address: string, cost: 0 | 1): ConsumeRequest => ({ partition: `ip:${ipPartitionId(address)}`, windows: ipWindows(30), ban: BAN, cost });
  const keyRequest = (partition: string, perMinute: number): ConsumeRequest => ({
    partition,
    windows: keyWindows({ perMinute, perDay: 10_000_000 }),
    ban: BAN,
    cost: 1,
  });

  // Before the flood: a key banned for going over its limit, an address blocked for the same.
  const banned = keyRequest('key:banned', 60);
  for (let i = 0; i < 60 + BAN.threshold; i++) store.consumeNow(banned);
  for (let i = 0; i < 30 + BAN.threshold; i++) store.consumeNow(ipRequest('198.51.100.7', 1));
  const normal = (address: string) => store.consumeAllNow([ipRequest(address, 0), keyRequest('key:normal', 10_000_000)]);

  const samples: number[] = [];
  const rssBefore = rssMB();
  const started = cpuMicros();
  let fullAt: number | null = null;
  let fullCpu = 0;
  let previousSize = store.size;
  const deadline = performance.now() + maxSeconds * 1000;
  let addresses = 0;
  for (let i = 0; i < planned && performance.now() < deadline; i++) {
    addresses = i + 1;
    store.consumeNow(ipRequest(floodAddress(i, planned), 1));
    // The store is full once a new address no longer makes it grow.
    if (fullAt === null && store.size === previousSize) {
      fullAt = i;
      fullCpu = cpuMicros();
    }
    previousSize = store.size;
    if (i % sampleEvery === 0) {
      const t = process.hrtime.bigint();
      normal('192.0.2.10');
      samples.push(Number(process.hrtime.bigint() - t) / 1_000);
    }
  }
  const ended = cpuMicros();
  samples.sort((a, b) => a - b);
  const onceFull = fullAt === null ? 0 : addresses - fullAt;
  return {
    addresses,
    planned,
    addressesOnceFull: onceFull,
    cpuMicrosPerAddress: (ended - started) / addresses,
    cpuMicrosPerAddressOnceFull: onceFull > 0 ? (ended - fullCpu) / onceFull : null,
    normalP50Micros: percentile(samples, 50),
    normalP99Micros: percentile(samples, 99),
    rssBeforeMB: rssBefore,
    rssAfterMB: rssMB(),
    ...heapAfterCollection(),
    partitionsAfter: store.size,
    keyBanSurvived: store.consumeNow(banned).outcome === 'banned',
    addressBlockSurvived: store.consumeNow(ipRequest('198.51.100.7', 1)).outcome === 'banned',
  };
}
