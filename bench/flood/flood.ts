// Measures what a flood of distinct addresses without a key does to the rate limiter: one request
// from each of --addresses addresses (IPv4, and IPv6 /64 partitions for the second half), while a
// normal client with a key keeps asking. Prints the CPU each new address costs once the store is
// full, the normal client's decision time during the flood, the memory held, and whether a key ban
// and an address block set before the flood are still in force after it.
//
//   npx tsx bench/flood/flood.ts --addresses 100000            the MemoryStore, driven directly
//   npx tsx bench/flood/flood.ts --addresses 100000 --server   a whole server in-process (server.inject)
//   --max-seconds 120 stops a flood that would take too long (the old store's sweeps) and says so
import { parseArgs } from 'node:util';
import { formatFigures } from './figures.ts';
import { floodServer } from './server-flood.ts';
import { floodStore } from './store-flood.ts';

const { values } = parseArgs({
  options: {
    addresses: { type: 'string', default: '100000' },
    'sample-every': { type: 'string', default: '100' },
    server: { type: 'boolean', default: false },
    'max-seconds': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const addresses = Number(values.addresses);
const sampleEvery = Number(values['sample-every']);
const maxSeconds = values['max-seconds'] === undefined ? Infinity : Number(values['max-seconds']);
if (!Number.isSafeInteger(addresses) || addresses < 1 || !Number.isSafeInteger(sampleEvery) || sampleEvery < 1 || !(maxSeconds > 0)) {
  console.error('--addresses and --sample-every must be positive integers, --max-seconds a positive number');
  process.exit(2);
}
const mode = values.server ? 'server.inject' : 'MemoryStore';
const figures = values.server ? await floodServer(addresses, sampleEvery, maxSeconds) : await floodStore(addresses, sampleEvery, maxSeconds);
console.log(values.json ? JSON.stringify({ mode, ...figures }) : formatFigures(mode, figures));
