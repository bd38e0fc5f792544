// The shim stands in for k6 in most of load/'s tests, so its verdict must be k6's: the same short
// rate-limit.js run, against the same targets, under the shim (fake clock) and under a real k6 (real
// time), ends with the same result, exit code and failed thresholds. Without a k6 binary the real
// runs, and so the comparisons, are skipped, never passed.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limitedTarget, type LimiterFault } from './fake-targets.ts';
import { findK6, runK6 } from './k6-bin.ts';
import { runScript } from './k6-run.ts';
import { captureConsole, type Handler } from './k6-shim.ts';
import { startWorkerTarget, type TargetSpec } from './worker-target.ts';

const load = join(dirname(fileURLToPath(import.meta.url)), '..');
// Short: the limit is reached within 6 s at ten times the free plan's 60 a minute, and no window
// boundary is required; the racy build's first burst of 32 already overlaps.
const SHORT = { PLAN: 'free', OVERDRIVE: '10', DURATION: '10s', CROSS_WINDOWS: '0' };
/** The latest second of a minute a real run starts at: it then ends, k6's start included, within that minute. */
const LATEST_START_S = 35;
/** Where in its minute the shim's run starts: where the real runs did, else 17.3 s, part-way as a real run usually joins. */
let startInMinuteMs = 17_300;
const shimStart = () => Date.UTC(2026, 10, 22, 10, 0, 0) + startInMinuteMs;

/**
 * Waits, at most 26 s, until the wall clock is early enough in its minute for a SHORT run to end
 * within it. The fake limiters and the second implementation count per clock minute: a window
 * boundary one run crosses and the other does not would make the verdicts differ for that alone.
 */
async function earlyInAMinute(): Promise<number> {
  const s = (Date.now() % 60_000) / 1000;
  if (s < 1 || s > LATEST_START_S) await new Promise((resolve) => setTimeout(resolve, ((61 - s) % 60) * 1000));
  return Date.now() % 60_000;
}

type Served = { kind: 'server'; spec: TargetSpec } | { kind: 'fake'; fault: LimiterFault };

interface Row {
  name: string;
  target: Served;
  key: string;
  clients: number;
  /** The verdict both must reach: a row whose two runs agree on the wrong verdict is no proof. */
  result: 'PASS' | 'FAIL';
  /** A failing row's fault, as the threshold of at least one of these rules. */
  breaks?: string[];
}

const ROWS: Row[] = [
  { name: 'the reference server', target: { kind: 'server', spec: { kind: 'reference' } }, key: 'test-free-key', clients: 1, result: 'PASS' },
  { name: 'a fixed-window limiter', target: { kind: 'fake', fault: 'none' }, key: 'any-key', clients: 1, result: 'PASS' },
  {
    name: 'a limiter that admits two past the limit',
    target: { kind: 'fake', fault: 'over-admit' },
    key: 'any-key',
    clients: 1,
    result: 'FAIL',
    breaks: ['over_admitted'],
  },
  {
    name: 'a limiter whose Remaining never moves',
    target: { kind: 'fake', fault: 'stuck-remaining' },
    key: 'any-key',
    clients: 1,
    result: 'FAIL',
    breaks: ['remaining_not_decremented'],
  },
  {
    name: "the second implementation's fixed-window build, 32 clients",
    target: { kind: 'server', spec: { kind: 'second', options: { window: 'fixed' } } },
    key: 'second-free-key',
    clients: 32,
    result: 'PASS',
  },
  {
    name: "the second implementation's racy build, 32 clients",
    target: { kind: 'server', spec: { kind: 'second', options: { race: { limiter: true } } } },
    key: 'second-free-key',
    clients: 32,
    result: 'FAIL',
    // Either, as the overlapping answers fall: wherever two requests overlap, it breaks a rule.
    breaks: ['over_admitted', 'remaining_not_decremented'],
  },
];

interface Verdict {
  result: string;
  exitCode: number;
  failed: string[];
}

interface Summary {
  result: string;
  exitCode: number;
  failedThresholds: Array<{ metric: string }>;
}

const verdictOf = (s: Summary): Verdict => ({ result: s.result, exitCode: s.exitCode, failed: s.failedThresholds.map((t) => t.metric).sort() });
const envOf = (row: Row, baseUrl: string) => ({ ...SHORT, BASE_URL: baseUrl, API_KEY: row.key, CLIENTS: String(row.clients) });

