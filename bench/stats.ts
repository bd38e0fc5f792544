// Pure arithmetic over measured rounds. A round with any unexpected answer, socket error or lost
// create is void: it is reported, and left out of every figure. Latency percentiles pool every
// clean round's histogram (not averaged per round), so p99 means the 99th percentile of the case;
// the rate is the median of the clean rounds' rates.

/** Latency histogram: microseconds -> number of responses (wrk's own resolution). */
export type Histogram = Map<number, number>;

export interface RoundMeasure {
  round: number;
  /** Responses with the expected status. */
  ok: number;
  /** Responses with any other status, by status code (wrk without a response hook: `non-2xx/3xx`). */
  unexpected: Record<string, number>;
  /** Socket errors: connect, read and write. */
  errors: number;
  timeouts: number;
  /** Wall-clock seconds of the measured load. */
  seconds: number;
  /** Response bytes (headers and body) read. */
  bytes: number;
  latency: Histogram;
  /** Cores that processes outside the benchmark kept busy during the round (see proc.ts foreignCores). */
  foreignCores: number;
  /**
   * What else ran on the server's own core(s) during the round, as shares of their time (proc.ts
   * coreShares): the benchmark's other, idle servers, and every other process. Absent when not pinned.
   */
  serverCore?: { bystanders: number; others: number } | undefined;
  /** CPU seconds (user + system, all threads and processes) the server used during the round. */
  serverCpuSeconds: number;
  /** CPU seconds the PostgreSQL backends serving the server's connections used (PostgreSQL cases). */
  postgresCpuSeconds?: number | undefined;
  /** CPU seconds the local Redis server used (Redis cases): every client's commands, the server's almost alone. */
  redisCpuSeconds?: number | undefined;
  /** Round trips the server made to each shared store during the round, as it counted them (server/round-trips.ts). */
  roundTrips?: { postgres: number; redis: number } | undefined;
  /** CPU seconds the load generator used during the round. */
  generatorCpuSeconds: number;
  /** Why the round does not count; absent for a clean round. */
  void?: string | undefined;
}

export interface VoidRound {
  round: number;
  reason: string;
}

/** One clean round's figures, by its number: what a paired ratio compares with another case's same round. */
export interface RoundFigures {
  round: number;
  rps: number;
  /** Server CPU per expected response in that round, in microseconds. */
  cpuMicros: number;
  /**
   * What else ran in that round, in cores: the larger of the share of the server's own core that
   * anything else took (the benchmark's idle servers included; when pinned) and the cores other
   * processes kept busy on the whole machine (the load generator's core included).
   */
  disturbance: number;
}

export interface CaseSummary {
  /** Median of the clean rounds' rates: one round disturbed by another process does not move it. */
  rps: number;
  perRound: RoundFigures[];
  p50: number;
  p99: number;
  p999: number;
  max: number;
  /** Expected responses of the clean rounds. */
  requests: number;
  cleanRounds: number;
  voidRounds: VoidRound[];
  /** Unexpected statuses, socket errors and timeouts of every round, void ones included. */
  unexpected: Record<string, number>;
  errors: number;
  timeouts: number;
  bytesPerResponse: number;
  /** The most cores other processes took during any clean round of the case. */
  foreignCoresMax: number;
  /** The largest share of the server's core the benchmark's other (idle) servers took in a clean round; null when not pinned. */
  coreBystandersMax: number | null;
  /** The largest share of the server's core any other process took in a clean round; null when not pinned. */
  coreOthersMax: number | null;
  /**
   * Server CPU per expected response, in microseconds. Unlike the rate it barely moves when other
   * processes take CPU, so it prices the server's work even on a busy machine.
   */
  cpuMicrosPerRequest: number;
  /** PostgreSQL backends' CPU per expected response (us); null when the case uses no PostgreSQL. */
  postgresMicrosPerRequest: number | null;
  /** Redis's CPU per expected response (us); null when the case uses no Redis (or it is not local). */
  redisMicrosPerRequest: number | null;
  /** Statements sent to PostgreSQL per expected response; null when not counted. */
  postgresPerRequest: number | null;
  /** Commands sent to Redis per expected response; null when not counted. */
  redisPerRequest: number | null;
  /** The largest share of its core the load generator used in a clean round (1 = saturated). */
  generatorBusy: number;
  /** The cores the server kept busy, averaged over the clean rounds (below 1: it waited for something). */
  serverBusy: number;
}

