// The proxy case of `npm run bench -- --cases proxy`: what judging costs beside serving, direct and
// via the proxy interleaved, against a bare forwarding proxy (the floor); bench/README.md, The proxy
// case, says what each round and connection count measures.
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../lib/dist-build.ts';
import { LIST_PATH } from './cases.ts';
import { formatCount, MB, SATURATED } from './figures.ts';
import type { LoadGenerator, LoadMeasure } from './load.ts';
import {
  allowedCpus,
  choosePinning,
  exited,
  foreignCores,
  freePort,
  httpRequest,
  machineTicks,
  processTicks,
  rssBytes,
  spawnChild,
  stopChild,
  threadTicks,
  TICKS_PER_SECOND,
} from './proc.ts';
import { interleave, voidReason } from './stats.ts';
import { launch, plainContext, serverEnv, waitForLog, type RunningServer } from './targets.ts';
import { findWrk, WrkGenerator } from './wrk.ts';
import {
  countFindings,
  fixed,
  PROXY_CASE_KEY,
  summarizeSeries,
  type ProxyCaseOptions,
  type ProxyCaseReport,
  type ProxyRound,
  type ProxySeries,
} from './proxy-case-report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_SCRIPT = join(ROOT, 'dist/server/cli.js');
const PROXY_SCRIPT = join(ROOT, 'dist/proxy/cli.js');
/** The floor of any Node proxy: forwarding alone, nothing judged (bench/peers/bare-proxy.mjs). */
const BARE_PROXY_SCRIPT = join(ROOT, 'bench/peers/bare-proxy.mjs');
const API_KEYS = join(ROOT, 'fixtures/api-keys.json');
const START_TIMEOUT_MS = 60_000;

const msPer = (ticks: number, ok: number) => (ok > 0 ? (1000 * ticks) / TICKS_PER_SECOND / ok : Number.NaN);

interface Pids {
  server: number;
  proxy?: number | undefined;
}

/** One wrk run with the CPU of the server, the proxy, wrk and the rest of the machine meanwhile. */
async function measure(generator: LoadGenerator, url: string, connections: number, seconds: number, pids: Pids) {
  const machineBefore = machineTicks();
  const serverBefore = processTicks(pids.server);
  const proxyBefore = pids.proxy ? processTicks(pids.proxy) : 0;
  const forwardingBefore = pids.proxy ? threadTicks(pids.proxy) : 0;
  const ownBefore = processTicks(process.pid);
  const load: LoadMeasure = await generator.run({
    url,
    method: 'GET',
    headers: { authorization: `Bearer ${PROXY_CASE_KEY}` },
    connections,
    duration: seconds,
    expectStatus: 200,
  });
  const server = processTicks(pids.server) - serverBefore;
  // The main thread forwards; every other thread of the proxy (its judge's worker, V8's and libuv's helpers) is the rest.
  const forwarding = pids.proxy ? threadTicks(pids.proxy) - forwardingBefore : 0;
  const proxy = pids.proxy ? processTicks(pids.proxy) - proxyBefore : 0;
  const own = processTicks(process.pid) - ownBefore;
  const wrk = Number.isFinite(load.generatorCpuSeconds) ? load.generatorCpuSeconds * TICKS_PER_SECOND : 0;
  return {
    load,
    serverTicks: server,
    proxyTicks: proxy,
    forwardingTicks: forwarding,
    foreignCores: foreignCores({ machine: machineBefore, own: 0 }, { machine: machineTicks(), own: server + proxy + own + wrk }),
  };
}

function roundOf(connections: number, round: number, via: ProxyRound['via'], m: Awaited<ReturnType<typeof measure>>, rss: number | null): ProxyRound {
  const { load } = m;
  const wrongAnswers = Object.values(load.unexpected).reduce((a, b) => a + b, 0);
  return {
    connections,
    round,
    via,
    ok: load.ok,
    seconds: load.seconds,
    rps: load.seconds > 0 ? load.ok / load.seconds : 0,
    wrong: wrongAnswers + load.errors + load.timeouts,
    void: voidReason(load),
    serverMsPerRequest: msPer(m.serverTicks, load.ok),
    proxyMsPerRequest: via === 'direct' ? null : msPer(m.proxyTicks, load.ok),
    forwardingMsPerRequest: via === 'direct' ? null : msPer(m.forwardingTicks, load.ok),
    wrkBusy: load.seconds > 0 ? load.generatorCpuSeconds / load.seconds : Number.NaN,
    foreignCores: m.foreignCores,
    proxyRssBytes: rss,
  };
}

