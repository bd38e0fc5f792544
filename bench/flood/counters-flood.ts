// The flood against the memory counters alone, called as the server's rate-limit plugin calls them.
import { ipPartitionId } from '../../server/rate-limit/client-ip.ts';
import { MemoryCounters } from '../../server/rate-limit/memory-counters.ts';
import { MINUTE_MS, ipWindows, keyWindows } from '../../server/rate-limit/policy.ts';
import type { ConsumeRequest } from '../../server/rate-limit/counters.ts';
import { floodLoop, measured, type FloodFigures } from './figures.ts';

const BAN = { threshold: 20, periodMs: MINUTE_MS, durationMs: 10 * MINUTE_MS };

/** The counters alone, as the server's plugin calls them, on the real clock. */
export async function floodCounters(planned: number, sampleEvery: number, maxSeconds = Infinity): Promise<FloodFigures> {
  const counters = new MemoryCounters({ now: () => Date.now() });
  const ipRequest = (address: string, cost: 0 | 1): ConsumeRequest => ({ partition: `ip:${ipPartitionId(address)}`, windows: ipWindows(30), ban: BAN, cost });
  const keyRequest = (partition: string, perMinute: number): ConsumeRequest => ({
    partition,
    windows: keyWindows({ perMinute, perDay: 10_000_000 }),
    ban: BAN,
    cost: 1,
  });

  // Before the flood: a key banned for going over its limit, an address blocked for the same.
  const banned = keyRequest('key:banned', 60);
  for (let i = 0; i < 60 + BAN.threshold; i++) counters.consumeNow(banned);
  for (let i = 0; i < 30 + BAN.threshold; i++) counters.consumeNow(ipRequest('198.51.100.7', 1));
  const normal = (address: string) => counters.consumeAllNow([ipRequest(address, 0), keyRequest('key:normal', 10_000_000)]);

  const run = await floodLoop(
    { flood: (address) => void counters.consumeNow(ipRequest(address, 1)), normal: () => void normal('192.0.2.10'), size: () => counters.size },
    planned,
    maxSeconds,
    sampleEvery,
  );
  return measured(run, {
    partitionsAfter: counters.size,
    keyBanSurvived: counters.consumeNow(banned).outcome === 'banned',
    addressBlockSurvived: counters.consumeNow(ipRequest('198.51.100.7', 1)).outcome === 'banned',
  });
}
