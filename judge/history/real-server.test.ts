// The reference server's real concurrent history: sixteen clients creating, getting and walking at
// once is explained by one order; the same history with a fault put into its answers is not, and the
// finding names the rule the fault breaks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSecondServer } from '../../conformance/testing/second-server/index.ts';
import { createServer } from '../../server/index.ts';
import type { Exchange } from '../exchange.ts';
import { judgeStoreHistory, type HistoryRule } from './store-history.ts';
import { createStoreHistory } from './stream.ts';
import { storeTraffic } from './testing/traffic.ts';

const TOKEN = 'hist-run';

async function history(): Promise<Exchange[]> {
  const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, rateLimit: { enabled: false } });
  await server.start();
  try {
    const { exchanges } = await storeTraffic({
      base: `${server.info.uri}/v1`,
      authorization: 'Bearer test-pro-key',
      clients: 16,
      opsPerClient: 7,
      token: TOKEN,
    });
    return exchanges;
  } finally {
    await server.stop();
  }
}

const recorded = await history();
const tracked = (name: string) => name.startsWith(TOKEN);

/** A copy of the history with some answers' bodies or statuses changed. */
function withFault(change: (ex: Exchange) => Exchange['response']): Exchange[] {
  return recorded.map((ex) => {
    const response = change(ex);
    return response === ex.response ? ex : { ...ex, ...(response ? { response } : {}) };
  });
}

const rules = (findings: { rule: HistoryRule }[]) => [...new Set(findings.map((f) => f.rule))];

test('the history is real: concurrent creates, gets and multi-page walks', () => {
  const creates = recorded.filter((e) => e.request.method === 'POST' && e.response?.status === 201);
  const nextPages = recorded.filter((e) => e.request.url.includes('cursor='));
  assert.ok(creates.length >= 20, `${creates.length} creates`);
  assert.ok(nextPages.length >= 20, `${nextPages.length} next pages`);
  const overlapping = creates.filter((c) => recorded.some((o) => o !== c && o.sentAt < c.receivedAt && o.receivedAt > c.sentAt));
  assert.ok(overlapping.length >= creates.length / 2, 'most creates overlap another request');
});

test("the reference server's concurrent history is explained by one order", () => {
  const findings = judgeStoreHistory(recorded, { tracked });
  assert.equal(findings, []);
});

test('a page fetched by its next link losing its first pet is found', () => {
  const faulty = withFault((ex) => {
    if (!ex.request.url.includes('cursor=') || ex.response?.status !== 200) return ex.response;
    return { ...ex.response, body: JSON.stringify((JSON.parse(ex.response.body) as unknown[]).slice(1)) };
  });
  const found = rules(judgeStoreHistory(faulty, { tracked }));
  assert.ok(found.includes('acknowledged-listed'), found.join(', '));
});

test('the bounded form, fed as the answers came, finds what the whole history finds', () => {
  const faulty = withFault((ex) => {
    if (!ex.request.url.includes('cursor=') || ex.response?.status !== 200) return ex.response;
    return { ...ex.response, body: JSON.stringify((JSON.parse(ex.response.body) as unknown[]).slice(1)) };
  });
  const whole = judgeStoreHistory(faulty, { tracked });
  const store = createStoreHistory({ tracked });
  const streamed = [...faulty].sort((a, b) => a.receivedAt - b.receivedAt).flatMap((ex) => store.add(ex));
  const key = (f: { rule: string; exchanges: Exchange[] }) => `${f.rule} ${f.exchanges.map((e) => e.seq).join(',')}`;
  assert.ok(whole.length > 0);
  assert.equal(streamed.map(key).sort(), whole.map(key).sort());
  const clean = createStoreHistory({ tracked });
  assert.equal(
    [...recorded].sort((a, b) => a.receivedAt - b.receivedAt).flatMap((ex) => clean.add(ex)),
    [],
  );
});

test('a 404 for an acknowledged pet is found', () => {
  const lastGet = recorded.filter((e) => /\/pets\/\d+$/.test(e.request.url) && e.response?.status === 200).at(-1)!;
  const faulty = withFault((ex) =>
    ex === lastGet ? { status: 404, headers: { 'content-type': 'application/json' }, body: '{"code":"not_found","message":"no","status":404}' } : ex.response,
  );
  assert.equal(rules(judgeStoreHistory(faulty, { tracked })), ['acknowledged-readable']);
});

test('a pet listed under another status than its 201 said is found', () => {
  const faulty = withFault((ex) => {
    if (ex.request.method !== 'GET' || ex.response?.status !== 200 || !ex.request.url.includes('status=sold')) return ex.response;
    const pets = JSON.parse(ex.response.body) as Array<{ status: string }>;
    return { ...ex.response, body: JSON.stringify(pets.map((p) => ({ ...p, status: 'pending' }))) };
  });
  assert.ok(rules(judgeStoreHistory(faulty, { tracked })).includes('fields-kept'));
});

// The second implementation pages by page number, newest first: walks during creates repeat pets.
for (const [name, race, found] of [
  ['the second implementation', undefined, []],
  ['the second implementation with racy ids', { ids: true }, ['ids-unique']],
] as const) {
  test(`${name}'s concurrent history: ${found.length ? found.join(', ') : 'explained by one order'}`, async () => {
    const server = await startSecondServer(race ? { race } : {});
    try {
      const { exchanges } = await storeTraffic({
        base: `${server.origin}/v1`,
        authorization: `Bearer ${server.keys.business}`,
        clients: 16,
        opsPerClient: 7,
        token: TOKEN,
      });
      assert.ok(exchanges.filter((e) => e.response?.status === 201).length >= 20);
      assert.equal(rules(judgeStoreHistory(exchanges, { tracked })), [...found]);
    } finally {
      await server.close();
    }
  });
}

test.run();
