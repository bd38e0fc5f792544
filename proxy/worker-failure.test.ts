// A judge whose worker fails is the kit's failure, never the clients': the worker throws on an internal
// error or runs out of memory, and the proxy forwards on, says so once, posts nothing more, answers
// every read without hanging, and its run ends as the kit's failure (exit 3), never a pass.
import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_SPEC_PATH, loadContract } from '../judge/contract.ts';
import { KIT_FAILED } from '../lib/kit-failure.ts';
import { HANG_BOUND_MS, START_BOUND_MS, within } from '../lib/testing/eventually.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';
import { ROOT } from '../server/testing/process.ts';
import { createServer } from '../server/server.ts';
import { parseProxyCli, runProxy } from './cli.ts';
import { RawExchange } from './raw-exchange.ts';
import { createTrafficProxy } from './server.ts';
import { listedExchange } from './testing/exchanges.ts';
import { workerJudging } from './worker-judging.ts';

const contract = await loadContract(DEFAULT_SPEC_PATH);
const KEY = 'test-free-key';
/** An old generation the judge's worker cannot even load its modules and the description in (it needs about 16 MB). */
const TOO_LITTLE = { maxOldGenerationSizeMb: 8 };
const OUT_OF_MEMORY = /^the proxy's judge failed: ERR_WORKER_OUT_OF_MEMORY/;

