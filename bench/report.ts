// The results of one run: the JSON document written by `--json`, the printed table, the ratios
// and the verdict on each of the targets. Pure, so that every verdict is tested.
import type { CaseId, ServerId } from './cases.ts';
import { ratio, type CaseSummary } from './stats.ts';

export interface Durability {
  /** Pets in the store when the round started. */
  before: number;
  /** 201 responses received (warm-up and measured). */
  acknowledged: number;
  /** Pets in the store file read back after the server was killed with SIGKILL. */
  after: number;
  ok: boolean;
}

export interface CaseResult {
  id: CaseId;
  label: string;
  title: string;
  server: ServerId;
  method: 'GET' | 'POST';
  path: string;
  /** null when the case did not run (see `skipped`). */
  summary: CaseSummary | null;
  peakRssBytes: number | null;
  skipped?: string | undefined;
  durability?: Durability[] | undefined;
}

export interface RunSettings {
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  pinning: { server: string; load: string } | null;
  /** Non-empty only in a run that measures a component's cost; such a run is not the production stack. */
  referenceOverrides: Record<string, unknown>;
  referenceNodeFlags: string[];
}

export type Verdict = 'met' | 'missed' | 'not measured';

export interface TargetCheck {
  target: string;
  measured: string;
  verdict: Verdict;
  why?: string | undefined;
}

export interface Ratios {
  referenceOverHapi: number | null;
  referenceOverNode: number | null;
  referenceOverPrism: number | null;
  redisOverMemory: number | null;
  /** The same three comparisons by server CPU per request (ceiling's cost over the reference's): robust on a busy machine. */
  cpuReferenceOverHapi: number | null;
  cpuReferenceOverNode: number | null;
  cpuReferenceOverPrism: number | null;
  /** p99 at 100,000 pets over p99 at 1,000 pets, first page and mid-store page. */
  listP99Growth: number | null;
  deepP99Growth: number | null;
  /** The same growth in server CPU per request: the steadier sign of work that grows with the store. */
  listCpuGrowth: number | null;
  deepCpuGrowth: number | null;
}

export interface BenchReport {
  tool: 'adoption-store-kit bench';
  startedAt: string;
  finishedAt: string;
  environment: { node: string; platform: string; cpus: number; cpuModel: string };
  settings: RunSettings;
  cases: CaseResult[];
  ratios: Ratios;
  targets: TargetCheck[];
}

export const TARGETS = {
  referenceOverHapi: 0.6,
  referenceOverPrism: 10,
  postPerSecond: 2000,
  postConnections: 64,
  rssBytesAt100k: 150 * 1e6,
  /** "p99 does not grow": the 100,000-pet p99 may exceed the 1,000-pet p99 by run-to-run noise only. */
  p99Growth: 1.25,
} as const;

const MB = 1e6;
/** Above this many cores taken by other processes in a round, the table warns that the figures are disturbed. */
export const DISTURBED_CORES = 0.1;

/** A case whose measurement can be trusted: it ran, and every response had the expected status. */
export function clean(result: CaseResult | undefined): result is CaseResult & { summary: CaseSummary } {
  return (
    result !== undefined &&
    result.summary !== null &&
    result.summary.requests > 0 &&
    Object.keys(result.summary.unexpected).length === 0 &&
    result.summary.errors === 0 &&
    (result.durability ?? []).every((d) => d.ok)
  );
}

function problem(result: CaseResult | undefined, id: string): string {
  if (!result) return `${id} was not selected`;
  if (result.skipped) return `${id} skipped: ${result.skipped}`;
  const s = result.summary;
  if (!s || s.requests === 0) return `${id} got no expected response`;
  const unexpected = Object.entries(s.unexpected).map(([code, n]) => `${n} x ${code}`);
  if (unexpected.length) return `${id} had unexpected statuses: ${unexpected.join(', ')}`;
  if (s.errors) return `${id} had ${s.errors} connection errors`;
  const lost = (result.durability ?? []).find((d) => !d.ok);
  if (lost) return `${id}: the store held ${lost.after} pets after SIGKILL, expected at least ${lost.before + lost.acknowledged}`;
  return `${id} is invalid`;
}

