// The figures derived from a run's cases, and what they are measured against: the issue's targets,
// the load generator's headroom, the ratios of the reference server to its peers, and the projection
// for n workers. Pure, so that every figure is tested; verdicts.ts judges the targets with them,
// render.ts prints them, report.ts gathers them into the report.
import type { CaseId } from './cases.ts';
import type { CaseResult, Headroom, PeerRatios, Ratios, ServerCoreCheck, WorkersProjection } from './report-types.ts';
import { pairRounds, settle, SETTLED } from './settle.ts';
import { pairedRatio, ratio, type CaseSummary } from './stats.ts';

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

export const find = (cases: readonly CaseResult[], id: CaseId) => cases.find((c) => c.id === id);

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

/**
 * A ratio of two cases, paired by round; its name goes to `unsettled` when its rounds do not agree
 * (settle.ts), on its target's verdict too when it has one, so that the table and the targets agree.
 */
function paired(
  unsettled: string[],
  name: string,
  a: CaseSummary | undefined,
  b: CaseSummary | undefined,
  by: 'rps' | 'cpu',
  meets?: (v: number) => boolean,
): number | null {
  const value = pairedRatio(a, b, by);
  if (value !== null && a && b && !settle(pairRounds(a, b, by), meets).settled) unsettled.push(name);
  return value;
}

const atLeast = (min: number) => (v: number) => v >= min;
/** The targets on the ratios of the reference over a peer, by req/s. */
const PEER_TARGETS: Partial<Record<keyof PeerRatios, number>> = { hapi: TARGETS.overHapi, prism: TARGETS.overPrism, jsonServer: TARGETS.overJsonServer };

/**
 * What else ran on the servers' core while they were measured, over every clean round: the
 * benchmark's own idle servers, and other processes. The check that the harness does not slow what
 * it measures; null when the servers were not pinned (nothing is known of their core).
 */
export function checkServerCore(cases: readonly CaseResult[]): ServerCoreCheck | null {
  const pinned = cases.filter((c) => clean(c) && c.summary.coreOthersMax !== null) as Array<CaseResult & { summary: CaseSummary }>;
  if (!pinned.length) return null;
  const most = (value: (s: CaseSummary) => number) => {
    const top = [...pinned].sort((a, b) => value(b.summary) - value(a.summary))[0]!;
    return { share: value(top.summary), id: top.id };
  };
  return {
    bystanders: most((s) => s.coreBystandersMax!),
    others: most((s) => s.coreOthersMax!),
    shared: pinned.filter((c) => c.summary.perRound.some((r) => r.disturbance > SETTLED.shared)).map((c) => c.id),
  };
}

function peerRatios(cases: readonly CaseResult[], kind: 'list' | 'get', by: 'rps' | 'cpu', unsettled: string[]): PeerRatios {
  const ref = summaryOf(cases, `ref-${kind}`);
  const table = by === 'rps' ? kind : `${kind}ByCpu`;
  // By rate: reference over peer. By CPU per request: peer's cost over the reference's, so both read "higher is better".
  const r = (peer: CaseId, key: keyof PeerRatios) => {
    const min = PEER_TARGETS[key];
    return by === 'rps'
      ? paired(unsettled, `${table}.${key}`, ref, summaryOf(cases, peer), 'rps', min === undefined ? undefined : atLeast(min))
      : paired(unsettled, `${table}.${key}`, summaryOf(cases, peer), ref, 'cpu');
  };
  return { hapi: r(`hapi-${kind}`, 'hapi'), node: r(`node-${kind}`, 'node'), prism: r(`prism-${kind}`, 'prism'), jsonServer: r(`json-${kind}`, 'jsonServer') };
}

/** A case's figures when it has any. */
function summaryOf(cases: readonly CaseResult[], id: CaseId): CaseSummary | undefined {
  const c = find(cases, id);
  return clean(c) ? c.summary : undefined;
}

export function computeRatios(cases: readonly CaseResult[]): Ratios {
  // Case over case, round by round (pairedRatio): the rates, and the server CPU per request.
  const unsettled: string[] = [];
  const rps = (name: string, a: CaseId, b: CaseId, meets?: (v: number) => boolean) =>
    paired(unsettled, name, summaryOf(cases, a), summaryOf(cases, b), 'rps', meets);
  const cpu = (name: string, a: CaseId, b: CaseId, meets?: (v: number) => boolean) =>
    paired(unsettled, name, summaryOf(cases, a), summaryOf(cases, b), 'cpu', meets);
  const p99 = (id: CaseId) => {
    const c = find(cases, id);
    return clean(c) ? c.summary.p99 : undefined;
  };
  return {
    list: peerRatios(cases, 'list', 'rps', unsettled),
    get: peerRatios(cases, 'get', 'rps', unsettled),
    listByCpu: peerRatios(cases, 'list', 'cpu', unsettled),
    getByCpu: peerRatios(cases, 'get', 'cpu', unsettled),
    postgresOverFileList: rps('postgresOverFileList', 'pg-list', 'ref-list'),
    postgresOverFileCreate: rps('postgresOverFileCreate', 'pg-post', 'ref-post', atLeast(TARGETS.postgresCreates)),
    redisOverMemory: rps('redisOverMemory', 'pg-redis-list', 'pg-list'),
    workersOverOne: rps('workersOverOne', 'workers-list', 'pg-redis-list', atLeast(TARGETS.workersOverOne)),
    floorOverHapi: { list: rps('floorOverHapi.list', 'floor-list', 'hapi-list'), get: rps('floorOverHapi.get', 'floor-get', 'hapi-get') },
    referenceOverFloor: { list: rps('referenceOverFloor.list', 'ref-list', 'floor-list'), get: rps('referenceOverFloor.get', 'ref-get', 'floor-get') },
    scaleOutCpuOverFile: cpu('scaleOutCpuOverFile', 'pg-redis-list', 'ref-list', (v) => v <= TARGETS.scaleOutCpu),
    scaleOutAllCpuOverFile: ratio(allCpu(find(cases, 'pg-redis-list')), summaryOf(cases, 'ref-list')?.cpuMicrosPerRequest),
    listP99Growth: ratio(p99('list-100k'), p99('list-1k')),
    deepP99Growth: ratio(p99('deep-100k'), p99('deep-1k')),
    listCpuGrowth: cpu('listCpuGrowth', 'list-100k', 'list-1k'),
    deepCpuGrowth: cpu('deepCpuGrowth', 'deep-100k', 'deep-1k'),
    unsettled,
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

export { formatCount, formatRatio } from './format.ts';
