// The shapes of a run's report (report.ts assembles it; figures.ts and verdicts.ts fill it).
import type { CaseId, CaseKind, ServerId } from './cases.ts';
import type { CaseSummary } from './stats.ts';
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

export type Verdict = 'met' | 'missed' | 'not settled' | 'not measured';

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

export interface ServerCoreCheck {
  /** The largest share of its core the benchmark's other, idle servers took from a server in a clean round, and in which case. */
  bystanders: { share: number; id: CaseId };
  /** The same for every other process. */
  others: { share: number; id: CaseId };
  /** Cases with a round disturbed beyond SETTLED.shared (settle.ts; RoundFigures.disturbance): their ratios are not settled. */
  shared: CaseId[];
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
  /** The ratios above (by name: `list.hapi`, `postgresOverFileList`...) whose rounds do not agree (settle.ts): printed marked, never quoted alone. */
  unsettled: string[];
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
  /** What else used the servers' core while they were measured; null when they were not pinned. */
  serverCore: ServerCoreCheck | null;
  ratios: Ratios;
  projection: WorkersProjection | null;
  targets: TargetCheck[];
  notes: string[];
}
