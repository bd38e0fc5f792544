// The results of one run: the JSON document written by `--json`, the load generator's headroom, the
// ratios and the verdict on each of the issue's targets. Pure, so that every verdict is tested;
// render.ts prints them.
import { cpus } from 'node:os';
import type { CaseId, CaseKind, ServerId } from './cases.ts';
import { ratio, type CaseSummary } from './stats.ts';
import type { Durability } from './stores.ts';

export interface CaseResult {
  id: CaseId;
  label: string;
  title: string;
  kind: CaseKind;
  server: ServerId;
  method: 'GET' | 'POST';
  path: string;
  /** null when the case did not run (see `skipped`). */
  summary: CaseSummary | null;
  peakRssBytes: number | null;
  skipped?: string | undefined;
  durability?: Durability[] | undefined;
  /** For reference servers: whether tsx was found in the process (it must not be). */
  tsx?: boolean | undefined;
  /** The cores the server ran on (several for --workers when the machine has them). */
  cpus?: string | undefined;
}

export interface RunSettings {
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  pinning: { server: string; load: string } | null;
  generator: { name: string; version: string; description: string };
  /** How the reference server was run and whether dist/ had to be rebuilt first. */
  build: string;
  /** The command line, as a user would type it. */
  command: string;
  /** Non-empty only in a run that measures a component's cost; such a run is not the production stack. */
  referenceFlags: string[];
  referenceNodeFlags: string[];
}

export type Verdict = 'met' | 'missed' | 'not measured';

export interface TargetCheck {
  target: string;
  measured: string;
  verdict: Verdict;
  why?: string | undefined;
}

export interface Headroom {
  /** The null server's rate: a lower bound of the generator's ceiling. */
  nullRps: number | null;
  /** The share of its core the generator used against the null server. */
  generatorBusy: number | null;
  /** The generator's ceiling on its core: the null rate over that share (the null rate itself when saturated). */
  ceiling: number | null;
  fastest: { id: CaseId; rps: number } | null;
  /** ceiling / fastest server: above TARGETS.headroom the generator is never the bottleneck. */
  headroom: number | null;
  /** Cases in which the generator used more than 1 / TARGETS.headroom of its core. */
  nearSaturation: CaseId[];
  why?: string | undefined;
}

export interface PeerRatios {
  hapi: number | null;
  node: number | null;
  prism: number | null;
  jsonServer: number | null;
}

export interface Ratios {
  /** Reference over each peer, by req/s, for the list and the get. */
  list: PeerRatios;
  get: PeerRatios;
  /** The same by server CPU per request (the peer's cost over the reference's): robust on a busy machine. */
  listByCpu: PeerRatios;
  getByCpu: PeerRatios;
  postgresOverFileList: number | null;
  postgresOverFileCreate: number | null;
  redisOverMemory: number | null;
  workersOverOne: number | null;
  /** The no-op-features floor over bare hapi, and the reference over the floor, by req/s. */
  floorOverHapi: { list: number | null; get: number | null };
  referenceOverFloor: { list: number | null; get: number | null };
  /** Server CPU per request of the scale-out list (PostgreSQL + Redis, one instance) over the file store's. */
  scaleOutCpuOverFile: number | null;
  /** The same with the CPU of every process: server, PostgreSQL backends, Redis. */
  scaleOutAllCpuOverFile: number | null;
  /** p99 at 100,000 pets over p99 at 1,000 pets, first page and mid-store page (store-size cases). */
  listP99Growth: number | null;
  deepP99Growth: number | null;
  listCpuGrowth: number | null;
  deepCpuGrowth: number | null;
}

/** What n workers would carry on a machine with enough cores: a projection from measured CPU, not a measurement. */
export interface WorkersProjection {
  /** The case whose CPU per request it starts from. */
  from: CaseId;
  serverMicros: number;
  postgresMicros: number;
  redisMicros: number;
  /** Redis runs commands on one thread: the rate at which it fills its core. */
  redisCeiling: number | null;
  rows: Array<{ workers: number; rps: number; cores: number; limitedBy: 'workers' | 'redis' }>;
}

export interface BenchReport {
  tool: 'adoption-store-kit bench';
  startedAt: string;
  finishedAt: string;
  environment: { node: string; platform: string; cpus: number; cpuModel: string };
  settings: RunSettings;
  cases: CaseResult[];
  headroom: Headroom;
  ratios: Ratios;
  projection: WorkersProjection | null;
  targets: TargetCheck[];
  notes: string[];
}

