// The figures of the benchmark's proxy case (proxy-case.ts runs it): a connection count's rounds
// summarised by median, each target of issue 29 met or missed, and the report as text. Pure, so
// every figure is tested on made-up rounds.
import { LIST_PATH } from './cases.ts';
import { formatCount, formatRatio, MB, SATURATED, TARGETS } from './figures.ts';
import { median } from './stats.ts';

/** The fixture's enterprise key with limits of 10^9/min: the limiter counts every request and refuses none. */
export const PROXY_CASE_KEY = 'test-load-key';
/** What issue 29 asks of judging, beside the generator's headroom every case needs. */
export const PROXY_TARGETS = {
  /** Proxy CPU per request over the server's, in the same round. */
  cpuOverServer: 1.0,
  /** Proxy RSS after the last round over after the first, per fresh proxy. */
  rssGrowthBytes: 20 * MB,
  /** Throughput via the proxy over direct, when the proxy has a core of its own. */
  throughputOverDirect: 0.8,
  throughputConnections: 32,
  /** Issue 42: the proxy's forwarding thread CPU per request over the bare forwarding proxy's (its one thread doing the same), paired by round. */
  forwardingOverBare: 1.25,
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
  /** Every thread of the proxy (or the bare proxy); null in a direct round. */
  proxyMsPerRequest: number | null;
  /** Its main thread alone, the one that forwards (/proc/<pid>/task/<pid>/stat); null in a direct round. */
  forwardingMsPerRequest: number | null;
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
  /** Each side split by thread: the main (forwarding) thread, and every other one (the judge's worker, V8's and libuv's helpers). */
  threads: {
    proxy: { forwarding: number | null; other: number | null };
    bare: { forwarding: number | null; other: number | null };
    /** The proxy's over the bare proxy's, each the median of the rounds' own ratios (rounds where both were clean). */
    forwardingOverBare: number | null;
    otherOverBare: number | null;
    totalOverBare: number | null;
  };
  /** RSS after the last proxy round minus after the first. */
  rssGrowthBytes: number | null;
  /** `unjudged`: exchanges the proxy's judge could not take (its report at exit says NOT JUDGED); null when it printed no report. */
  findings: { server: number; client: number; lines: string[]; unjudged?: number | null };
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
const FINDING_LINE = /^ *\+[\d.]+ s {2}.+? +(server|client) +(MUST|SHOULD) +\S/;

const NOT_JUDGED = /^NOT JUDGED: (\d+) exchanges/m;
/** The console report at exit (proxy/report.ts formatConsole). */
const REPORTED = /^Traffic through the proxy to /m;

export function countFindings(output: string): ProxySeries['findings'] {
  const unjudged = REPORTED.test(output) ? Number(NOT_JUDGED.exec(output)?.[1] ?? 0) : null;
  const found = { server: 0, client: 0, lines: [] as string[], unjudged };
  for (const line of output.split('\n')) {
    const m = FINDING_LINE.exec(line);
    if (!m) continue;
    found[m[1] as 'server' | 'client']++;
    if (found.lines.length < 10) found.lines.push(line.trim());
  }
  return found;
}

const medianOrNull = (values: number[]) => {
  const finite = values.filter(Number.isFinite);
  return finite.length ? median(finite) : null;
};

const otherMs = (r: ProxyRound) => (r.proxyMsPerRequest ?? Number.NaN) - (r.forwardingMsPerRequest ?? Number.NaN);

/** Each proxy round's figure over the bare proxy's of the same round, by median. */
function pairedOverBare(proxied: ProxyRound[], bare: ProxyRound[], figure: (r: ProxyRound) => number): number | null {
  const bareByRound = new Map(bare.map((r) => [r.round, r]));
  return medianOrNull(proxied.filter((r) => bareByRound.has(r.round)).map((r) => figure(r) / figure(bareByRound.get(r.round)!)));
}

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
    threads: {
      proxy: { forwarding: medianOrNull(proxied.map((r) => r.forwardingMsPerRequest ?? Number.NaN)), other: medianOrNull(proxied.map(otherMs)) },
      bare: { forwarding: medianOrNull(bare.map((r) => r.forwardingMsPerRequest ?? Number.NaN)), other: medianOrNull(bare.map(otherMs)) },
      forwardingOverBare: pairedOverBare(proxied, bare, (r) => r.forwardingMsPerRequest ?? Number.NaN),
      otherOverBare: pairedOverBare(proxied, bare, otherMs),
      totalOverBare: pairedOverBare(proxied, bare, (r) => r.proxyMsPerRequest ?? Number.NaN),
    },
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
    what: "every exchange judged (none past the judge's queue)",
    met: all((s) => (s.findings.unjudged == null ? null : s.findings.unjudged === 0)),
    detail: each((s) => `${s.findings.unjudged == null ? 'no report at exit' : `${s.findings.unjudged} not judged`} at ${s.connections}`),
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
  out.push({
    what: `proxy forwarding thread CPU per request at most ${PROXY_TARGETS.forwardingOverBare}x the bare forwarding proxy's (issue 42; every thread counted: ${each((s) => `${ratioOr(s.threads.totalOverBare)} at ${s.connections}`)})`,
    met: all((s) => (s.threads.forwardingOverBare === null ? null : s.threads.forwardingOverBare <= PROXY_TARGETS.forwardingOverBare)),
    detail: each((s) => `${ratioOr(s.threads.forwardingOverBare)} at ${s.connections}`),
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

const ratioOr = (v: number | null) => (v === null ? '-' : formatRatio(v));
const signedMb = (bytes: number) => `${bytes >= 0 ? '+' : ''}${(bytes / MB).toFixed(1)}`;
export const fixed = (v: number | null, digits = 3) => (v === null || !Number.isFinite(v) ? '-' : v.toFixed(digits));

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
    const rows = [
      [
        'round',
        'via',
        'req/s',
        'non-2xx',
        'server ms/req',
        'proxy ms/req',
        'main thread',
        'other threads',
        'proxy/server',
        'wrk core',
        'proxy RSS MB',
        'other cores',
      ],
    ];
    for (const r of series.rounds) {
      rows.push([
        String(r.round),
        r.via,
        formatCount(r.rps),
        String(r.wrong),
        fixed(r.serverMsPerRequest),
        fixed(r.proxyMsPerRequest),
        fixed(r.forwardingMsPerRequest),
        r.proxyMsPerRequest === null ? '-' : fixed(otherMs(r)),
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
      `  by thread, against the bare proxy in the same rounds: forwarding (main thread) ${fixed(series.threads.proxy.forwarding)} ms against ${fixed(series.threads.bare.forwarding)}: ` +
        `${ratioOr(series.threads.forwardingOverBare)}; other threads (the judge's worker, V8 and libuv helpers) ${fixed(series.threads.proxy.other)} ms against ` +
        `${fixed(series.threads.bare.other)}: ${ratioOr(series.threads.otherOverBare)}; total ${fixed(series.proxyMs)} ms against ${fixed(series.bareMs)}: ${ratioOr(series.threads.totalOverBare)}`,
      `  proxy RSS: ${series.rssGrowthBytes === null ? '-' : `${signedMb(series.rssGrowthBytes)} MB`} from the first round to the last`,
      `  findings the proxy printed: ${series.findings.server} server, ${series.findings.client} client; ` +
        `${series.findings.unjudged == null ? 'no report at exit' : `${series.findings.unjudged} exchanges not judged (its report at exit)`}`,
      ...series.findings.lines.map((l) => `    ${l}`),
      series.ceiling
        ? `  load generator: null server ${formatCount(series.ceiling.nullRps)} req/s with wrk at ${(series.ceiling.wrkBusy * 100).toFixed(0)}% of its core, ` +
            `ceiling ${series.ceiling.wrkBusy < SATURATED ? 'about ' : ''}${formatCount(series.ceiling.ceiling)} req/s: headroom ${series.headroom === null ? '-' : formatRatio(series.headroom, 1)} over the fastest round`
        : '  load generator: ceiling not measured',
    );
  }
  lines.push('', 'targets (issues 29 and 42):');
  for (const v of proxyVerdicts(report)) lines.push(`  ${v.met === null ? 'n/a   ' : v.met ? 'met   ' : 'MISSED'} ${v.what}: ${v.detail}`);
  return `${lines.join('\n')}\n`;
}
