// What a run prints: the table, the headroom, the ratios and the targets, and the dated section
// `--results` adds to bench/RESULTS.md. Figures come from figures.ts and verdicts.ts; nothing is
// computed here.
import { allCpu, DISTURBED_CORES, formatCount, formatRatio, MB, SATURATED, TARGETS } from './figures.ts';
import type { BenchReport, CaseResult, Headroom, ServerCoreCheck, WorkersProjection } from './report.ts';
import { SETTLED } from './settle.ts';

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
/** A share as a whole percentage; below 1% with one decimal, so that the benchmark's small footprint still shows. */
const percent = (share: number) => (share < 0.01 ? `${(share * 100).toFixed(1)}%` : `${Math.round(share * 100)}%`);

function pad(cells: string[][], rightAligned: ReadonlySet<number>): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function badCell(c: CaseResult): string {
  const s = c.summary!;
  const bad = Object.entries(s.unexpected).map(([code, n]) => `${n}x${code}`);
  if (s.errors) bad.push(`${s.errors} socket errors`);
  if (s.timeouts) bad.push(`${s.timeouts} timeouts`);
  for (const d of c.durability ?? []) if (!d.ok) bad.push(d.problem ?? 'not durable');
  return bad.length ? bad.join(', ') : '0';
}

export function headroomLine(h: Headroom, generator: string): string {
  if (h.nullRps === null) return `load generator headroom: not measured (${h.why})`;
  const busy = h.generatorBusy === null ? 'its CPU unknown' : `${generator} at ${(h.generatorBusy * 100).toFixed(0)}% of its core`;
  const ceiling =
    h.generatorBusy !== null && h.generatorBusy < SATURATED
      ? `ceiling about ${formatCount(h.ceiling!)} req/s`
      : `ceiling ${formatCount(h.ceiling!)} req/s (saturated)`;
  const fastest = h.fastest
    ? `; fastest server ${h.fastest.id} ${formatCount(h.fastest.rps)} req/s: headroom ${formatRatio(h.headroom!, 1)} (at least ${TARGETS.headroom}x wanted)`
    : '';
  return `load generator headroom: null server ${formatCount(h.nullRps)} req/s with ${busy}, ${ceiling}${fastest}`;
}

