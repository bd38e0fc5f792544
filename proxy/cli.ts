// `adoption-kit proxy --target <url>` and `npm run proxy`: options validated once, here; runProxy is the
// same run from code (tests pass their clock and say when to stop). Exit 0, or 1 with --fail-on when a
// finding of that level was seen; 2 for a usage error or a port that cannot be listened on; 3
// (KIT_FAILED) when the proxy itself fails, its judge among it: never 1, which is a verdict.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ResourceLimits } from 'node:worker_threads';
import { isEntryPoint } from '../lib/entry.ts';
import { DEFAULT_SPEC_PATH, loadContract, type Clock } from '../judge/index.ts';
import { parseOptions } from '../lib/cli-options.ts';
import { endSoonAfter, guardedMain } from '../lib/kit-failure.ts';
import { stopWithParent } from '../lib/processes.ts';
import { KitError, UsageError } from '../lib/errors.ts';
import { PROXY_HELP, PROXY_OPTIONS } from './options.ts';
import { HarWriter } from './har.ts';
import { buildReport, findingLine, formatConsole, formatJson, formatJUnit, type FailOn, type ProxyReport } from './report.ts';
import { formatHtml } from './report-html.ts';
import { createTrafficProxy } from './server.ts';
import type { JudgeResults } from './judging.ts';
import { createProxyLiveView, LIVE_PATH, type ProxyLiveView } from './live.ts';

export { PROXY_HELP };

export interface ProxyCliOptions {
  target: string;
  host: string;
  port: number;
  headers: Record<string, string>;
  ca?: string;
  insecure: boolean;
  timeoutMs: number;
  durationSeconds?: number;
  faults: boolean;
  ui: boolean;
  /** The live view's token; generated at start when absent. */
  uiToken?: string;
  uiRemote: boolean;
  /** Watchers of the live view at once. */
  uiWatchers: number;
  captureBytes: number;
  keep: number;
  maxKeys: number;
  specPath: string;
  clockToleranceSeconds: number;
  failOn: FailOn;
  /** Judge in the proxy's thread rather than in a worker thread beside it. */
  inlineJudge: boolean;
  /** Exchanges waiting for the worker at most. */
  judgeQueue: number;
  verbose: boolean;
  json?: string;
  junit?: string;
  html?: string;
  har?: string;
}

