// The store's history through the proxy: sixteen clients creating, getting and walking the list at
// once through it find nothing wrong with the reference server; the same traffic to a store that
// loses a pet on each page fetched by its next link is reported under history.linearizable.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_SPEC_PATH, HISTORY_CHECK_ID, judgeStoreHistory, loadContract, type Exchange } from '../judge/index.ts';
import { storeTraffic } from '../judge/history/testing/traffic.ts';
import { createServer } from '../server/server.ts';
import { createTrafficProxy } from './server.ts';
import { startLosingStore } from './testing/losing-store.ts';

const contract = await loadContract(DEFAULT_SPEC_PATH);
const t = suite('proxy: the store history of concurrent clients');

async function through(origin: string, seed: number) {
  const proxy = createTrafficProxy({ target: origin, host: '127.0.0.1', port: 0, contract, timeoutMs: 10_000, dateHeader: false });
  let exchanges: Exchange[] = [];
  try {
    const url = await proxy.start();
    ({ exchanges } = await storeTraffic({
      base: `${url}/v1`,
      authorization: 'Bearer test-pro-key',
      clients: 16,
      opsPerClient: 7,
      token: 'proxy-history',
      seed,
    }));
  } finally {
    await proxy.stop();
  }
  return { judge: proxy.judge, exchanges };
}

async function reference() {
  const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, rateLimit: { enabled: false } });
  await server.start();
  return server;
}

t('the reference server behind the proxy: no history finding, and the history was judged', async () => {
  const server = await reference();
  try {
    for (const seed of [1, 2]) {
      const { judge } = await through(server.info.uri, seed);
      const history = judge.findings.filter((f) => f.id === HISTORY_CHECK_ID);
      assert.equal(
        history.map((f) => f.message),
        [],
      );
      const [key] = judge.report();
      const result = key?.server.find((r) => r.id === HISTORY_CHECK_ID);
      assert.equal(result?.outcome, 'passed');
      assert.ok(result!.judged > 50, `${result!.judged} exchanges judged`);
    }
  } finally {
    await server.stop();
  }
});

t('a store that loses the first pet of each next page: reported under history.linearizable', async () => {
  const server = await reference();
  const losing = await startLosingStore(server.info.uri);
  try {
    const { judge, exchanges } = await through(losing.origin, 1);
    assert.ok(losing.lost > 0);
    const history = judge.findings.filter((f) => f.id === HISTORY_CHECK_ID);
    assert.ok(history.length > 0, 'found');
    assert.ok(history.every((f) => f.level === 'must' && f.side === 'server'));
    assert.ok(
      history.some((f) => f.rule === 'acknowledged-listed'),
      history.map((f) => `${f.rule}: ${f.message}`).join('\n'),
    );
    const [key] = judge.report();
    const result = key?.server.find((r) => r.id === HISTORY_CHECK_ID);
    assert.equal(result?.outcome, 'failed');
    // Each pet lost from a quiet walk, as the clients' own record of the traffic shows it: the console
    // tells the first causes, the report counts them all.
    const lostFromQuietWalks = judgeStoreHistory(exchanges).length;
    assert.ok(lostFromQuietWalks > 0);
    assert.ok(result!.failed >= lostFromQuietWalks, `${result!.failed} failures, ${lostFromQuietWalks} in the clients' record`);
    assert.match(result!.failures[0]!.message, /missing from the complete list walk|no order of the operations/);
  } finally {
    await losing.close();
    await server.stop();
  }
});

t.run();
