// The proxy case of `npm run bench -- --cases proxy`: what judging costs beside serving. The
// reference server (memory store, the fixture key test-load-key, whose limits no run reaches) is
// loaded directly and through the judging proxy (`node dist/proxy/cli.js`), each process pinned to a
// core of its own, by wrk with one thread: rounds at every connection count, direct and via the proxy
// interleaved. Per round: the rate, the wrong answers (a round with any is void), the CPU per request
// of the server and of the proxy from /proc, the proxy's RSS; per connection count a fresh proxy, so
// that its RSS over the rounds is the growth of its history, and the findings it printed. The load
// generator's ceiling is measured as for every case: a null server loaded the same way.
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './build.ts';
import { LIST_PATH } from './cases.ts';
import { formatCount, formatRatio, MB, SATURATED, TARGETS } from './figures.ts';
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
  TICKS_PER_SECOND,
} from './proc.ts';
import { interleave, median, voidReason } from './stats.ts';
import { launch, serverEnv, waitForLog, type LaunchContext, type RunningServer } from './targets.ts';
import { findWrk, WrkGenerator } from './wrk.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_SCRIPT = join(ROOT, 'dist/server/cli.js');
const PROXY_SCRIPT = join(ROOT, 'dist/proxy/cli.js');
/** The floor of any Node proxy: forwarding alone, nothing judged (bench/peers/bare-proxy.mjs). */
const BARE_PROXY_SCRIPT = join(ROOT, 'bench/peers/bare-proxy.mjs');
const API_KEYS = join(ROOT, 'fixtures/api-keys.json');
/** The fixture's enterprise key with limits of 10^9/min: the limiter counts every request and refuses none. */
export const PROXY_CASE_KEY = 'test-load-key';
const START_TIMEOUT_MS = 60_000;

/** What issue 29 asks of judging, beside the generator's headroom every case needs. */
export const PROXY_TARGETS = {
  /** Proxy CPU per request over the server's, in the same round. */
  cpuOverServer: 1.0,
  /** Proxy RSS after the last round over after the first, per fresh proxy. */
  rssGrowthBytes: 20 * MB,
  /** Throughput via the proxy over direct, when the proxy has a core of its own. */
  throughputOverDirect: 0.8,
  throughputConnections: 32,
} as const;

export interface ProxyCaseOptions {
  rounds: number;
  /** Whole seconds per measured round. */
  duration: number;
  /** Unmeasured seconds, direct and via the proxy, before the first round of each connection count. */
  warmup: number;
  connections: readonly number[];
  pin: boolean;
  keep: boolean;
}

export interface ProxyRound {
  connections: number;
  round: number;
  /** proxy: adoption-kit proxy; bare: the same forwarding with nothing judged, the floor. */
  via: 'direct' | 'proxy' | 'bare';
  ok: number;
  seconds: number;
  rps: number;
  /** Answers wrk saw outside 200-399, plus socket errors and timeouts. */
  wrong: number;
  void?: string | undefined;
  serverMsPerRequest: number;
  /** Null in a direct round. */
  proxyMsPerRequest: number | null;
  /** The share of its core wrk used. */
  wrkBusy: number;
  foreignCores: number;
  /** The proxy's RSS at the end of the round; null in a direct round. */
  proxyRssBytes: number | null;
}

export interface ProxySeries {
  connections: number;
  rounds: ProxyRound[];
  directRps: number | null;
  proxyRps: number | null;
  /** Via the proxy over direct, the median of the rounds' ratios (rounds both measured cleanly). */
  throughputRatio: number | null;
  serverMsDirect: number | null;
  serverMsViaProxy: number | null;
  proxyMs: number | null;
  /** Proxy CPU per request over the server's in the same round, median over the clean proxy rounds. */
  cpuRatio: number | null;
  /** The bare forwarding floor's CPU per request, and over the server's in the same round. */
  bareMs: number | null;
  bareRatio: number | null;
  /** RSS after the last proxy round minus after the first. */
  rssGrowthBytes: number | null;
  findings: { server: number; client: number; lines: string[] };
  /** The null server at this connection count: the generator's ceiling. */
  ceiling: { nullRps: number; wrkBusy: number; ceiling: number } | null;
  /** The ceiling over the fastest clean round of the series. */
  headroom: number | null;
}

