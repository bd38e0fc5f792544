// The flood through a whole server in-process: server.inject sets remoteAddress, so each request
// without a key counts in its own address's partition (IPv6 per /64) with no socket per address. Its
// memory figures are hapi inject's (about 8 KB per request, measured on a bare hapi server: linear
// over 10,000 and 40,000 requests; bench/flood/README.md), not the limiter's.
import { createServer } from '../../server/server.ts';
import { loadContract } from '../../server/contract.ts';
import { floodLoop, measured, type FloodFigures } from './figures.ts';

const PETS = `${(await loadContract()).basePath}/pets?limit=1`;

export async function floodServer(planned: number, sampleEvery: number, maxSeconds = Infinity): Promise<FloodFigures> {
  const server = await createServer({ port: 0, logger: false });
  await server.initialize();
  const counters = server.plugins['rate-limit']?.counters;
  const size = () => (counters && 'size' in counters ? (counters.size as number) : 0);
  const get = (remoteAddress: string, authorization?: string) =>
    server.inject({ method: 'GET', url: PETS, remoteAddress, headers: authorization ? { authorization } : {} });

  // Before the flood: the free key banned for going over its limit, an address blocked for guessing.
  let keyBanned = false;
  for (let i = 0; i < 200 && !keyBanned; i++) keyBanned = (await get('192.0.2.20', 'Bearer test-free-key')).payload.includes('key_banned');
  let blocked = false;
  for (let i = 0; i < 200 && !blocked; i++) blocked = (await get('198.51.100.7')).payload.includes('ip_blocked');
  if (!keyBanned || !blocked) throw new Error('could not set up the key ban and the address block before the flood');

  const run = await floodLoop(
    { flood: async (address) => void (await get(address)), normal: async () => void (await get('192.0.2.10', 'Bearer test-enterprise-key')), size },
    planned,
    maxSeconds,
    sampleEvery,
  );
  const figures = measured(run, {
    partitionsAfter: size(),
    keyBanSurvived: (await get('192.0.2.20', 'Bearer test-free-key')).payload.includes('key_banned'),
    addressBlockSurvived: (await get('198.51.100.7')).payload.includes('ip_blocked'),
  });
  await server.stop();
  return figures;
}