export function computeRatios(cases: readonly CaseResult[]): Ratios {
  const rps = (id: CaseId) => {
    const c = cases.find((x) => x.id === id);
    return clean(c) ? c.summary.rps : undefined;
  };
  const p99 = (id: CaseId) => {
    const c = cases.find((x) => x.id === id);
    return clean(c) ? c.summary.p99 : undefined;
  };
  const cpu = (id: CaseId) => {
    const c = cases.find((x) => x.id === id);
    return clean(c) ? c.summary.cpuMicrosPerRequest : undefined;
  };
  return {
    cpuReferenceOverHapi: ratio(cpu('hapi'), cpu('ref-get')),
    cpuReferenceOverNode: ratio(cpu('node'), cpu('ref-get')),
    cpuReferenceOverPrism: ratio(cpu('prism'), cpu('ref-get')),
    referenceOverHapi: ratio(rps('ref-get'), rps('hapi')),
    referenceOverNode: ratio(rps('ref-get'), rps('node')),
    referenceOverPrism: ratio(rps('ref-get'), rps('prism')),
    redisOverMemory: ratio(rps('ref-redis'), rps('ref-get')),
    listP99Growth: ratio(p99('list-100k'), p99('list-1k')),
    deepP99Growth: ratio(p99('deep-100k'), p99('deep-1k')),
    listCpuGrowth: ratio(cpu('list-100k'), cpu('list-1k')),
    deepCpuGrowth: ratio(cpu('deep-100k'), cpu('deep-1k')),
  };
}

export function checkTargets(cases: readonly CaseResult[], settings: RunSettings, ratios: Ratios): TargetCheck[] {
  const get = (id: CaseId) => cases.find((c) => c.id === id);
  const checks: TargetCheck[] = [];

  const ratioCheck = (target: string, value: number | null, min: number, ids: CaseId[], fmt: (v: number) => string) => {
    if (value === null) {
      const broken = ids.find((id) => !clean(get(id)));
      checks.push({ target, measured: '-', verdict: 'not measured', why: problem(get(broken ?? ids[0]!), broken ?? ids[0]!) });
    } else {
      checks.push({ target, measured: fmt(value), verdict: value >= min ? 'met' : 'missed' });
    }
  };
  ratioCheck(`GET full stack >= ${TARGETS.referenceOverHapi * 100}% of bare hapi`, ratios.referenceOverHapi, TARGETS.referenceOverHapi, ['ref-get', 'hapi'], (v) => `${(v * 100).toFixed(1)}%`);
  ratioCheck(`GET full stack >= ${TARGETS.referenceOverPrism}x Prism`, ratios.referenceOverPrism, TARGETS.referenceOverPrism, ['ref-get', 'prism'], (v) => `${v.toFixed(1)}x`);

  const post = get('ref-post');
  const postTarget = `POST durable >= ${TARGETS.postPerSecond.toLocaleString('en-US')}/s at 10,000 pets, ${TARGETS.postConnections} connections`;
  if (!clean(post)) checks.push({ target: postTarget, measured: '-', verdict: 'not measured', why: problem(post, 'ref-post') });
  else if (settings.connections !== TARGETS.postConnections)
    checks.push({ target: postTarget, measured: `${int(post.summary.rps)}/s`, verdict: 'not measured', why: `run with --connections ${TARGETS.postConnections}` });
  else
    checks.push({ target: postTarget, measured: `${int(post.summary.rps)}/s`, verdict: post.summary.rps >= TARGETS.postPerSecond ? 'met' : 'missed' });

  const big = [get('list-100k'), get('deep-100k')].filter((c): c is CaseResult => c !== undefined && c.peakRssBytes !== null);
  const rssTarget = `server RSS < ${TARGETS.rssBytesAt100k / MB} MB at 100,000 pets`;
  if (big.length === 0) checks.push({ target: rssTarget, measured: '-', verdict: 'not measured', why: 'list-100k / deep-100k not run' });
  else {
    const peak = Math.max(...big.map((c) => c.peakRssBytes!));
    checks.push({ target: rssTarget, measured: `${(peak / MB).toFixed(1)} MB`, verdict: peak < TARGETS.rssBytesAt100k ? 'met' : 'missed' });
  }

  const growth = (target: string, value: number | null, small: CaseId, large: CaseId) => {
    if (value === null) {
      const broken = [small, large].find((id) => !clean(get(id))) ?? small;
      checks.push({ target, measured: '-', verdict: 'not measured', why: problem(get(broken), broken) });
      return;
    }
    const s = get(small)!.summary!;
    const l = get(large)!.summary!;
    checks.push({
      target,
      measured: `${l.p99.toFixed(2)} vs ${s.p99.toFixed(2)} ms (x${value.toFixed(2)})`,
      verdict: value <= TARGETS.p99Growth ? 'met' : 'missed',
    });
  };
  growth(`list p99 at 100,000 <= ${TARGETS.p99Growth}x p99 at 1,000 pets (first page)`, ratios.listP99Growth, 'list-1k', 'list-100k');
  growth(`list p99 at 100,000 <= ${TARGETS.p99Growth}x p99 at 1,000 pets (mid-store page)`, ratios.deepP99Growth, 'deep-1k', 'deep-100k');
  return checks;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

function pad(cells: string[][], rightAligned: ReadonlySet<number>): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells
    .map((row) => row.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd())
    .join('\n');
}