export function renderText(report: BenchReport): string {
  const s = report.settings;
  const lines: string[] = [];
  lines.push(
    `adoption-store-kit bench: ${s.connections} connections, ${s.duration} s x ${s.rounds} interleaved rounds per case, ` +
      `${s.warmup} s warm-up; ${report.environment.cpus} x ${report.environment.cpuModel}, node ${report.environment.node}; ` +
      (s.pinning ? `servers on cpu ${s.pinning.server}, load generator on cpu ${s.pinning.load}` : 'not pinned'),
  );
  lines.push(`load generator: ${s.generator.description}; reference server: ${s.build}`);
  if (s.referenceFlags.length || s.referenceNodeFlags.length) {
    lines.push(
      `NOTE: reference servers ran with serve flags [${s.referenceFlags.join(' ')}] and node flags [${s.referenceNodeFlags.join(' ')}]: not the production stack.`,
    );
  }
  lines.push('');
  const header = [
    '#',
    'case',
    'what',
    'req/s',
    'rounds min-max',
    'core shared',
    'p50 ms',
    'p99 ms',
    'peak RSS MB',
    'bytes/resp',
    'CPU us/req',
    'PG us/req',
    'Redis us/req',
    'PG stmt/req',
    'Redis cmd/req',
    'gen CPU',
    'others CPU',
    'clean',
    'bad',
  ];
  const perRequest = (n: number | null, digits: number) => (n === null || !Number.isFinite(n) ? '-' : digits === 0 ? formatCount(n) : n.toFixed(digits));
  const rows = report.cases.map((c) => {
    const v = c.summary;
    if (!v) return [c.label, c.id, c.title, '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', `skipped: ${c.skipped ?? 'not run'}`];
    const rates = v.perRound.map((r) => r.rps);
    const rounds = rates.length ? `${formatCount(Math.min(...rates))}-${formatCount(Math.max(...rates))}` : '-';
    const shared = v.coreOthersMax !== null && v.coreBystandersMax !== null ? percent(v.coreOthersMax + v.coreBystandersMax) : '-';
    return [
      c.label,
      c.id,
      c.title,
      v.cleanRounds ? formatCount(v.rps) : '-',
      rounds,
      shared,
      ms(v.p50),
      ms(v.p99),
      c.peakRssBytes === null ? '-' : (c.peakRssBytes / MB).toFixed(1),
      v.cleanRounds ? formatCount(v.bytesPerResponse) : '-',
      Number.isFinite(v.cpuMicrosPerRequest) ? formatCount(v.cpuMicrosPerRequest) : '-',
      perRequest(v.postgresMicrosPerRequest, 0),
      perRequest(v.redisMicrosPerRequest, 0),
      perRequest(v.postgresPerRequest, 2),
      perRequest(v.redisPerRequest, 2),
      Number.isFinite(v.generatorBusy) && v.cleanRounds ? v.generatorBusy.toFixed(2) : '-',
      v.foreignCoresMax.toFixed(2),
      `${v.cleanRounds}/${v.cleanRounds + v.voidRounds.length}`,
      badCell(c),
    ];
  });
  lines.push(pad([header, ...rows], new Set([3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])));
  lines.push(...serverCoreLines(report.serverCore, s.pinning?.server));
  const disturbed = report.cases.filter((c) => (c.summary?.foreignCoresMax ?? 0) > DISTURBED_CORES);
  if (disturbed.length) {
    lines.push(
      `WARNING: other processes kept up to ${Math.max(...disturbed.map((c) => c.summary!.foreignCoresMax)).toFixed(2)} of ` +
        `${report.environment.cpus} cores busy during ${disturbed.map((c) => c.id).join(', ')}: those figures are disturbed; rerun on a quiet machine.`,
    );
  }
  for (const c of report.cases) for (const v of c.summary?.voidRounds ?? []) lines.push(`VOID: ${c.id} round ${v.round}: ${v.reason}`);
  for (const c of report.cases) if (c.summary && c.summary.cleanRounds === 0) lines.push(`NO CLEAN ROUND: ${c.id}: no figure of it is used`);
  lines.push('');
  const h = report.headroom;
  lines.push(headroomLine(h, s.generator.name));
  if (h.headroom !== null && h.headroom < TARGETS.headroom) {
    lines.push(
      `WARNING: the load generator's headroom is below ${TARGETS.headroom}x: the fastest servers may be measured at the generator's limit, and every ratio against them is compressed.`,
    );
  }
  if (h.nearSaturation.length)
    lines.push(`WARNING: the load generator used more than ${(100 / TARGETS.headroom).toFixed(0)}% of its core in ${h.nearSaturation.join(', ')}.`);
  lines.push('');
  const r = report.ratios;
  // Cut like the targets' figures, so that the table and the verdicts never disagree in the last digit;
  // a ratio whose rounds do not agree is marked, never quoted alone.
  const show = (v: number | null, digits = 2, name?: string) =>
    v === null ? '-' : `${formatRatio(v, digits).slice(0, -1)}${name && r.unsettled.includes(name) ? '?' : ''}`;
  const peers = (table: 'list' | 'get' | 'listByCpu' | 'getByCpu') =>
    (['hapi', 'node', 'prism', 'jsonServer'] as const).map((peer) => show(r[table][peer], peer === 'hapi' || peer === 'node' ? 2 : 1, `${table}.${peer}`));
  const ratioRows = [
    ['reference over', 'hapi', 'node', 'Prism', 'json-server', ''],
    ['list', ...peers('list'), 'by req/s'],
    ['get', ...peers('get'), 'by req/s'],
    ['list', ...peers('listByCpu'), 'by server CPU per request'],
    ['get', ...peers('getByCpu'), 'by server CPU per request'],
  ];
  lines.push(pad(ratioRows, new Set([1, 2, 3, 4])));
  const workers = report.cases.find((c) => c.id === 'workers-list');
  lines.push(
    `PostgreSQL/file store: list ${show(r.postgresOverFileList, 2, 'postgresOverFileList')}, create ${show(r.postgresOverFileCreate, 2, 'postgresOverFileCreate')}; ` +
      `Redis limiter/memory limiter (PostgreSQL) ${show(r.redisOverMemory, 2, 'redisOverMemory')}; ` +
      `--workers 2/one instance ${show(r.workersOverOne, 2, 'workersOverOne')}${workers?.cpus ? ` (workers on cpu ${workers.cpus})` : ''}`,
  );
  if (r.floorOverHapi.list !== null || r.floorOverHapi.get !== null) {
    lines.push(
      `no-op features floor/bare hapi: list ${show(r.floorOverHapi.list, 2, 'floorOverHapi.list')}, get ${show(r.floorOverHapi.get, 2, 'floorOverHapi.get')}; ` +
        `reference/floor: list ${show(r.referenceOverFloor.list, 2, 'referenceOverFloor.list')}, get ${show(r.referenceOverFloor.get, 2, 'referenceOverFloor.get')} (by req/s)`,
    );
  }
  lines.push(...scaleOutLines(report));
  if ([r.listP99Growth, r.deepP99Growth].some((v) => v !== null)) {
    lines.push(
      `1,000 -> 100,000 pets: p99 x${show(r.listP99Growth)} first page, x${show(r.deepP99Growth)} mid-store page; ` +
        `server CPU per request x${show(r.listCpuGrowth, 2, 'listCpuGrowth')} first page, x${show(r.deepCpuGrowth, 2, 'deepCpuGrowth')} mid-store page`,
    );
  }
  if (r.unsettled.length) lines.push(`?: ${unsettledMeaning()}`);
  for (const c of report.cases)
    for (const d of c.durability ?? [])
      lines.push(
        `${c.id}: ${formatCount(d.acknowledged)} acknowledged creates, store ${formatCount(d.before)} -> ${formatCount(d.after)} pets after SIGKILL` +
          (d.ok ? ` (all durable${d.idsChecked ? ', every acknowledged id found once' : ''}; ${formatCount(d.unacknowledged)} in flight)` : `: ${d.problem}`),
      );
  for (const note of report.notes) lines.push(`note: ${note}`);
  lines.push('');
  lines.push(
    pad([['target', 'measured', 'verdict'], ...report.targets.map((t) => [t.target, t.measured, t.why ? `${t.verdict}: ${t.why}` : t.verdict])], new Set()),
  );
  return lines.join('\n') + '\n';
}

