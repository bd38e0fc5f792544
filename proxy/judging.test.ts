// Where the judge runs changes nothing it says: the same recorded traffic (a misbehaving client on the
// reference server with creates and reads, and 32 concurrent clients on a racy limiter), handed in the
// same order to the judge in this thread and to the judge in a worker thread, gives the same findings and
// the same reports. The worker's queue is bounded, and what it could not take is counted, never passed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_SPEC_PATH, loadContract } from '../judge/contract.ts';
import { startSecondServer } from '../conformance/testing/second-server/index.ts';
import { ManualClock } from '../server/clock.ts';
import { createServer } from '../server/server.ts';
import { KnownKeys } from '../spec/rules/redact.js';
import { recordTraffic } from '../spec/rules/testing/traffic.ts';
import { TrafficJudge, type Observed } from './judge.ts';
import { inlineJudging, type JudgeResults, type Judging } from './judging.ts';
import { buildReport, formatConsole } from './report.ts';
import { proxyLiveSource } from './live.ts';
import { createTrafficProxy, type ProxyOptions, type TrafficProxy } from './server.ts';
import { listedExchange } from './testing/exchanges.ts';
import { playMisbehavingClient, START_MS } from './testing/pictures.ts';
import { workerJudging } from './worker-judging.ts';

const contract = await loadContract(DEFAULT_SPEC_PATH);
const t = suite('proxy: the judge in a worker thread and in the proxy thread');

type Op =
  ['arrived', Pick<Observed, 'exchange' | 'key'>] | ['observe', Observed] | ['abandoned', Pick<Observed, 'exchange' | 'key'> & { reachedTarget: boolean }];

/** Every call the proxy made of its judge, each as it was at the time of the call. */
function recordCalls(proxy: TrafficProxy): Op[] {
  const ops: Op[] = [];
  const judge = proxy.judge;
  const arrived = judge.arrived.bind(judge);
  const observe = judge.observe.bind(judge);
  const abandoned = judge.abandoned.bind(judge);
  judge.arrived = (o) => (ops.push(['arrived', structuredClone(o)]), arrived(o));
  judge.observe = (o) => (ops.push(['observe', structuredClone(o)]), observe(o));
  judge.abandoned = (o) => (ops.push(['abandoned', structuredClone({ ...o, reachedTarget: o.reachedTarget === true })]), abandoned(o));
  return ops;
}

/** What every proxy of these tests is started with: on `target` and `clock`, its findings told into `told`. */
function proxyOptions(target: string, clock: ManualClock, told: string[]): ProxyOptions {
  return {
    target,
    host: '127.0.0.1',
    port: 0,
    contract,
    timeoutMs: 10_000,
    clock,
    dateHeader: false,
    onFinding: (f) => told.push(`${f.id}: ${f.message}`),
  };
}

/** A proxy judging in its own thread on `clock`, its judge's calls recorded and its findings told. */
function recordingProxy(target: string, clock: ManualClock): { proxy: TrafficProxy; told: string[]; ops: Op[] } {
  const told: string[] = [];
  const proxy = createTrafficProxy({ ...proxyOptions(target, clock, told), judging: 'inline' });
  return { proxy, told, ops: recordCalls(proxy) };
}

function replay(ops: readonly Op[], judging: Judging): Promise<JudgeResults> {
  for (const [kind, o] of structuredClone(ops)) {
    if (kind === 'arrived') judging.arrived(o);
    else if (kind === 'observe') judging.observe(o);
    else judging.abandoned(o);
  }
  return judging.results();
}

/** What two judges must agree on: findings in order, counts, and each key's report as the reports show it. */
const said = (r: JudgeResults) => JSON.parse(JSON.stringify({ ...r, keys: r.keys.map((k) => ({ ...k, sample: k.sample })) })) as unknown;