export interface ProxyCaseReport {
  settings: ProxyCaseOptions & { generator: string; layout: string; proxyOwnCore: boolean; build: string };
  series: ProxySeries[];
  skipped?: string;
}

export interface ProxyVerdict {
  what: string;
  met: boolean | null;
  detail: string;
}

/** The proxy prints one line per finding as it happens (proxy/report.ts findingLine). */
const FINDING_LINE = /^ *\+[\d.]+ s {2}\S+ +(server|client) +(MUST|SHOULD) +\S/;

export function countFindings(output: string): ProxySeries['findings'] {
  const found = { server: 0, client: 0, lines: [] as string[] };
  for (const line of output.split('\n')) {
    const m = FINDING_LINE.exec(line);
    if (!m) continue;
    found[m[1] as 'server' | 'client']++;
    if (found.lines.length < 10) found.lines.push(line.trim());
  }
  return found;
}

const msPer = (ticks: number, ok: number) => (ok > 0 ? (1000 * ticks) / TICKS_PER_SECOND / ok : Number.NaN);
const medianOrNull = (values: number[]) => {
  const finite = values.filter(Number.isFinite);
  return finite.length ? median(finite) : null;
};

/** The figures of one connection count from its rounds. */
export function summarizeSeries(connections: number, rounds: ProxyRound[], findings: ProxySeries['findings'], ceiling: ProxySeries['ceiling']): ProxySeries {
  const clean = rounds.filter((r) => !r.void);
  const direct = clean.filter((r) => r.via === 'direct');
  const proxied = clean.filter((r) => r.via === 'proxy');
  const bare = clean.filter((r) => r.via === 'bare');
  const directByRound = new Map(direct.map((r) => [r.round, r]));
  const paired = proxied.filter((r) => directByRound.has(r.round)).map((r) => r.rps / directByRound.get(r.round)!.rps);
  const rss = rounds.filter((r) => r.via === 'proxy' && r.proxyRssBytes !== null).map((r) => r.proxyRssBytes!);
  const fastest = Math.max(0, ...clean.map((r) => r.rps));
  return {
    connections,
    rounds,
    directRps: medianOrNull(direct.map((r) => r.rps)),
    proxyRps: medianOrNull(proxied.map((r) => r.rps)),
    throughputRatio: medianOrNull(paired),
    serverMsDirect: medianOrNull(direct.map((r) => r.serverMsPerRequest)),
    serverMsViaProxy: medianOrNull(proxied.map((r) => r.serverMsPerRequest)),
    proxyMs: medianOrNull(proxied.map((r) => r.proxyMsPerRequest ?? Number.NaN)),
    cpuRatio: medianOrNull(proxied.map((r) => (r.proxyMsPerRequest ?? Number.NaN) / r.serverMsPerRequest)),
    bareMs: medianOrNull(bare.map((r) => r.proxyMsPerRequest ?? Number.NaN)),
    bareRatio: medianOrNull(bare.map((r) => (r.proxyMsPerRequest ?? Number.NaN) / r.serverMsPerRequest)),
    rssGrowthBytes: rss.length >= 2 ? rss[rss.length - 1]! - rss[0]! : null,
    findings,
    ceiling,
    headroom: ceiling && fastest > 0 ? ceiling.ceiling / fastest : null,
  };
}