export function renderText(report: BenchReport): string {
  const s = report.settings;
  const lines: string[] = [];
  lines.push(
    `adoption-store-kit bench: ${s.connections} connections, ${s.duration} s x ${s.rounds} interleaved rounds per case, ` +
      `${s.warmup} s warm-up; ${report.environment.cpus} x ${report.environment.cpuModel}, node ${report.environment.node}; ` +
      (s.pinning ? `server on cpu ${s.pinning.server}, load generator on cpu ${s.pinning.load}` : 'not pinned'),
  );
  if (Object.keys(s.referenceOverrides).length || s.referenceNodeFlags.length) {
    lines.push(
      `NOTE: reference servers ran with createServer overrides ${JSON.stringify(s.referenceOverrides)} and node flags ` +
        `[${s.referenceNodeFlags.join(' ')}]: not the production stack.`,
    );
  }
  lines.push('');
  const header = ['#', 'case', 'what', 'req/s', 'rounds min-max', 'p50 ms', 'p99 ms', 'peak RSS MB', 'bytes/resp', 'CPU us/req', 'others CPU', 'bad'];
  const rows = report.cases.map((c) => {
    const x = c.summary;
    if (!x) return [c.label, c.id, c.title, '-', '-', '-', '-', '-', '-', '-', '-', `skipped: ${c.skipped ?? 'not run'}`];
    const bad = Object.entries(x.unexpected).map(([code, n]) => `${n}x${code}`);
    if (x.errors) bad.push(`${x.errors} errors`);
    for (const d of c.durability ?? []) if (!d.ok) bad.push(`lost ${d.before + d.acknowledged - d.after} acked creates`);
    return [
      c.label,
      c.id,
      c.title,
      int(x.rps),
      `${int(Math.min(...x.rpsPerRound))}-${int(Math.max(...x.rpsPerRound))}`,
      ms(x.p50),
      ms(x.p99),
      c.peakRssBytes === null ? '-' : (c.peakRssBytes / MB).toFixed(1),
      int(x.bytesPerResponse),
      Number.isFinite(x.cpuMicrosPerRequest) ? int(x.cpuMicrosPerRequest) : '-',
      x.foreignCoresMax.toFixed(2),
      bad.length ? bad.join(', ') : '0',
    ];
  });
  lines.push(pad([header, ...rows], new Set([3, 5, 6, 7, 8, 9, 10])));
  const disturbed = report.cases.filter((c) => (c.summary?.foreignCoresMax ?? 0) > DISTURBED_CORES);
  if (disturbed.length) {
    lines.push(
      `WARNING: other processes kept up to ${Math.max(...disturbed.map((c) => c.summary!.foreignCoresMax)).toFixed(2)} of ` +
        `${report.environment.cpus} cores busy during ${disturbed.map((c) => c.id).join(', ')}: those figures are disturbed; rerun on a quiet machine.`,
    );
  }
  lines.push('');
  const r = report.ratios;
  const show = (v: number | null, digits = 2) => (v === null ? 'not measured' : v.toFixed(digits));
  lines.push(`reference/hapi  ${show(r.referenceOverHapi)}    reference/node  ${show(r.referenceOverNode)}    reference/Prism  ${show(r.referenceOverPrism, 1)}    (by req/s)`);
  lines.push(`reference/hapi  ${show(r.cpuReferenceOverHapi)}    reference/node  ${show(r.cpuReferenceOverNode)}    reference/Prism  ${show(r.cpuReferenceOverPrism, 1)}    (by server CPU per request)`);
  lines.push(`Redis limiter/memory limiter  ${show(r.redisOverMemory)}`);
  lines.push(
    `1,000 -> 100,000 pets: p99 x${show(r.listP99Growth)} first page, x${show(r.deepP99Growth)} mid-store page; ` +
      `server CPU per request x${show(r.listCpuGrowth)} first page, x${show(r.deepCpuGrowth)} mid-store page`,
  );
  for (const c of report.cases)
    for (const d of c.durability ?? [])
      if (d.ok) lines.push(`${c.id}: ${int(d.acknowledged)} acknowledged creates, store ${int(d.before)} -> ${int(d.after)} pets after SIGKILL (all durable)`);
  lines.push('');
  lines.push(pad([['target', 'measured', 'verdict'], ...report.targets.map((t) => [t.target, t.measured, t.why ? `${t.verdict} (${t.why})` : t.verdict])], new Set()));
  return lines.join('\n') + '\n';
}