/** Why a round cannot count, or undefined when it can. `lost` describes creates missing after SIGKILL. */
export function voidReason(round: Pick<RoundMeasure, 'ok' | 'unexpected' | 'errors' | 'timeouts'>, lost?: string): string | undefined {
  const reasons: string[] = [];
  const unexpected = Object.entries(round.unexpected).filter(([, n]) => n > 0);
  if (unexpected.length) reasons.push(unexpected.map(([code, n]) => `${n} x ${code}`).join(', '));
  if (round.errors) reasons.push(`${round.errors} socket errors`);
  if (round.timeouts) reasons.push(`${round.timeouts} timeouts`);
  if (lost) reasons.push(lost);
  if (round.ok === 0 && reasons.length === 0) reasons.push('no expected response');
  return reasons.length ? reasons.join('; ') : undefined;
}

export function histogramOf(samplesMs: Iterable<number>): Histogram {
  const h: Histogram = new Map();
  for (const ms of samplesMs) {
    const us = Math.round(ms * 1000);
    h.set(us, (h.get(us) ?? 0) + 1);
  }
  return h;
}

export function mergeHistograms(parts: readonly Histogram[]): Histogram {
  const all: Histogram = new Map();
  for (const part of parts) for (const [us, n] of part) all.set(us, (all.get(us) ?? 0) + n);
  return all;
}