/** Each target of issue 29 met, missed, or not measured (null). */
export function proxyVerdicts(report: ProxyCaseReport): ProxyVerdict[] {
  const out: ProxyVerdict[] = [];
  const each = (f: (s: ProxySeries) => string) => report.series.map(f).join(', ');
  const all = (ok: (s: ProxySeries) => boolean | null) => {
    const values = report.series.map(ok);
    return values.some((v) => v === null) ? null : values.every(Boolean);
  };
  out.push({
    what: 'no server finding on the reference server',
    met: report.series.length ? report.series.every((s) => s.findings.server === 0) : null,
    detail: each((s) => `${s.findings.server} at ${s.connections}`),
  });
  out.push({
    what: `proxy RSS growth from the first to the last round under ${PROXY_TARGETS.rssGrowthBytes / MB} MB`,
    met: all((s) => (s.rssGrowthBytes === null ? null : s.rssGrowthBytes < PROXY_TARGETS.rssGrowthBytes)),
    detail: each((s) => `${s.rssGrowthBytes === null ? '-' : `${signedMb(s.rssGrowthBytes)} MB`} at ${s.connections}`),
  });
  out.push({
    what: `proxy CPU per request at most ${PROXY_TARGETS.cpuOverServer.toFixed(1)}x the server's`,
    met: all((s) => (s.cpuRatio === null ? null : s.cpuRatio <= PROXY_TARGETS.cpuOverServer)),
    detail: each((s) => `${s.cpuRatio === null ? '-' : formatRatio(s.cpuRatio)} at ${s.connections}`),
  });
  const at = report.series.find((s) => s.connections === PROXY_TARGETS.throughputConnections);
  out.push({
    what: `throughput via the proxy at least ${PROXY_TARGETS.throughputOverDirect}x direct at ${PROXY_TARGETS.throughputConnections} connections`,
    met: !at || at.throughputRatio === null || !report.settings.proxyOwnCore ? null : at.throughputRatio >= PROXY_TARGETS.throughputOverDirect,
    detail: `${at?.throughputRatio == null ? 'not measured' : formatRatio(at.throughputRatio)}${
      report.settings.proxyOwnCore ? '' : ' (the proxy shares its core with wrk here: not the condition of the target, which wants a core of its own)'
    }`,
  });
  out.push({
    what: `load generator headroom at least ${TARGETS.headroom}x`,
    met: all((s) => (s.headroom === null ? null : s.headroom >= TARGETS.headroom)),
    detail: each((s) => `${s.headroom === null ? '-' : formatRatio(s.headroom, 1)} at ${s.connections}`),
  });
  return out;
}

const signedMb = (bytes: number) => `${bytes >= 0 ? '+' : ''}${(bytes / MB).toFixed(1)}`;
const fixed = (v: number | null, digits = 3) => (v === null || !Number.isFinite(v) ? '-' : v.toFixed(digits));

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function renderProxyCase(report: ProxyCaseReport): string {
  const s = report.settings;
  const lines = [
    `proxy case: the reference server (memory store, key ${PROXY_CASE_KEY}) alone and behind adoption-kit proxy, GET ${LIST_PATH}; ` +
      `${s.duration} s x ${s.rounds} rounds per connection count, ${s.warmup} s warm-up; ${s.generator}; ${s.layout}`,
  ];
  if (report.skipped) return `${lines[0]}\nskipped: ${report.skipped}\n`;
  for (const series of report.series) {
    lines.push('', `${series.connections} connections`);
    const rows = [['round', 'via', 'req/s', 'non-2xx', 'server ms/req', 'proxy ms/req', 'proxy/server', 'wrk core', 'proxy RSS MB', 'other cores']];
    for (const r of series.rounds) {
      rows.push([
        String(r.round),
        r.via,
        formatCount(r.rps),
        String(r.wrong),
        fixed(r.serverMsPerRequest),
        fixed(r.proxyMsPerRequest),
        r.proxyMsPerRequest === null ? '-' : formatRatio(r.proxyMsPerRequest / r.serverMsPerRequest),
        `${(r.wrkBusy * 100).toFixed(0)}%`,
        r.proxyRssBytes === null ? '-' : (r.proxyRssBytes / MB).toFixed(1),
        r.foreignCores.toFixed(2),
      ]);
    }
    lines.push(table(rows));
    for (const r of series.rounds) if (r.void) lines.push(`  round ${r.round} ${r.via} is VOID: ${r.void}`);
    const count = (v: number | null) => (v === null ? '-' : formatCount(v));
    lines.push(
      `  rate: direct ${count(series.directRps)} req/s, via the proxy ${count(series.proxyRps)} req/s: ${series.throughputRatio === null ? '-' : formatRatio(series.throughputRatio)} of direct (paired by round)`,
      `  CPU per request: server ${fixed(series.serverMsDirect)} ms direct, ${fixed(series.serverMsViaProxy)} ms via the proxy; proxy ${fixed(series.proxyMs)} ms: ` +
        `${series.cpuRatio === null ? '-' : formatRatio(series.cpuRatio)} the server's (same rounds)`,
      `  forwarding alone (bench/peers/bare-proxy.mjs, nothing judged): ${fixed(series.bareMs)} ms: ${series.bareRatio === null ? '-' : formatRatio(series.bareRatio)} the server's; ` +
        `the judging adds ${series.proxyMs === null || series.bareMs === null ? '-' : fixed(series.proxyMs - series.bareMs)} ms`,
      `  proxy RSS: ${series.rssGrowthBytes === null ? '-' : `${signedMb(series.rssGrowthBytes)} MB`} from the first round to the last`,
      `  findings the proxy printed: ${series.findings.server} server, ${series.findings.client} client`,
      ...series.findings.lines.map((l) => `    ${l}`),
      series.ceiling
        ? `  load generator: null server ${formatCount(series.ceiling.nullRps)} req/s with wrk at ${(series.ceiling.wrkBusy * 100).toFixed(0)}% of its core, ` +
            `ceiling ${series.ceiling.wrkBusy < SATURATED ? 'about ' : ''}${formatCount(series.ceiling.ceiling)} req/s: headroom ${series.headroom === null ? '-' : formatRatio(series.headroom, 1)} over the fastest round`
        : '  load generator: ceiling not measured',
    );
  }
  lines.push('', 'targets (issue 29):');
  for (const v of proxyVerdicts(report)) lines.push(`  ${v.met === null ? 'n/a   ' : v.met ? 'met   ' : 'MISSED'} ${v.what}: ${v.detail}`);
  return `${lines.join('\n')}\n`;
}