export const TARGETS = {
  overHapi: 0.6,
  overPrism: 10,
  overJsonServer: 5,
  createsPerSecond: 5000,
  createConnections: 32,
  rssBytesAt100k: 150 * 1e6,
  /** Below this the load generator may be what limits the fastest server, and every ratio is compressed. */
  headroom: 1.5,
  /** "p99 does not grow": the 100,000-pet p99 may exceed the 1,000-pet p99 by run-to-run noise only. */
  p99Growth: 1.25,
  /** The scale-out list (PostgreSQL + Redis) at most this many times the file store's server CPU per request. */
  scaleOutCpu: 1.5,
  /** Durable creates on PostgreSQL at least this share of the file store's. */
  postgresCreates: 0.9,
  /** --workers 2 on one core at least this share of one instance: the cluster's own overhead. */
  workersOverOne: 0.9,
} as const;

/** Worker counts the projection is given for. */
export const PROJECTED_WORKERS = [1, 2, 4, 8, 16] as const;

export const MB = 1e6;
/** Above this many cores taken by other processes in a round, the table warns that the figures are disturbed. */
export const DISTURBED_CORES = 0.1;
/** A generator busier than this against the null server is taken as saturated: its rate is its ceiling. */
export const SATURATED = 0.95;

/** A case whose figures can be used: it ran, and at least one round was clean. */
export function clean(result: CaseResult | undefined): result is CaseResult & { summary: CaseSummary } {
  return result !== undefined && result.summary !== null && result.summary.cleanRounds > 0 && result.summary.requests > 0;
}

/** Why a case has no figures. */
export function problem(result: CaseResult | undefined, id: string): string {
  if (!result) return `${id} was not selected`;
  if (result.skipped) return `${id} skipped: ${result.skipped}`;
  const s = result.summary;
  if (!s) return `${id} did not run`;
  if (s.cleanRounds === 0 && s.voidRounds.length) return `${id} had no clean round (${s.voidRounds.map((v) => `round ${v.round}: ${v.reason}`).join('; ')})`;
  return `${id} got no expected response`;
}

const find = (cases: readonly CaseResult[], id: CaseId) => cases.find((c) => c.id === id);

export function computeHeadroom(cases: readonly CaseResult[]): Headroom {
  const nearSaturation = cases.filter((c) => clean(c) && c.id !== 'null' && c.summary.generatorBusy > 1 / TARGETS.headroom).map((c) => c.id);
  const fastestCase = cases.filter((c) => c.id !== 'null' && clean(c)).sort((a, b) => b.summary!.rps - a.summary!.rps)[0];
  const fastest = fastestCase ? { id: fastestCase.id, rps: fastestCase.summary!.rps } : null;
  const nul = find(cases, 'null');
  if (!clean(nul)) return { nullRps: null, generatorBusy: null, ceiling: null, fastest, headroom: null, nearSaturation, why: problem(nul, 'null') };
  const busy = nul.summary.generatorBusy;
  const known = Number.isFinite(busy) && busy > 0;
  const ceiling = known && busy < SATURATED ? nul.summary.rps / busy : nul.summary.rps;
  return {
    nullRps: nul.summary.rps,
    generatorBusy: known ? busy : null,
    ceiling,
    fastest,
    headroom: fastest ? ceiling / fastest.rps : null,
    nearSaturation,
    why: fastest ? undefined : 'no other case was measured cleanly',
  };
}

function peerRatios(cases: readonly CaseResult[], kind: 'list' | 'get', by: 'rps' | 'cpu'): PeerRatios {
  const value = (id: CaseId) => {
    const c = find(cases, id);
    return clean(c) ? (by === 'rps' ? c.summary.rps : c.summary.cpuMicrosPerRequest) : undefined;
  };
  const ref = value(`ref-${kind}`);
  // By rate: reference over peer. By CPU per request: peer's cost over the reference's, so both read "higher is better".
  const r = (peer: CaseId) => (by === 'rps' ? ratio(ref, value(peer)) : ratio(value(peer), ref));
  return { hapi: r(`hapi-${kind}`), node: r(`node-${kind}`), prism: r(`prism-${kind}`), jsonServer: r(`json-${kind}`) };
}