/** The command line (and environment) as the proxy's options, every value checked. */
export function parseProxyCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ProxyCliOptions | 'help' {
  const v = parseOptions(PROXY_OPTIONS, argv, env);
  if (v.help) return 'help';
  if (typeof v.target !== 'string') throw new UsageError('--target is required (or set PROXY_TARGET): the URL of the implementation to forward to');
  let target: URL;
  try {
    target = new URL(v.target);
  } catch (error) {
    throw new UsageError(`--target ${JSON.stringify(v.target)} is not an absolute URL`, { cause: error });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new UsageError('--target must be http:// or https://');
  if (target.search || target.hash) throw new UsageError('--target must not carry a query or fragment');
  if (v.insecure && typeof v.ca === 'string') throw new UsageError('--insecure and --ca exclude each other: --ca trusts a CA, --insecure trusts anything');
  const options: ProxyCliOptions = {
    target: target.toString().replace(/\/+$/, ''),
    host: v.host as string,
    port: v.port as number,
    headers: v.headers as Record<string, string>,
    insecure: v.insecure as boolean,
    timeoutMs: v.timeoutMs as number,
    faults: v.faults as boolean,
    ui: v.ui as boolean,
    uiRemote: v.uiRemote as boolean,
    uiWatchers: v.uiWatchers as number,
    captureBytes: v.captureBytes as number,
    keep: v.keep as number,
    maxKeys: v.maxKeys as number,
    specPath: typeof v.specPath === 'string' ? resolve(v.specPath) : DEFAULT_SPEC_PATH,
    clockToleranceSeconds: v.clockToleranceSeconds as number,
    failOn: v.failOn as FailOn,
    inlineJudge: v.inlineJudge as boolean,
    judgeQueue: v.judgeQueue as number,
    verbose: v.verbose as boolean,
  };
  if (typeof v.ca === 'string') options.ca = v.ca;
  if (typeof v.uiToken === 'string') options.uiToken = v.uiToken;
  if (typeof v.durationSeconds === 'number') options.durationSeconds = v.durationSeconds;
  for (const key of ['json', 'junit', 'html', 'har'] as const) if (typeof v[key] === 'string') options[key] = resolve(v[key]);
  return options;
}

export interface RunControls {
  /** Resolves when the proxy should stop (signals, --duration); the command line builds it. */
  until: (url: string) => Promise<void>;
  stdout: (text: string) => void;
  clock?: Clock;
  /** False when the target's Date header is not its clock (a test server on a manual clock). */
  dateHeader?: boolean;
  sleep?: (ms: number) => Promise<void>;
  /** Over the judge worker's own resource limits (tests make it run out of memory). */
  judgeResourceLimits?: ResourceLimits;
}

/** Starts the proxy, tells of each finding as it happens, and at the end writes the reports asked for. */
export async function runProxy(options: ProxyCliOptions, controls: RunControls): Promise<ProxyReport> {
  const clock = controls.clock ?? { now: () => Date.now() };
  const startedAt = clock.now();
  const contract = await loadContract(options.specPath);
  const har = options.har ? await HarWriter.open(options.har) : undefined;
  let requests = 0;
  let cutShort = 0;
  let view: ProxyLiveView | undefined;
  const uiToken = options.uiToken ?? randomBytes(24).toString('base64url');
  const proxy = createTrafficProxy({
    target: options.target,
    host: options.host,
    port: options.port,
    contract,
    headers: options.headers,
    tls: { ...(options.ca ? { ca: options.ca } : {}), insecure: options.insecure },
    timeoutMs: options.timeoutMs,
    captureBytes: options.captureBytes,
    limits: { keep: options.keep, maxKeys: options.maxKeys },
    faults: options.faults,
    judging: options.inlineJudge ? 'inline' : 'worker',
    specPath: options.specPath,
    maxQueued: options.judgeQueue,
    // The clients go on through the proxy; the run that could not judge them ends as the kit's failure.
    onJudgeFailure: (error) =>
      controls.stdout(`proxy: ${error.message.split('\n')[0]}; exchanges from here are forwarded, not judged; the run will end with exit 3\n`),
    ...(controls.judgeResourceLimits ? { judgeResourceLimits: controls.judgeResourceLimits } : {}),
    clock,
    onFinished: (error) => {
      requests++;
      if (error && /^(ETIMEDOUT|ECUTSHORT|ECLIENTGONE)/.test(error)) cutShort++;
    },
    // Only the HAR needs each exchange built in this thread (with a judge in a worker, it costs the forwarding).
    ...(har ? { onExchange: (_exchange, redacted) => har.add(redacted()) } : {}),
    dateHeader: controls.dateHeader ?? true,
    clockToleranceSeconds: options.clockToleranceSeconds,
    onFinding: (f) => {
      controls.stdout(`${findingLine(f, startedAt)}\n`);
      view?.found(f.key);
    },
    ...(options.ui ? { own: (req, res) => view?.handle(req, res) ?? false } : {}),
    ...(controls.sleep ? { sleep: controls.sleep } : {}),
  });
  if (options.ui)
    view = createProxyLiveView(proxy.judging, {
      clock,
      target: options.target,
      token: uiToken,
      remote: options.uiRemote,
      maxWatchers: options.uiWatchers,
      maxKeys: options.maxKeys,
    });
  const url = await proxy.start();
  controls.stdout(
    `proxy: ${url} -> ${options.target}${options.faults ? ' (faults on request: Prefer)' : ''}; one line per finding, a report per key at exit\n`,
  );
  // The fragment never reaches a server; the page takes the token from it and drops it from the address bar.
  if (view) controls.stdout(`live view: ${url}${LIVE_PATH}${options.uiToken === undefined ? `#token=${uiToken}` : ' (with the --ui-token given)'}\n`);
  let judged: JudgeResults;
  try {
    try {
      await controls.until(url);
    } finally {
      view?.close();
      await proxy.stop();
    }
    // Everything the proxy saw is in the judge's queue by now: its answer counts all of it. A judge that
    // failed rejects, once the proxy has stopped listening and (below) the judge is closed: exit 3, never a pass.
    judged = await proxy.judging.results();
  } finally {
    await proxy.judging.close();
  }
  if (view && view.feed.dropped + view.feed.refused > 0)
    controls.stdout(
      `live view: ${view.feed.dropped} watcher(s) dropped for not reading, ${view.feed.refused} turned away (--ui-watchers ${options.uiWatchers})\n`,
    );
  const harWritten = await har?.close();
  if (harWritten?.error) controls.stdout(`proxy: the HAR file could not be completed: ${harWritten.error}\n`);
  else if (harWritten?.skipped) controls.stdout(`proxy: ${harWritten.skipped} exchanges left out of the HAR file: the disk fell behind the traffic\n`);
  const report = buildReport({
    target: options.target,
    startedAt,
    endedAt: clock.now(),
    keys: judged.keys,
    summarised: judged.summarised,
    findings: judged.findings,
    counts: judged.counts,
    unjudged: judged.unjudged,
    requests,
    cutShort,
    failOn: options.failOn,
  });
  controls.stdout(formatConsole(report, { verbose: options.verbose }));
  const outputs: Array<[string | undefined, () => string]> = [
    [options.json, () => formatJson(report)],
    [options.junit, () => formatJUnit(report)],
    [options.html, () => formatHtml(report)],
  ];
  for (const [path, text] of outputs) {
    if (!path) continue;
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text());
  }
  return report;
}

/** Until SIGINT, SIGTERM, the end of --duration or of the npm process that started it, whichever comes first. */
function stopSignal(durationSeconds: number | undefined): () => Promise<void> {
  return () =>
    new Promise<void>((done) => {
      const timer = durationSeconds === undefined ? undefined : setTimeout(finish, durationSeconds * 1000);
      function finish() {
        if (timer) clearTimeout(timer);
        process.off('SIGINT', finish);
        process.off('SIGTERM', finish);
        done();
      }
      process.once('SIGINT', finish);
      process.once('SIGTERM', finish);
      // Under npm a SIGTERM stops npm's shell and not the proxy: it stops when its parent goes.
      stopWithParent(finish);
    });
}

export function main(argv: string[]): Promise<number> {
  return guardedMain('proxy', () => run(argv));
}

async function run(argv: string[]): Promise<number> {
  let options: ProxyCliOptions | 'help';
  try {
    options = parseProxyCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`proxy: ${error.message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(PROXY_HELP);
    return 0;
  }
  try {
    const report = await runProxy(options, { until: stopSignal(options.durationSeconds), stdout: (text) => process.stdout.write(text) });
    return report.exitCode;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      process.stderr.write(`proxy: cannot listen on ${options.host}:${options.port} (${code}); choose another --port\n`);
      return 2;
    }
    if (error instanceof KitError) {
      process.stderr.write(`proxy: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

if (isEntryPoint(import.meta.url)) {
  const code = await main(process.argv.slice(2));
  process.exitCode = code;
  endSoonAfter(code);
}