/** `keys`: the keys the proxy learnt as the requests arrived, known to both judges from the start. */
async function compare(ops: Op[], keys: string[], onFinding: string[]): Promise<JudgeResults> {
  const inline = await replay(ops, inlineJudging(new TrafficJudge({ contract, dateHeader: false, keys: new KnownKeys(keys) })));
  const found: string[] = [];
  const worker = workerJudging({ specPath: DEFAULT_SPEC_PATH, dateHeader: false, keys, onFinding: (f) => found.push(`${f.id}: ${f.message}`) });
  try {
    const judged = await replay(ops, worker);
    assert.equal(said(judged), said(inline));
    assert.equal(found, onFinding, 'the worker tells each finding as the inline judge does');
  } finally {
    await worker.close();
  }
  return inline;
}

t('a client that never waits, with creates and the deprecated getPet, on the reference server: the same findings and reports', async () => {
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, clock });
  await server.start();
  const { proxy, told, ops } = recordingProxy(server.info.uri, clock);
  try {
    const url = await proxy.start();
    const headers = { authorization: 'Bearer test-free-key', 'content-type': 'application/json' };
    for (let i = 0; i < 90; i++) {
      const res =
        i % 5 === 0
          ? await fetch(`${url}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: `Rex ${i}`, species: 'dog', status: 'available' }) })
          : await fetch(`${url}/v1/pets${i % 4 === 0 ? '/1' : '?limit=2'}`, { headers });
      await res.arrayBuffer();
      clock.advance(100);
    }
  } finally {
    await proxy.stop();
    await server.stop();
  }
  const inline = await compare(ops, ['test-free-key'], told);
  assert.ok(
    inline.findings.some((f) => f.side === 'client' && f.level === 'must'),
    'the client broke an obligation',
  );
  assert.ok(inline.keys[0]!.requests === 90);
});

t('32 concurrent clients on a racy limiter: the same must findings, in the same order', async () => {
  const clock = new ManualClock(Date.UTC(2030, 0, 1, 0, 0, 7));
  const target = await startSecondServer({ clock, banAfter: 5, banSeconds: 30, race: { limiter: true } });
  const { proxy, told, ops } = recordingProxy(target.origin, clock);
  try {
    const url = await proxy.start();
    await recordTraffic({ baseUrl: `${url}/v1`, key: target.keys.free, clock, clients: 32, limit: 60, seconds: 200 });
  } finally {
    await proxy.stop();
    await target.close();
  }
  const inline = await compare(ops, [target.keys.free], told);
  assert.ok(
    inline.findings.some((f) => f.side === 'server' && f.level === 'must'),
    'the racy limiter was found',
  );
});

t(
  'the proxy judging in a worker, which builds each exchange from what the forwarding thread posts: the same findings and reports as judging inline',
  async () => {
    async function through(judging: 'inline' | 'worker') {
      const clock = new ManualClock(Date.UTC(2030, 0, 1));
      const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, clock });
      await server.start();
      const told: string[] = [];
      const proxy = createTrafficProxy({ ...proxyOptions(server.info.uri, clock, told), judging, specPath: DEFAULT_SPEC_PATH });
      let url = '';
      try {
        url = await proxy.start();
        for (let i = 0; i < 40; i++) {
          // A secret in a cookie, to be learnt and hidden in the query and the bodies; creates; a path outside the description.
          const headers = {
            authorization: 'Bearer test-free-key',
            'content-type': 'application/json',
            ...(i % 7 === 0 ? { cookie: 'apikey=cookie-secret-0123456789; theme=dark' } : {}),
          };
          const res =
            i % 5 === 0
              ? await fetch(`${url}/v1/pets`, {
                  method: 'POST',
                  headers,
                  body: JSON.stringify({ name: `Rex ${i} cookie-secret-0123456789`, species: 'dog', status: 'available' }),
                })
              : await fetch(`${url}/v1/${i % 9 === 0 ? 'healthz' : i % 4 === 0 ? 'pets/1' : 'pets?limit=2&api_key=cookie-secret-0123456789'}`, { headers });
          await res.arrayBuffer();
          clock.advance(100);
        }
      } finally {
        await proxy.stop();
        await server.stop();
      }
      try {
        // Each run has its own ports: named alike, the rest must be equal.
        const text = JSON.stringify(said(await proxy.judging.results()))
          .replaceAll(new URL(server.info.uri).host, 'target')
          .replaceAll(new URL(url).host, 'proxy');
        return { results: JSON.parse(text) as unknown, told };
      } finally {
        await proxy.judging.close();
      }
    }
    const inline = await through('inline');
    const worker = await through('worker');
    assert.equal(worker.results, inline.results);
    assert.equal(worker.told, inline.told, 'the worker tells each finding as the inline judge does');
    const shown = JSON.stringify(worker.results);
    assert.match(shown, /"requests":40,/);
    assert.ok(!shown.includes('cookie-secret-0123456789'), 'the secret learnt from the cookie is hidden');
    assert.ok(shown.includes('Rex 35 cook…(24 chars)'), 'and named by its label in the bodies');
  },
);

t('a worker that falls behind past its bound: what it could not take is counted, and --fail-on never passes the run', async () => {
  const worker = workerJudging({ specPath: DEFAULT_SPEC_PATH, dateHeader: false, keys: [], maxQueued: 3 });
  try {
    // Ten answers in one turn of the event loop: the worker acknowledges none of them before the fourth.
    for (let seq = 1; seq <= 10; seq++) {
      const exchange = listedExchange(seq);
      worker.arrived({ exchange, key: 'k-0123456789abcdef' });
      worker.observe({ exchange, key: 'k-0123456789abcdef' });
    }
    const results = await worker.results();
    assert.is(results.unjudged, 7);
    assert.is(results.keys[0]!.requests, 3, 'only what the worker took was judged as an answer');
    // Nothing found in what was judged is no pass for what was not (these answers lack the rate-limit fields: the findings are left out here).
    const clean = { ...results, findings: [], counts: { must: 0, should: 0 } };
    const report = buildReport({ target: 'http://t', startedAt: 0, endedAt: 1, ...clean, requests: 10, failOn: 'must' });
    assert.is(report.exitCode, 2);
    assert.match(formatConsole(report), /^NOT JUDGED: 7 exchanges/m);
    assert.is(buildReport({ target: 'http://t', startedAt: 0, endedAt: 1, ...clean, requests: 10, failOn: 'none' }).exitCode, 0);
    assert.is(
      buildReport({ target: 'http://t', startedAt: 0, endedAt: 1, ...results, requests: 10, failOn: 'must' }).exitCode,
      1,
      'a finding still fails the run',
    );
  } finally {
    await worker.close();
  }
});

t('the live view of a judge in a worker: each judged exchange told, and the key shown as the inline judge shows it once its report comes', async () => {
  const worker = workerJudging({ specPath: DEFAULT_SPEC_PATH, dateHeader: false, keys: [] });
  const inline = new TrafficJudge({ contract, dateHeader: false });
  const clock = new ManualClock(START_MS);
  try {
    const source = proxyLiveSource(worker, clock);
    const told: string[] = [];
    source.subscribe((label) => told.push(label));
    const both = { observe: (o: Observed) => (inline.observe(structuredClone(o)), worker.observe(o)) } as unknown as TrafficJudge;
    await playMisbehavingClient(both, clock);
    await worker.results();
    assert.is(told.length, 100, 'told after each exchange');
    const label = 'test…(13 chars)';
    const came = new Promise<void>((resolve) => source.subscribe((l) => l === label && resolve()));
    assert.is(source.key(label), undefined, 'asked of the worker, not there yet');
    await came;
    assert.equal(source.key(label), proxyLiveSource(inline, clock).key(label));
    assert.is(source.key('nobody…(9 chars)'), undefined);
  } finally {
    await worker.close();
  }
});

t.run();