export function computeRatios(cases: readonly CaseResult[]): Ratios {
  const rps = (id: CaseId) => {
    const c = find(cases, id);
    return clean(c) ? c.summary.rps : undefined;
  };
  const p99 = (id: CaseId) => {
    const c = find(cases, id);
    return clean(c) ? c.summary.p99 : undefined;
  };
  const cpu = (id: CaseId) => {
    const c = find(cases, id);
    return clean(c) ? c.summary.cpuMicrosPerRequest : undefined;
  };
  return {
    list: peerRatios(cases, 'list', 'rps'),
    get: peerRatios(cases, 'get', 'rps'),
    listByCpu: peerRatios(cases, 'list', 'cpu'),
    getByCpu: peerRatios(cases, 'get', 'cpu'),
    postgresOverFileList: ratio(rps('pg-list'), rps('ref-list')),
    postgresOverFileCreate: ratio(rps('pg-post'), rps('ref-post')),
    redisOverMemory: ratio(rps('pg-redis-list'), rps('pg-list')),
    workersOverOne: ratio(rps('workers-list'), rps('pg-redis-list')),
    floorOverHapi: { list: ratio(rps('floor-list'), rps('hapi-list')), get: ratio(rps('floor-get'), rps('hapi-get')) },
    referenceOverFloor: { list: ratio(rps('ref-list'), rps('floor-list')), get: ratio(rps('ref-get'), rps('floor-get')) },
    scaleOutCpuOverFile: ratio(cpu('pg-redis-list'), cpu('ref-list')),
    scaleOutAllCpuOverFile: ratio(allCpu(find(cases, 'pg-redis-list')), cpu('ref-list')),
    listP99Growth: ratio(p99('list-100k'), p99('list-1k')),
    deepP99Growth: ratio(p99('deep-100k'), p99('deep-1k')),
    listCpuGrowth: ratio(cpu('list-100k'), cpu('list-1k')),
    deepCpuGrowth: ratio(cpu('deep-100k'), cpu('deep-1k')),
  };
}

/** The CPU per request of every process a case used: server, PostgreSQL backends and Redis. */
export function allCpu(c: CaseResult | undefined): number | undefined {
  if (!clean(c)) return undefined;
  return c.summary.cpuMicrosPerRequest + (c.summary.postgresMicrosPerRequest ?? 0) + (c.summary.redisMicrosPerRequest ?? 0);
}

/**
 * What n workers would carry with a core each and enough cores left for PostgreSQL's backends, from
 * the CPU per request measured for the workers (or one instance when they were not measured). Redis
 * runs its commands on one thread, so its CPU per request caps the whole at one core of Redis.
 */
export function projectWorkers(cases: readonly CaseResult[]): WorkersProjection | null {
  const base = [find(cases, 'workers-list'), find(cases, 'pg-redis-list')].find(
    (c) => clean(c) && c.summary.redisMicrosPerRequest !== null && c.summary.postgresMicrosPerRequest !== null,
  );
  if (!clean(base)) return null;
  const serverMicros = base.summary.cpuMicrosPerRequest;
  const postgresMicros = base.summary.postgresMicrosPerRequest!;
  const redisMicros = base.summary.redisMicrosPerRequest!;
  const redisCeiling = redisMicros > 0 ? 1e6 / redisMicros : null;
  const rows = PROJECTED_WORKERS.map((workers) => {
    const byWorkers = (workers * 1e6) / serverMicros;
    const rps = redisCeiling !== null ? Math.min(byWorkers, redisCeiling) : byWorkers;
    return {
      workers,
      rps,
      cores: (rps * (serverMicros + postgresMicros + redisMicros)) / 1e6,
      limitedBy: rps < byWorkers ? ('redis' as const) : ('workers' as const),
    };
  });
  return { from: base.id, serverMicros, postgresMicros, redisMicros, redisCeiling, rows };
}

export const formatCount = (n: number) => Math.round(n).toLocaleString('en-US');
/** A ratio, cut (not rounded) to `digits`, so that a value shown as meeting a target does meet it. */
// The epsilon keeps 0.29 (28.999... hundredths in binary) from being cut to 0.28.
export const formatRatio = (n: number, digits = 2) => `${(Math.floor(n * 10 ** digits + 1e-9) / 10 ** digits).toFixed(digits)}x`;

/** Why a ratio target was missed, from what the run measured: the CPU each side spends per request, and the generator. */
function ratioWhy(reference: CaseResult & { summary: CaseSummary }, peer: CaseResult & { summary: CaseSummary }, headroom: Headroom): string {
  const parts = [
    `${reference.id} ${formatCount(reference.summary.rps)}/s at ${formatCount(reference.summary.cpuMicrosPerRequest)} us server CPU per request, ` +
      `${peer.id} ${formatCount(peer.summary.rps)}/s at ${formatCount(peer.summary.cpuMicrosPerRequest)} us`,
  ];
  if (headroom.headroom !== null && headroom.headroom < TARGETS.headroom)
    parts.push(`generator headroom only ${formatRatio(headroom.headroom, 1)}: ratios compressed`);
  return parts.join('; ');
}