interface Pids {
  server: number;
  proxy?: number | undefined;
}

/** One wrk run with the CPU of the server, the proxy, wrk and the rest of the machine meanwhile. */
async function measure(generator: LoadGenerator, url: string, connections: number, seconds: number, pids: Pids) {
  const machineBefore = machineTicks();
  const serverBefore = processTicks(pids.server);
  const proxyBefore = pids.proxy ? processTicks(pids.proxy) : 0;
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
  const proxy = pids.proxy ? processTicks(pids.proxy) - proxyBefore : 0;
  const own = processTicks(process.pid) - ownBefore;
  const wrk = Number.isFinite(load.generatorCpuSeconds) ? load.generatorCpuSeconds * TICKS_PER_SECOND : 0;
  return {
    load,
    serverTicks: server,
    proxyTicks: proxy,
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
  const child = spawnChild({ command: process.execPath, args, cpu, env: serverEnv(), output: fd, cwd: dir, group: true });
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
    const nullServer = await launch('null', { kind: 'null' }, nullContext(dir, pinning, cpus));
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

/** The null server needs only a directory and the cores from a launch context. */
function nullContext(dir: string, pinning: ReturnType<typeof choosePinning>, cpus: number[]): LaunchContext {
  return {
    dir,
    pinning,
    cpus,
    apiKey: PROXY_CASE_KEY,
    apiKeysFile: API_KEYS,
    redisUrl: '',
    redisPrefix: '',
    databaseUrl: undefined,
    cpuProfDir: undefined,
    stores: new Map(),
    seeds: new Map(),
    referenceFlags: [],
    referenceNodeFlags: [],
    canned: undefined,
  };
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
            `${r.proxyMsPerRequest === null ? '' : `, proxy ${fixed(r.proxyMsPerRequest)} ms/req, RSS ${((r.proxyRssBytes ?? 0) / MB).toFixed(1)} MB`}${r.void ? `  VOID: ${r.void}` : ''}`,
        );
      }
    }
    return summarizeSeries(connections, rounds, countFindings(readFileSync(proxy.logFile, 'utf8')), ceiling);
  } finally {
    // The findings are read; the report the proxy builds at exit over its whole history is not needed.
    if (proxy) await stopChild(proxy.child, 'SIGKILL');
    if (bare) await stopChild(bare.child);
    if (behindBare) await stopChild(behindBare.child);
    await stopChild(behind.child);
  }
}
