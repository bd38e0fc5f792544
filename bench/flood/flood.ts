// What a flood of distinct addresses without a key does to the rate limiter while a normal client
// keeps asking; what it prints and why: bench/flood/README.md.
//   npx tsx bench/flood/flood.ts --addresses 100000 [--server] [--max-seconds 120] [--json]
import { parseArgs } from 'node:util';
import { formatFigures } from './figures.ts';
import { floodServer } from './server-flood.ts';
import { floodCounters } from './counters-flood.ts';

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
const mode = values.server ? 'server.inject' : 'MemoryCounters';
const figures = values.server ? await floodServer(addresses, sampleEvery, maxSeconds) : await floodCounters(addresses, sampleEvery, maxSeconds);
console.log(values.json ? JSON.stringify({ mode, ...figures }) : formatFigures(mode, figures));
