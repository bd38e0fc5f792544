// The judging proxy in front of many concurrent clients: answers come back in another order than
// the server decided them, and the proxy must still find no fault in a correct server (the
// reference, the second implementation's fixed and sliding builds) and find the racy one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_SPEC_PATH, loadContract } from '../judge/contract.ts';
import { startSecondServer, type SecondServerOptions } from '../conformance/testing/second-server/index.ts';
import { ManualClock } from '../server/clock.ts';
import { createServer } from '../server/server.ts';
import { recordTraffic } from '../spec/rules/testing/traffic.ts';
import { createTrafficProxy } from './server.ts';

interface Started {
  origin: string;
  key: string;
  limit: number;
  close(): Promise<void>;
}

const reference =
  (key: string, limit: number) =>
  async (clock: ManualClock): Promise<Started> => {
    const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, clock });
    await server.start();
    return { origin: server.info.uri, key, limit, close: () => server.stop({ timeout: 1000 }) };
  };

const second =
  (options: SecondServerOptions) =>
  async (clock: ManualClock): Promise<Started> => {
    const server = await startSecondServer({ clock, banAfter: 5, banSeconds: 30, ...options });
    return { origin: server.origin, key: server.keys.free, limit: 60, close: () => server.close() };
  };

const BUILDS: Array<[string, (clock: ManualClock) => Promise<Started>, boolean]> = [
  ['reference server, free key', reference('test-free-key', 60), false],
  ['reference server, a key no run exhausts', reference('test-load-key', 1_000_000_000), false],
  ['second implementation, fixed windows', second({ window: 'fixed' }), false],
  ['second implementation, sliding windows', second({ window: 'sliding' }), false],
  // Flask-Limiter's readings (judge/rules/readings.js): Reset when the window is empty, Remaining as of the answer.
  ['second implementation, moving window', second({ window: 'moving', remaining: 'answer' }), false],
  ['second implementation, racy limiter', second({ race: { limiter: true } }), true],
];

const contract = await loadContract(DEFAULT_SPEC_PATH);
const t = suite('proxy: concurrent clients on one key');

for (const [name, start, racy] of BUILDS) {
  for (const clients of [1, 32, 128]) {
    const faulty = racy && clients > 1;
    t(`${name}, ${clients} concurrent client(s): ${faulty ? 'a must finding' : 'no must finding'} on the server side`, async () => {
      const clock = new ManualClock(Date.UTC(2030, 0, 1, 0, 0, 7));
      const target = await start(clock);
      const proxy = createTrafficProxy({ target: target.origin, host: '127.0.0.1', port: 0, contract, timeoutMs: 10_000, clock, dateHeader: false });
      try {
        const url = await proxy.start();
        // Enough simulated time for windows to saturate, refuse and reset, bans included.
        const limit = Math.min(target.limit, 60);
        await recordTraffic({ baseUrl: `${url}/v1`, key: target.key, clock, clients, limit, seconds: clients === 1 ? 200 : 600 });
      } finally {
        await proxy.stop();
        await target.close();
      }
      const must = proxy.judge.findings.filter((f) => f.side === 'server' && f.level === 'must');
      const [key] = proxy.judge.report();
      assert.ok(key && key.requests > 100, 'the traffic passed through the proxy');
      if (faulty) assert.ok(must.length > 0, 'the racy limiter was found');
      else
        assert.equal(
          must.map((f) => `${f.id}: ${f.message}`),
          [],
        );
      if (!faulty) assert.ok(key!.server.some((r) => r.id === 'ratelimit.remaining-decrements' && r.outcome === 'passed'));
    });
  }
}

t.run();