interface Started {
  child: ChildProcess;
  origin: string;
  logFile: string;
}

async function startProcess(name: string, dir: string, args: string[], cpu: string | undefined, ready: RegExp): Promise<Started> {
  const logFile = join(dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawnChild({ command: process.execPath, args, cpu, env: serverEnv(), output: fd, cwd: dir });
  closeSync(fd);
  try {
    await waitForLog(logFile, ready, START_TIMEOUT_MS, child);
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    throw new Error(`${name} did not start: ${(error as Error).message} (log: ${logFile})`);
  }
  const origin = ready.exec(readFileSync(logFile, 'utf8'))![1]!;
  return { child, origin, logFile };
}

/**
 * A reference server on the memory store, probed once. The proxy's server is its own: the judge
 * sees every answer of its key, and a direct round in between would read as Remaining falling by
 * thousands for one request.
 */
async function startServer(name: string, dir: string, cpu: string | undefined): Promise<Started> {
  const port = await freePort();
  const server = await startProcess(
    name,
    dir,
    [SERVER_SCRIPT, '--memory', '--host', '127.0.0.1', '--port', String(port), '--api-keys', API_KEYS],
    cpu,
    /listening on (http:\/\/[^/\s]+)/,
  );
  const probe = await httpRequest(`${server.origin}${LIST_PATH}`, { headers: { authorization: `Bearer ${PROXY_CASE_KEY}` } }).catch((e: Error) => e);
  const problem = probe instanceof Error ? probe.message : probe.status !== 200 ? `status ${probe.status}: ${probe.body.toString().slice(0, 200)}` : undefined;
  if (problem) {
    await stopChild(server.child, 'SIGKILL');
    throw new Error(`${name} answered GET ${LIST_PATH} wrongly: ${problem}`);
  }
  return server;
}

/** Runs the proxy case; `log` tells of progress (stderr in the command line). */
export async function runProxyCase(options: ProxyCaseOptions, log: (line: string) => void): Promise<ProxyCaseReport> {
  const cpus = allowedCpus();
  const pinning = options.pin ? choosePinning(cpus) : null;
  // With a third core the proxy gets one of its own; on two it shares wrk's, which is idle in the direct rounds.
  const proxyCpu = pinning ? (cpus.length >= 3 ? String(cpus[2]) : pinning.load) : undefined;
  const proxyOwnCore = pinning !== null && proxyCpu !== pinning.load;
  const layout = pinning
    ? `server on cpu ${pinning.server}, proxy on cpu ${proxyCpu}, wrk on cpu ${pinning.load}${proxyOwnCore ? '' : " (the proxy shares wrk's core: this machine has two)"}`
    : 'not pinned';
  const report: ProxyCaseReport = { settings: { ...options, generator: 'wrk', layout, proxyOwnCore, build: '' }, series: [] };
  const wrk = await findWrk();
  if (!wrk) return { ...report, skipped: 'wrk is not on PATH (Debian: apt-get install wrk): the proxy case needs its one-thread rate' };
  report.settings.generator = `wrk ${wrk.version}, 1 thread`;
  report.settings.build = await ensureBuilt(log);
  const dir = mkdtempSync(join(tmpdir(), 'adoption-bench-proxy-'));
  const generator = new WrkGenerator(wrk.path, wrk.version, pinning, dir);
  const stops: Array<() => Promise<void>> = [];
  try {
    const direct = await startServer('server-direct', dir, pinning?.server);
    stops.push(() => stopChild(direct.child));
    log(`proxy case: direct server pid ${direct.child.pid} on ${direct.origin}`);
    const nullServer = await launch(
      'null',
      { kind: 'null' },
      plainContext({ dir, pinning, cpus, apiKey: PROXY_CASE_KEY, apiKeysFile: API_KEYS, canned: undefined }),
    );
    stops.push(() => nullServer.stop());
    for (const connections of options.connections)
      report.series.push(await runSeries(options, connections, { dir, generator, direct, nullServer, serverCpu: pinning?.server, proxyCpu, log }));
  } finally {
    for (const stop of stops.reverse()) await stop();
    await generator.close();
    if (options.keep) log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  return report;
}

/** One connection count: a fresh proxy and its own server, warm-up both ways, then the rounds, direct and via the proxy interleaved. */
async function runSeries(
  options: ProxyCaseOptions,
  connections: number,
  ctx: {
    dir: string;
    generator: LoadGenerator;
    direct: Started;
    nullServer: RunningServer;
    serverCpu: string | undefined;
    proxyCpu: string | undefined;
    log: (line: string) => void;
  },
): Promise<ProxySeries> {
  const { generator, direct, log } = ctx;
  const nul = await measure(generator, `${ctx.nullServer.origin}/`, connections, options.duration, { server: ctx.nullServer.pid });
  const nullRps = nul.load.seconds > 0 ? nul.load.ok / nul.load.seconds : 0;
  const nullBusy = nul.load.seconds > 0 ? nul.load.generatorCpuSeconds / nul.load.seconds : Number.NaN;
  const ceiling =
    voidReason(nul.load) === undefined && nullRps > 0
      ? { nullRps, wrkBusy: nullBusy, ceiling: Number.isFinite(nullBusy) && nullBusy > 0 && nullBusy < SATURATED ? nullRps / nullBusy : nullRps }
      : null;
  const behind = await startServer(`server-c${connections}`, ctx.dir, ctx.serverCpu);
  let proxy: Started | undefined;
  let bare: Started | undefined;
  let behindBare: Started | undefined;
  try {
    // A server of its own: the judging proxy must see every request its key's server counted.
    behindBare = await startServer(`server-bare-c${connections}`, ctx.dir, ctx.serverCpu);
    bare = await startProcess(
      `bare-proxy-c${connections}`,
      ctx.dir,
      [BARE_PROXY_SCRIPT, '--target', behindBare.origin],
      ctx.proxyCpu,
      /^proxy: (http:\/\/\S+) ->/m,
    );
    proxy = await startProcess(
      `proxy-c${connections}`,
      ctx.dir,
      [PROXY_SCRIPT, '--target', behind.origin, '--host', '127.0.0.1', '--port', '0'],
      ctx.proxyCpu,
      /^proxy: (http:\/\/\S+) ->/m,
    );
    const proxyPid = proxy.child.pid!;
    const targets = {
      direct: { url: `${direct.origin}${LIST_PATH}`, pids: { server: direct.child.pid! } },
      proxy: { url: `${proxy.origin}${LIST_PATH}`, pids: { server: behind.child.pid!, proxy: proxyPid } },
      bare: { url: `${bare.origin}${LIST_PATH}`, pids: { server: behindBare.child.pid!, proxy: bare.child.pid! } },
    } as const;
    log(`proxy case: ${connections} connections, proxy pid ${proxyPid} on ${proxy.origin} -> server pid ${behind.child.pid}`);
    if (options.warmup > 0)
      for (const via of ['direct', 'proxy', 'bare'] as const) await measure(generator, targets[via].url, connections, options.warmup, targets[via].pids);
    const rounds: ProxyRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      for (const via of interleave(['direct', 'proxy', 'bare'] as const, round - 1)) {
        for (const child of [direct.child, behind.child, proxy.child, bare.child, behindBare.child])
          if (exited(child)) throw new Error(`a process of the proxy case exited (code ${child.exitCode}); logs in ${ctx.dir} (--keep keeps them)`);
        const m = await measure(generator, targets[via].url, connections, options.duration, targets[via].pids);
        const r = roundOf(connections, round, via, m, via === 'proxy' ? rssBytes(proxyPid) : null);
        rounds.push(r);
        log(
          `proxy case: c${connections} round ${round}/${options.rounds} ${via.padEnd(6)} ${formatCount(r.rps).padStart(7)} req/s` +
            `${r.proxyMsPerRequest === null ? '' : `, proxy ${fixed(r.proxyMsPerRequest)} ms/req (forwarding thread ${fixed(r.forwardingMsPerRequest)}), RSS ${((r.proxyRssBytes ?? 0) / MB).toFixed(1)} MB`}${r.void ? `  VOID: ${r.void}` : ''}`,
        );
      }
    }
    // Stopped as a user stops it: its report at exit says how many exchanges its judge could not take.
    await stopChild(proxy.child, 'SIGTERM', 30_000);
    return summarizeSeries(connections, rounds, countFindings(readFileSync(proxy.logFile, 'utf8')), ceiling);
  } finally {
    if (proxy) await stopChild(proxy.child, 'SIGKILL');
    if (bare) await stopChild(bare.child);
    if (behindBare) await stopChild(behindBare.child);
    await stopChild(behind.child);
  }
}