/** Nearest-rank percentiles (in ms) of a histogram; NaN when it is empty. */
export function percentiles(h: Histogram, ps: readonly number[]): number[] {
  for (const p of ps) if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const values = [...h.keys()].sort((a, b) => a - b);
  const total = values.reduce((n, v) => n + h.get(v)!, 0);
  if (total === 0) return ps.map(() => Number.NaN);
  return ps.map((p) => {
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    let seen = 0;
    for (const v of values) {
      seen += h.get(v)!;
      if (seen >= rank) return v / 1000;
    }
    return values[values.length - 1]! / 1000;
  });
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(rounds: readonly RoundMeasure[]): CaseSummary {
  const clean = rounds.filter((r) => !r.void);
  const requests = clean.reduce((n, r) => n + r.ok, 0);
  const rpsPerRound = clean.map((r) => (r.seconds > 0 ? r.ok / r.seconds : 0));
  const answered = clean.reduce((n, r) => n + r.ok + Object.values(r.unexpected).reduce((a, b) => a + b, 0), 0);
  const unexpected: Record<string, number> = {};
  for (const r of rounds) for (const [code, n] of Object.entries(r.unexpected)) if (n > 0) unexpected[code] = (unexpected[code] ?? 0) + n;
  const latency = mergeHistograms(clean.map((r) => r.latency));
  const [p50, p99, p999, max] = percentiles(latency, [50, 99, 99.9, 100]) as [number, number, number, number];
  return {
    rps: rpsPerRound.length ? median(rpsPerRound) : 0,
    perRound: clean.map((r, i) => ({
      round: r.round,
      rps: rpsPerRound[i]!,
      cpuMicros: r.ok > 0 ? (1e6 * r.serverCpuSeconds) / r.ok : Number.NaN,
      disturbance: Math.max(r.serverCore ? r.serverCore.bystanders + r.serverCore.others : 0, r.foreignCores),
    })),
    p50,
    p99,
    p999,
    max,
    requests,
    cleanRounds: clean.length,
    voidRounds: rounds.filter((r) => r.void).map((r) => ({ round: r.round, reason: r.void! })),
    unexpected,
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    timeouts: rounds.reduce((n, r) => n + r.timeouts, 0),
    bytesPerResponse: answered > 0 ? clean.reduce((n, r) => n + r.bytes, 0) / answered : 0,
    foreignCoresMax: clean.reduce((m, r) => Math.max(m, r.foreignCores), 0),
    coreBystandersMax: largest(clean, (r) => r.serverCore?.bystanders),
    coreOthersMax: largest(clean, (r) => r.serverCore?.others),
    cpuMicrosPerRequest: requests > 0 ? (1e6 * clean.reduce((n, r) => n + r.serverCpuSeconds, 0)) / requests : Number.NaN,
    postgresMicrosPerRequest: perRequest(clean, requests, (r) => (r.postgresCpuSeconds === undefined ? undefined : 1e6 * r.postgresCpuSeconds)),
    redisMicrosPerRequest: perRequest(clean, requests, (r) => (r.redisCpuSeconds === undefined ? undefined : 1e6 * r.redisCpuSeconds)),
    postgresPerRequest: perRequest(clean, requests, (r) => r.roundTrips?.postgres),
    redisPerRequest: perRequest(clean, requests, (r) => r.roundTrips?.redis),
    generatorBusy: clean.reduce((m, r) => Math.max(m, r.seconds > 0 ? r.generatorCpuSeconds / r.seconds : 0), 0),
    serverBusy: clean.length ? clean.reduce((n, r) => n + (r.seconds > 0 ? r.serverCpuSeconds / r.seconds : 0), 0) / clean.length : Number.NaN,
  };
}

/** The largest of a figure over the rounds that have it, or null when none has. */
function largest(rounds: readonly RoundMeasure[], value: (r: RoundMeasure) => number | undefined): number | null {
  const values = rounds.map(value).filter((v): v is number => v !== undefined);
  return values.length ? Math.max(...values) : null;
}

/** A per-response figure over the clean rounds, or null when no clean round measured it. */
function perRequest(clean: readonly RoundMeasure[], requests: number, value: (r: RoundMeasure) => number | undefined): number | null {
  const measured = clean.filter((r) => value(r) !== undefined);
  const answered = measured.reduce((n, r) => n + r.ok, 0);
  if (measured.length === 0 || answered === 0 || requests === 0) return null;
  return measured.reduce((n, r) => n + value(r)!, 0) / answered;
}

/** a / b, or null when either side was not measured. */
export function ratio(a: number | undefined, b: number | undefined): number | null {
  if (a === undefined || b === undefined || !(a > 0) || !(b > 0)) return null;
  return a / b;
}

/**
 * The median of the rounds' own ratios: a slow minute slows both sides of a pair, where a ratio of
 * medians takes each side from a different minute. With no round in common, the cases' own figures.
 */
export function pairedRatio(a: CaseSummary | undefined, b: CaseSummary | undefined, by: 'rps' | 'cpu'): number | null {
  if (!a || !b) return null;
  const ratios = roundRatios(a, b, by);
  if (ratios.length > 0) return median(ratios);
  return by === 'rps' ? ratio(a.rps, b.rps) : ratio(a.cpuMicrosPerRequest, b.cpuMicrosPerRequest);
}

/** a over b in each round both measured cleanly, in round order: how far a paired ratio can be trusted. */
export function roundRatios(a: CaseSummary, b: CaseSummary, by: 'rps' | 'cpu'): number[] {
  const value = (f: RoundFigures) => (by === 'rps' ? f.rps : f.cpuMicros);
  const theirs = new Map(b.perRound.map((f) => [f.round, f]));
  const ratios: number[] = [];
  for (const mine of a.perRound) {
    const other = theirs.get(mine.round);
    const r = other ? ratio(value(mine), value(other)) : null;
    if (r !== null) ratios.push(r);
  }
  return ratios;
}

/** Round i runs the cases starting at i, so every case is measured early and late alike. */
export function interleave<T>(items: readonly T[], round: number): T[] {
  if (items.length === 0) return [];
  const start = round % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}
