// How long judgeStoreHistory takes on a real history of the reference server: 2,000 exchanges of
// concurrent creates, gets and list walks (what conform's model phase judges whole), and 200 of them
// (what a shrinker judges again and again). Measures only: run it by hand,
// `node --import tsx judge/history/testing/measure.ts`.
import { createServer } from '../../../server/index.ts';
import { judgeStoreHistory } from '../store-history.ts';
import { storeTraffic } from './traffic.ts';

const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, rateLimit: { enabled: false } });
await server.start();
const { exchanges } = await storeTraffic({
  base: `${server.info.uri}/v1`,
  authorization: 'Bearer test-pro-key',
  clients: 32,
  opsPerClient: 40,
  token: 'measure',
  seed: 3,
});
await server.stop();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
function time(history: typeof exchanges, runs: number): { ms: number; findings: number } {
  const took: number[] = [];
  let findings = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    findings = judgeStoreHistory(history).length;
    took.push(performance.now() - start);
  }
  return { ms: median(took), findings };
}

const whole = exchanges.slice(0, 2000);
const count = (test: (url: string, method: string) => boolean) => whole.filter((e) => test(e.request.url, e.request.method)).length;
console.log(
  `${whole.length} exchanges: ${count((_, m) => m === 'POST')} creates, ${count((u, m) => m === 'GET' && /\/pets\/\d+$/.test(u))} gets, ${count((u) => u.includes('?'))} list pages`,
);
time(whole, 3);
const big = time(whole, 11);
console.log(`judgeStoreHistory on ${whole.length} exchanges: median ${big.ms.toFixed(1)} ms of 11 runs, ${big.findings} findings`);
const small = time(exchanges.slice(0, 200), 101);
console.log(`judgeStoreHistory on 200 exchanges: median ${small.ms.toFixed(2)} ms of 101 runs, ${small.findings} findings`);