export function checkTargets(cases: readonly CaseResult[], settings: RunSettings, headroom: Headroom): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const ratioTarget = (kind: 'list' | 'get', peer: CaseId, peerName: string, min: number, fmt: (v: number) => string) => {
    const target = `${kind} >= ${min}x ${peerName}`;
    const ref = find(cases, `ref-${kind}`);
    const other = find(cases, peer);
    if (!clean(ref) || !clean(other)) {
      const broken = !clean(ref) ? ref : other;
      checks.push({ target, measured: '-', verdict: 'not measured', why: problem(broken, broken === ref ? `ref-${kind}` : peer) });
      return;
    }
    const value = ref.summary.rps / other.summary.rps;
    const met = value >= min;
    checks.push({ target, measured: fmt(value), verdict: met ? 'met' : 'missed', why: met ? undefined : ratioWhy(ref, other, headroom) });
  };
  for (const kind of ['list', 'get'] as const) {
    ratioTarget(kind, `hapi-${kind}`, 'bare hapi', TARGETS.overHapi, (v) => formatRatio(v));
    ratioTarget(kind, `prism-${kind}`, 'Prism', TARGETS.overPrism, (v) => formatRatio(v, 1));
    ratioTarget(kind, `json-${kind}`, 'json-server', TARGETS.overJsonServer, (v) => formatRatio(v, 1));
  }

  const post = find(cases, 'ref-post');
  const postTarget = `create >= ${formatCount(TARGETS.createsPerSecond)} durable/s, file store, ${TARGETS.createConnections} connections`;
  if (!clean(post)) checks.push({ target: postTarget, measured: '-', verdict: 'not measured', why: problem(post, 'ref-post') });
  else if (settings.connections !== TARGETS.createConnections)
    checks.push({
      target: postTarget,
      measured: `${formatCount(post.summary.rps)}/s`,
      verdict: 'not measured',
      why: `run with --connections ${TARGETS.createConnections}`,
    });
  else {
    const met = post.summary.rps >= TARGETS.createsPerSecond;
    const busy = post.summary.serverBusy;
    const why = met
      ? undefined
      : busy >= 0.9
        ? `the server's core is saturated at ${formatCount(post.summary.cpuMicrosPerRequest)} us of CPU per create`
        : `the server's core was ${(busy * 100).toFixed(0)}% busy (${formatCount(post.summary.cpuMicrosPerRequest)} us of CPU per create): the rest is waiting, for the disk's fdatasync`;
    checks.push({ target: postTarget, measured: `${formatCount(post.summary.rps)}/s`, verdict: met ? 'met' : 'missed', why });
  }

  const rssCase = find(cases, 'list-100k');
  const rssTarget = `RSS < ${TARGETS.rssBytesAt100k / MB} MB at 100,000 pets, compiled, no tsx`;
  if (!rssCase || rssCase.peakRssBytes === null) checks.push({ target: rssTarget, measured: '-', verdict: 'not measured', why: problem(rssCase, 'list-100k') });
  else {
    const peak = rssCase.peakRssBytes;
    const measured = `${(peak / MB).toFixed(1)} MB`;
    if (rssCase.tsx) checks.push({ target: rssTarget, measured, verdict: 'missed', why: 'tsx was found in the server process' });
    else
      checks.push({
        target: rssTarget,
        measured,
        verdict: peak < TARGETS.rssBytesAt100k ? 'met' : 'missed',
        why: peak < TARGETS.rssBytesAt100k ? undefined : `peak VmHWM of the compiled server, start-up and load included`,
      });
  }

  const headroomTarget = `load generator headroom >= ${TARGETS.headroom}x the fastest server`;
  if (headroom.headroom === null) checks.push({ target: headroomTarget, measured: '-', verdict: 'not measured', why: headroom.why });
  else
    checks.push({
      target: headroomTarget,
      measured: formatRatio(headroom.headroom, 1),
      verdict: headroom.headroom >= TARGETS.headroom ? 'met' : 'missed',
      why:
        headroom.headroom >= TARGETS.headroom
          ? undefined
          : `${settings.generator.name} reaches about ${formatCount(headroom.ceiling!)}/s on its core; ${headroom.fastest!.id} ran at ${formatCount(headroom.fastest!.rps)}/s`,
    });

  // The price of scaling out (PostgreSQL + Redis, --workers), when their cases ran.
  type Measured = CaseResult & { summary: CaseSummary };
  const pair = (
    target: string,
    a: CaseId,
    b: CaseId,
    value: (x: Measured, y: Measured) => number,
    met: (v: number) => boolean,
    why: (x: Measured, y: Measured) => string,
  ) => {
    const x = find(cases, a);
    const y = find(cases, b);
    // Only when the scale-out case was selected, as the store-size targets.
    if (!x) return;
    if (!clean(x) || !clean(y)) {
      const broken = !clean(x) ? a : b;
      checks.push({ target, measured: '-', verdict: 'not measured', why: problem(find(cases, broken), broken) });
      return;
    }
    const v = value(x, y);
    checks.push({ target, measured: formatRatio(v), verdict: met(v) ? 'met' : 'missed', why: met(v) ? undefined : why(x, y) });
  };
  const cpuOf = (c: Measured) => `${c.id} ${formatCount(c.summary.cpuMicrosPerRequest)} us`;
  const rateOf = (c: Measured) => `${c.id} ${formatCount(c.summary.rps)}/s`;
  pair(
    `pg-redis-list server CPU per request <= ${TARGETS.scaleOutCpu}x ref-list`,
    'pg-redis-list',
    'ref-list',
    (x, y) => x.summary.cpuMicrosPerRequest / y.summary.cpuMicrosPerRequest,
    (v) => v <= TARGETS.scaleOutCpu,
    (x, y) => `${cpuOf(x)} vs ${cpuOf(y)} server CPU per request`,
  );
  pair(
    `pg-post >= ${TARGETS.postgresCreates}x ref-post`,
    'pg-post',
    'ref-post',
    (x, y) => x.summary.rps / y.summary.rps,
    (v) => v >= TARGETS.postgresCreates,
    (x, y) => `${rateOf(x)} vs ${rateOf(y)} durable creates`,
  );
  pair(
    `--workers 2 >= ${TARGETS.workersOverOne}x one instance, same core`,
    'workers-list',
    'pg-redis-list',
    (x, y) => x.summary.rps / y.summary.rps,
    (v) => v >= TARGETS.workersOverOne,
    (x, y) => `${rateOf(x)} vs ${rateOf(y)}: the cluster's own overhead on one core`,
  );

  // The store-size targets of an earlier issue, when their cases ran.
  const growth = (target: string, small: CaseId, large: CaseId) => {
    const s = find(cases, small);
    const l = find(cases, large);
    if (!s) return;
    if (!clean(s) || !clean(l)) {
      const broken = !clean(s) ? small : large;
      checks.push({ target, measured: '-', verdict: 'not measured', why: problem(find(cases, broken), broken) });
      return;
    }
    const value = l.summary.p99 / s.summary.p99;
    checks.push({
      target,
      measured: `${l.summary.p99.toFixed(2)} vs ${s.summary.p99.toFixed(2)} ms (x${value.toFixed(2)})`,
      verdict: value <= TARGETS.p99Growth ? 'met' : 'missed',
    });
  };
  growth(`list p99 at 100,000 <= ${TARGETS.p99Growth}x p99 at 1,000 pets (first page)`, 'list-1k', 'list-100k');
  growth(`list p99 at 100,000 <= ${TARGETS.p99Growth}x p99 at 1,000 pets (mid-store page)`, 'deep-1k', 'deep-100k');
  return checks;
}

/** The report of a run that has ended: its cases and settings, with the figures derived from them and this machine. */
export function assembleReport(run: { startedAt: Date; cases: CaseResult[]; settings: RunSettings; notes: readonly string[] }): BenchReport {
  const { cases, settings } = run;
  const notes = [...run.notes];
  const workers = find(cases, 'workers-list');
  if (workers?.cpus && settings.pinning && !workers.cpus.includes(',')) {
    notes.push(
      `--workers 2 ran both workers on cpu ${workers.cpus}: the load generator needs the other core, so on this machine the case prices the cluster, not its scaling`,
    );
  }
  const headroom = computeHeadroom(cases);
  return {
    tool: 'adoption-store-kit bench',
    startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    environment: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown' },
    settings,
    cases,
    headroom,
    ratios: computeRatios(cases),
    projection: projectWorkers(cases),
    targets: checkTargets(cases, settings, headroom),
    notes,
  };
}