const unsettledMeaning = () =>
  `not settled: fewer than ${SETTLED.rounds} rounds in common, rounds more than ${Math.round(SETTLED.spread * 100)}% apart, ` +
  `or something else using more than ${SETTLED.shared.toFixed(2)} of a core in a round (bench/README.md)`;

/** The check that the harness leaves each server its core: what else ran there while the servers were measured. */
export function serverCoreLines(check: ServerCoreCheck | null, cores: string | undefined): string[] {
  if (!check || cores === undefined)
    return ["servers not pinned: what ran beside them is known only machine-wide ('others CPU'), and that is what a ratio is settled by"];
  const lines = [
    `servers' core (cpu ${cores}), over every clean round: the benchmark's idle servers took at most ${percent(check.bystanders.share)} of it ` +
      `(${check.bystanders.id}), other processes at most ${percent(check.others.share)} (${check.others.id})`,
  ];
  if (check.shared.length) {
    lines.push(
      `WARNING: something else used more than ${SETTLED.shared.toFixed(2)} of a core (of the server's, or anywhere on the machine) ` +
        `in a round of ${check.shared.join(', ')}: ratios involving them are not settled; rerun on a quiet machine.`,
    );
  }
  return lines;
}

/** Every process's CPU and round trips per request of the scale-out cases, against the file store's list, and the projection. */
function scaleOutLines(report: BenchReport): string[] {
  const lines: string[] = [];
  const file = report.cases.find((c) => c.id === 'ref-list');
  const fileCpu = file?.summary?.cleanRounds ? file.summary.cpuMicrosPerRequest : undefined;
  for (const c of report.cases) {
    const v = c.summary;
    if (!v?.cleanRounds || (v.postgresMicrosPerRequest === null && v.redisMicrosPerRequest === null)) continue;
    const parts = [`server ${formatCount(v.cpuMicrosPerRequest)}`];
    if (v.postgresMicrosPerRequest !== null) parts.push(`PostgreSQL ${formatCount(v.postgresMicrosPerRequest)}`);
    if (v.redisMicrosPerRequest !== null) parts.push(`Redis ${formatCount(v.redisMicrosPerRequest)}`);
    const all = allCpu(c)!;
    const over =
      fileCpu && c.kind === 'list'
        ? ` (${formatRatio(v.cpuMicrosPerRequest / fileCpu, 1)} server, ${formatRatio(all / fileCpu, 1)} all over ref-list's ${formatCount(fileCpu)} us)`
        : '';
    const trips = [
      v.postgresPerRequest !== null ? `${v.postgresPerRequest.toFixed(2)} PostgreSQL statements` : '',
      v.redisPerRequest !== null ? `${v.redisPerRequest.toFixed(2)} Redis commands` : '',
    ].filter(Boolean);
    lines.push(`${c.id}: ${parts.join(' + ')} = ${formatCount(all)} us CPU per request${over}${trips.length ? `; ${trips.join(', ')} per request` : ''}`);
  }
  if (report.projection) lines.push(...projectionLines(report.projection));
  return lines;
}