/** A fake limiter over HTTP on the real clock, for k6. */
async function serveFake(handler: Handler): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const answer = handler(
      {
        method: req.method ?? 'GET',
        url: `http://127.0.0.1${req.url ?? '/'}`,
        headers: { Authorization: String(req.headers.authorization ?? '') },
        body: null,
      },
      Date.now(),
    );
    res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

async function underShim(row: Row): Promise<{ verdict: Verdict; stdout: string }> {
  const fake = row.target.kind === 'fake' ? limitedTarget({ limit: 60, fault: row.target.fault }) : null;
  const served = row.target.kind === 'server' ? await startWorkerTarget(row.target.spec, shimStart()) : null;
  const out = captureConsole();
  try {
    const handler = fake ?? served!.handler;
    const r = await runScript(join(load, 'rate-limit.js'), { env: envOf(row, served?.baseUrl ?? 'http://127.0.0.1:1/v1'), handler, startMs: shimStart() });
    return { verdict: verdictOf(JSON.parse(r.summary['rate-limit-summary.json']!) as Summary), stdout: r.summary.stdout! };
  } finally {
    out.restore();
    await served?.close();
  }
}

/** The row's target on the real clock, for k6: in a worker thread, or a fake limiter on this thread's event loop (no shim runs meanwhile). */
async function serveForK6(row: Row): Promise<{ baseUrl: string; close(): Promise<void> }> {
  return row.target.kind === 'server' ? startWorkerTarget(row.target.spec, null) : serveFake(limitedTarget({ limit: 60, fault: row.target.fault }));
}

async function underK6(
  k6: string,
  row: Row,
  served: { baseUrl: string; close(): Promise<void> },
  dir: string,
): Promise<{ verdict: Verdict | null; output: string }> {
  try {
    const r = await runK6(k6, 'rate-limit.js', envOf(row, served.baseUrl), dir, 120_000);
    return { verdict: r.summary ? verdictOf(r.summary as unknown as Summary) : null, output: r.output };
  } finally {
    await served.close();
  }
}

const k6 = findK6();
const realRuns = new Map<string, { verdict: Verdict | null; output: string }>();
if (k6 === null) {
  process.stdout.write('SKIP: k6 not found (set K6_BIN or put k6 on PATH), so the shim is not compared with a real k6; its own verdicts are still checked\n');
} else {
  const dir = mkdtempSync(join(tmpdir(), 'k6-parity-'));
  // All at once, before any shim run: the shim fakes this thread's Date.now and blocks it on requests.
  const served = await Promise.all(ROWS.map(serveForK6));
  // k6 takes a second or two to send its first request: the shim starts that much later in its minute.
  startInMinuteMs = (await earlyInAMinute()) + 2_000;
  const runs = await Promise.all(ROWS.map((row, i) => underK6(k6, row, served[i]!, dir)));
  ROWS.forEach((row, i) => realRuns.set(row.name, runs[i]!));
  rmSync(dir, { recursive: true, force: true });
}

const shimRuns = new Map<string, { verdict: Verdict; stdout: string }>();

for (const row of ROWS) {
  test(`shim: rate-limit.js ${row.result === 'PASS' ? 'passes' : 'FAILS'} ${row.name}`, async () => {
    const { verdict, stdout } = await underShim(row);
    shimRuns.set(row.name, { verdict, stdout });
    assert.is(verdict.result, row.result, stdout);
    assert.equal(verdict.exitCode, row.result === 'PASS' ? 0 : 99, stdout);
    const faults = verdict.failed.filter((metric) => (row.breaks ?? []).some((kind) => metric === `ratelimit_violations{kind:${kind}}`));
    assert.is(faults.length > 0, row.result === 'FAIL', `${JSON.stringify(verdict.failed)}\n${stdout}`);
    if (row.result === 'PASS') assert.equal(verdict.failed, [], stdout);
  });

  const name = `k6 and the shim reach the same verdict on ${row.name}`;
  if (k6 === null) {
    test.skip(name, () => undefined);
    continue;
  }
  test(name, async () => {
    const real = realRuns.get(row.name)!;
    assert.ok(real.verdict, `no JSON summary; k6 said:\n${real.output}`);
    const { verdict, stdout } = shimRuns.get(row.name) ?? (await underShim(row));
    process.stdout.write(`${row.name}: k6 ${JSON.stringify(real.verdict)}, shim ${JSON.stringify(verdict)}\n`);
    assert.equal(verdict, real.verdict, `the shim said:\n${stdout}\nk6 said:\n${real.output}`);
    assert.is(real.verdict!.result, row.result, real.output);
  });
}

test.run();
