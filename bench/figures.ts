// The figures derived from a run's cases, and what they are measured against: the issue's targets,
// the load generator's headroom, the ratios of the reference server to its peers, and the projection
// for n workers. Pure, so that every figure is tested; verdicts.ts judges the targets with them,
// render.ts prints them, report.ts gathers them into the report.
import type { CaseId } from './cases.ts';
import type { CaseResult, Headroom, PeerRatios, Ratios, WorkersProjection } from './report.ts';
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

function peerRatios(cases: readonly CaseResult[], kind: 'list' | 'get', by: 'rps' | 'cpu'): PeerRatios {
  const ref = summaryOf(cases, `ref-${kind}`);
  // By rate: reference over peer. By CPU per request: peer's cost over the reference's, so both read "higher is better".
  const r = (peer: CaseId) => (by === 'rps' ? pairedRatio(ref, summaryOf(cases, peer), 'rps') : pairedRatio(summaryOf(cases, peer), ref, 'cpu'));
  return { hapi: r(`hapi-${kind}`), node: r(`node-${kind}`), prism: r(`prism-${kind}`), jsonServer: r(`json-${kind}`) };
}

/** A case's figures when it has any. */
function summaryOf(cases: readonly CaseResult[], id: CaseId): CaseSummary | undefined {
  const c = find(cases, id);
  return clean(c) ? c.summary : undefined;
}

export function computeRatios(cases: readonly CaseResult[]): Ratios {
  // Case over case, round by round (pairedRatio): the rates, and the server CPU per request.
  const rps = (a: CaseId, b: CaseId) => pairedRatio(summaryOf(cases, a), summaryOf(cases, b), 'rps');
  const cpu = (a: CaseId, b: CaseId) => pairedRatio(summaryOf(cases, a), summaryOf(cases, b), 'cpu');
  const p99 = (id: CaseId) => {
    const c = find(cases, id);
    return clean(c) ? c.summary.p99 : undefined;
  };
  return {
    list: peerRatios(cases, 'list', 'rps'),
    get: peerRatios(cases, 'get', 'rps'),
    listByCpu: peerRatios(cases, 'list', 'cpu'),
    getByCpu: peerRatios(cases, 'get', 'cpu'),
    postgresOverFileList: rps('pg-list', 'ref-list'),
    postgresOverFileCreate: rps('pg-post', 'ref-post'),
    redisOverMemory: rps('pg-redis-list', 'pg-list'),
    workersOverOne: rps('workers-list', 'pg-redis-list'),
    floorOverHapi: { list: rps('floor-list', 'hapi-list'), get: rps('floor-get', 'hapi-get') },
    referenceOverFloor: { list: rps('ref-list', 'floor-list'), get: rps('ref-get', 'floor-get') },
    scaleOutCpuOverFile: cpu('pg-redis-list', 'ref-list'),
    scaleOutAllCpuOverFile: ratio(allCpu(find(cases, 'pg-redis-list')), summaryOf(cases, 'ref-list')?.cpuMicrosPerRequest),
    listP99Growth: ratio(p99('list-100k'), p99('list-1k')),
    deepP99Growth: ratio(p99('deep-100k'), p99('deep-1k')),
    listCpuGrowth: cpu('list-100k', 'list-1k'),
    deepCpuGrowth: cpu('deep-100k', 'deep-1k'),
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