function projectionLines(p: WorkersProjection): string[] {
  const rows = p.rows.map((r) => `${r.workers}: ${formatCount(r.rps)}/s on ${r.cores.toFixed(1)} cores${r.limitedBy === 'redis' ? ' (Redis-bound)' : ''}`);
  return [
    `PROJECTION, not measured: n workers with a core each and cores to spare for PostgreSQL, from ${p.from}'s CPU per request ` +
      `(server ${formatCount(p.serverMicros)} + PostgreSQL ${formatCount(p.postgresMicros)} + Redis ${formatCount(p.redisMicros)} us)` +
      (p.redisCeiling !== null ? `; Redis's one thread caps it at ${formatCount(p.redisCeiling)}/s` : ''),
    `  ${rows.join('; ')}`,
  ];
}

/** The dated section `--results` adds to the results file; `profile` is a rendered profile table, if any. */
export function renderResultsSection(report: BenchReport, profile?: string): string {
  const s = report.settings;
  const date = report.startedAt.slice(0, 16).replace('T', ' ');
  const h = report.headroom;
  const headroom =
    h.headroom === null
      ? 'headroom not measured'
      : `headroom ${formatRatio(h.headroom, 1)}${h.headroom < TARGETS.headroom ? ' (below ${TARGETS.headroom}x: ratios compressed)' : ''}`;
  const parts = [
    `## ${date} UTC: ${s.generator.name}, ${report.cases.length} cases`,
    '',
    `- machine: ${report.environment.cpus} x ${report.environment.cpuModel}, node ${report.environment.node}, ${report.environment.platform}`,
    `- load generator: ${s.generator.description}; ${headroom}`,
    `- command: \`${s.command}\``,
    '',
    '```',
    renderText(report).trimEnd(),
    '```',
  ];
  if (profile) parts.push('', profile.trimEnd());
  return parts.join('\n') + '\n';
}

/** The results file with `section` as its newest run: after the title and intro, before the first dated section. */
export function insertSection(existing: string | undefined, section: string): string {
  const intro = '# Benchmark results\n\nDated runs of `npm run bench`, newest first. Each names the machine, the load generator and the command.\n';
  const text = existing && existing.trim() ? existing : intro;
  const at = text.search(/^## /m);
  if (at < 0) return `${text.trimEnd()}\n\n${section}`;
  return `${text.slice(0, at)}${section}\n${text.slice(at)}`;
}