/** The error `promise` rejects with (a failure if it resolves). */
async function rejection(promise: Promise<unknown>, what: string): Promise<Error> {
  try {
    await within(promise, HANG_BOUND_MS, what);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${what}: resolved, expected a rejection`);
}

/** An exchange as the forwarding thread keeps it, answered 200 by the target. */
function answered(seq: number): RawExchange {
  const raw = new RawExchange(seq, 1_000 + seq, 'GET', '/v1/pets', ['Authorization', `Bearer ${KEY}`]);
  raw.requestEnded = true;
  raw.reachedTarget = true;
  raw.receivedAt = 1_001 + seq;
  raw.status = 200;
  raw.responseRaw = ['Content-Type', 'application/json'];
  return raw;
}

const direct = suite('proxy: a judge worker that fails, fed directly');

const failures: Array<{
  name: string;
  resourceLimits?: { maxOldGenerationSizeMb: number };
  fail?: (feed: ReturnType<typeof workerJudging>) => Promise<void>;
  cause: RegExp;
}> = [
  {
    name: 'the worker throws mid-run (a finished exchange that never arrived)',
    fail: async (worker) => {
      // A judge at work first: one exchange judged.
      worker.arrivedRaw(answered(1));
      worker.finishedRaw(answered(1), 'judge');
      assert.is((await worker.results()).keys[0]!.requests, 1);
      worker.finishedRaw(answered(99), 'judge');
    },
    cause: /^the proxy's judge failed: the proxy finished exchange 99, which never arrived$/,
  },
  { name: 'the worker runs out of memory', resourceLimits: TOO_LITTLE, cause: OUT_OF_MEMORY },
];

for (const { name, resourceLimits, fail, cause } of failures) {
  direct(`${name}: told once, the feed costs nothing and never throws, the results reject, close() resolves`, async () => {
    const told: Error[] = [];
    let toldOnce: (error: Error) => void = () => {};
    const first = new Promise<Error>((resolve) => (toldOnce = resolve));
    const worker = workerJudging({
      specPath: DEFAULT_SPEC_PATH,
      dateHeader: false,
      keys: [],
      ...(resourceLimits ? { resourceLimits } : {}),
      onFailure: (error) => (told.push(error), toldOnce(error)),
    });
    try {
      await fail?.(worker);
      // Asked before the failure is known: rejected with it rather than waiting forever.
      const asked = worker.results();
      assert.match((await rejection(asked, 'results asked before the failure')).message, cause);
      const error = await within(first, HANG_BOUND_MS, 'onFailure');
      assert.match(error.message, cause);
      for (let seq = 100; seq < 110; seq++) {
        worker.arrivedRaw(answered(seq));
        worker.finishedRaw(answered(seq), seq % 2 ? 'judge' : 'abandon');
        worker.arrived({ exchange: listedExchange(seq + 100), key: KEY });
        worker.observe({ exchange: listedExchange(seq + 100), key: KEY });
        worker.abandoned({ exchange: listedExchange(seq + 200), key: KEY, reachedTarget: true });
      }
      worker.subscribe(() => {});
      assert.is(worker.keyReport('test…(13 chars)'), undefined);
      await new Promise((resolve) => setImmediate(resolve));
      assert.not.ok(worker.pending!('test…(13 chars)'), 'a report the failed judge cannot give is not awaited');
      assert.is(await rejection(worker.results(), 'results after the failure'), error, 'the results reject with the failure');
    } finally {
      await within(worker.close(), HANG_BOUND_MS, 'close');
    }
    assert.is(told.length, 1, 'told once, though the worker also exited');
  });
}

direct.run();

const proxied = suite('proxy: the judge worker runs out of memory behind a real proxy');

proxied('the clients are answered by the reference server through the proxy; the results reject', async () => {
  const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false });
  await server.start();
  const told: Error[] = [];
  let failed: () => void = () => {};
  const failure = new Promise<void>((resolve) => (failed = resolve));
  const proxy = createTrafficProxy({
    target: server.info.uri,
    host: '127.0.0.1',
    port: 0,
    contract,
    timeoutMs: 10_000,
    judging: 'worker',
    specPath: DEFAULT_SPEC_PATH,
    judgeResourceLimits: TOO_LITTLE,
    onJudgeFailure: (error) => (told.push(error), failed()),
  });
  try {
    const url = await proxy.start();
    const get = async () => {
      const res = await fetch(`${url}/v1/pets?limit=2`, { headers: { authorization: `Bearer ${KEY}` } });
      await res.arrayBuffer();
      return res.status;
    };
    // Some while the worker is still loading, then more once it has died.
    const before = await Promise.all([get(), get(), get()]);
    await within(failure, HANG_BOUND_MS, 'onJudgeFailure');
    const after: number[] = [];
    for (let i = 0; i < 10; i++) after.push(await get());
    assert.equal([...before, ...after], Array(13).fill(200));
    assert.is(told.length, 1);
    assert.match(told[0]!.message, OUT_OF_MEMORY);
  } finally {
    await proxy.stop();
    await server.stop();
  }
  try {
    assert.match((await rejection(proxy.judging.results(), 'results')).message, OUT_OF_MEMORY);
  } finally {
    await within(proxy.judging.close(), HANG_BOUND_MS, 'close');
  }
});

proxied('runProxy says at once that the judge stopped, stops listening, and ends by throwing the failure, never with a report', async () => {
  const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false });
  await server.start();
  let out = '';
  let said: () => void = () => {};
  const saidFailure = new Promise<void>((resolve) => (said = resolve));
  const options = parseProxyCli(['--target', server.info.uri, '--port', '0', '--host', '127.0.0.1'], {});
  if (options === 'help') throw new Error('unexpected --help');
  let proxyUrl = '';
  try {
    const run = runProxy(options, {
      stdout: (text) => {
        out += text;
        if (/judge failed/.test(text)) said();
      },
      judgeResourceLimits: TOO_LITTLE,
      until: async (url) => {
        proxyUrl = url;
        await within(saidFailure, HANG_BOUND_MS, 'the line saying the judge stopped');
        const res = await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
        await res.arrayBuffer();
        assert.is(res.status, 200, 'still forwarded');
      },
    });
    const error = await rejection(run, 'runProxy');
    assert.match(error.message, OUT_OF_MEMORY);
    const lines = out.split('\n').filter((line) => /judge/.test(line));
    assert.equal(lines.length, 1, out);
    assert.match(
      lines[0]!,
      /^proxy: the proxy's judge failed: ERR_WORKER_OUT_OF_MEMORY: .*; exchanges from here are forwarded, not judged; the run will end with exit 3$/,
    );
    assert.not.match(out, /READY|NOT JUDGED/, 'no report, so no pass');
    assert.ok(
      await fetch(proxyUrl).then(
        () => false,
        () => true,
      ),
      'the proxy no longer listens',
    );
  } finally {
    await server.stop();
  }
});

proxied.run();

const command = suite('proxy: the command whose judge runs out of memory');

// The worker's old generation made too small from a preload: the command line has no option for it.
const SMALL_JUDGE = `
import threads from 'node:worker_threads';
import { syncBuiltinESMExports } from 'node:module';
const { Worker } = threads;
threads.Worker = class extends Worker {
  constructor(what, options) { super(what, { ...options, resourceLimits: { ...options?.resourceLimits, ...${JSON.stringify(TOO_LITTLE)} } }); }
};
syncBuiltinESMExports();
`;

command('exits 3 (the kit failed) with the judge named, after one line saying it stopped', async () => {
  const child = spawn(
    process.execPath,
    [
      ...sourceArgs('proxy/cli.ts', ['--import', `data:text/javascript,${encodeURIComponent(SMALL_JUDGE)}`]),
      '--target',
      'http://127.0.0.1:9',
      '--port',
      '0',
      '--duration',
      '2',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const code = await within(exited, START_BOUND_MS, 'the command');
    assert.is(code, KIT_FAILED, stderr);
    assert.match(stdout, /^proxy: the proxy's judge failed: ERR_WORKER_OUT_OF_MEMORY: .*; the run will end with exit 3$/m);
    assert.match(stderr, /^proxy: the kit failed .*the proxy's judge failed: ERR_WORKER_OUT_OF_MEMORY/m);
    assert.not.match(stdout, /READY/);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

command.run();
