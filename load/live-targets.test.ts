// The scripts, under Node with the k6 shim, over real HTTP in real time: against the reference
// server (in a worker thread, so this thread may block on each request as k6's VUs do) and against
// the Prism mock (`npm run mock`). Short runs, bounded in time and count; requests only to
// 127.0.0.1. What k6 itself adds is covered by k6.test.ts when k6 is installed.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startMock, type RunningMock } from '../conformance/mock.ts';
import { captureConsole } from './testing/k6-shim.ts';
import { curl } from './testing/curl.ts';
import { runScript } from './testing/k6-run.ts';
import { threadImport } from '../lib/testing/run-source.ts';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';

const here = dirname(fileURLToPath(import.meta.url));
const script = (name: string) => join(here, name);

async function live(file: string, env: Record<string, string>) {
  const out = captureConsole();
  try {
    const r = await runScript(file, { env, handler: (req) => curl(req), startMs: 0, realTime: true, maxIterations: 2_000 });
    return { ...r, console: [...out.lines] };
  } finally {
    out.restore();
  }
}

const SMALL_KEY = 'k6-live-small-key';
// Latency objectives past any machine's: these runs judge behaviour in real time, and a busy machine
// must not fail them (bench/ measures the speed).
const SMOKE_OBJECTIVE = { P95_MS: '60000' };
const CAPACITY_OBJECTIVE = { P95_MS: '30000', P99_MS: '60000' };
let worker: Worker;
let baseUrl = '';
let mock: RunningMock | null = null;

test.before(async () => {
  const source = `
    const { parentPort } = require('node:worker_threads');
    (async () => {
      const { createServer } = ${threadImport(pathToFileURL(join(here, '..', 'server', 'index.ts')))};
      const keys = [
        { key: 'test-pro-key', plan: 'pro' },
        { key: 'test-enterprise-key', plan: 'enterprise', limits: { perMinute: 100000, perDay: 100000000 } },
        { key: 'test-load-key', plan: 'enterprise', limits: { perMinute: 1000000000, perDay: 1000000000000 } },
        { key: ${JSON.stringify(SMALL_KEY)}, plan: 'enterprise', limits: { perMinute: 12, perDay: 100000 } },
      ];
      const server = await createServer({ host: '127.0.0.1', port: 0, logger: false, apiKeys: keys });
      await server.start();
      parentPort.postMessage(server.info.uri + '/v1');
      parentPort.on('message', async () => { await server.stop({ timeout: 500 }); process.exit(0); });
    })().catch((e) => { parentPort.postMessage('error: ' + e.stack); });`;
  worker = new Worker(source, { eval: true });
  baseUrl = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  if (!baseUrl.startsWith('http')) console.error(baseUrl);
  assert.ok(baseUrl.startsWith('http://127.0.0.1:'), baseUrl);
  mock = await startMock({ port: 0, startTimeoutMs: START_BOUND_MS });
});

test.after(async () => {
  worker.postMessage('stop');
  await new Promise((resolve) => worker.once('exit', resolve));
  await mock?.stop();
});

test('smoke.js passes against the reference server over HTTP', async () => {
  const r = await live(script('smoke.js'), { BASE_URL: baseUrl, DURATION: '4s', RATE: '60', ...SMOKE_OBJECTIVE });
  assert.is(r.setupError, null, String(r.setupError));
  assert.equal(r.failed, [], `${JSON.stringify(r.failed)}\n${r.summary.stdout}`);
  assert.ok(r.iterations >= 3, `${r.iterations} iterations`);
});

test('smoke.js with SHAPE_ONLY=1 passes against the Prism mock, and fails there without it', async () => {
  const env = { BASE_URL: mock!.url, API_KEY: 'any-token', DURATION: '2s', RATE: '60', ...SMOKE_OBJECTIVE };
  const shapes = await live(script('smoke.js'), { ...env, SHAPE_ONLY: '1' });
  assert.is(shapes.setupError, null, String(shapes.setupError));
  assert.equal(shapes.failed, [], `${JSON.stringify(shapes.failed)}\n${shapes.summary.stdout}`);
  const full = await live(script('smoke.js'), env);
  assert.ok(
    full.failed.some((t) => t.key === 'checks'),
    'a stateless mock cannot return what was created',
  );
});

test('a short rate-limit.js passes against the reference server over HTTP', async () => {
  const r = await live(script('rate-limit.js'), {
    BASE_URL: baseUrl,
    API_KEY: SMALL_KEY,
    LIMIT: '12',
    OVERDRIVE: '10',
    DURATION: '10s',
    CROSS_WINDOWS: '0',
  });
  assert.equal(r.failed, [], `${JSON.stringify(r.failed)}\n${r.summary.stdout}\n${r.console.join('\n')}`);
  assert.match(r.summary.stdout!, /windows saturated at exactly Limit: [1-9]/);
});

test('capacity.js measures the reference server over HTTP and names the highest step it held', async () => {
  const r = await live(script('capacity.js'), { BASE_URL: baseUrl, RATES: '5,10', HOLD: '2s', ...CAPACITY_OBJECTIVE });
  assert.equal(r.failed, [], `${JSON.stringify(r.failed)}\n${r.summary.stdout}`);
  // Which step is the highest depends on this machine's load; that one is named is what counts here
  // (the judgement itself is tested exactly on the fake clock in scripts-run.test.ts).
  assert.match(r.summary.stdout!, /highest sustained rate: (5|10) requests\/s/);
  assert.match(r.summary.stdout!, /held 5\/s/);
});

test.run();
