// Pure arithmetic over measured rounds. Latency percentiles are computed from every expected
// sample of every round together (not averaged per round), so p99 means the 99th percentile of
// the case; the rate is the median of the rounds' rates.

export interface RoundMeasure {
  round: number;
  /** Responses with the expected status. */
  ok: number;
  /** Responses with any other status, by status code. */
  unexpected: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Wall-clock seconds of the measured load. */
  seconds: number;
  /** Response bytes (headers and body) of the expected-status responses. */
  bytes: number;
  /** Latency in milliseconds of each expected-status response. */
  latencies: Float64Array;
  /** Cores that processes outside the benchmark kept busy during the round (see proc.ts foreignCores). */
  foreignCores: number;
  /** CPU seconds (user + system, all threads) the server process used during the round. */
  serverCpuSeconds: number;
}

export interface CaseSummary {
  /** Median of the rounds' rates: one round disturbed by another process does not move it. */
  rps: number;
  rpsPerRound: number[];
  p50: number;
  p99: number;
  p999: number;
  max: number;
  requests: number;
  unexpected: Record<string, number>;
  errors: number;
  timeouts: number;
  bytesPerResponse: number;
  /** The most cores other processes took during any round of the case. */
  foreignCoresMax: number;
  /**
   * Server CPU per expected response, in microseconds. Unlike the rate it barely moves when other
   * processes take CPU, so it prices the server's work even on a busy machine.
   */
  cpuMicrosPerRequest: number;
}

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: Float64Array, p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function mergeSorted(parts: readonly Float64Array[]): Float64Array {
  const all = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all.sort();
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(rounds: readonly RoundMeasure[]): CaseSummary {
  const requests = rounds.reduce((n, r) => n + r.ok, 0);
  const rpsPerRound = rounds.map((r) => (r.seconds > 0 ? r.ok / r.seconds : 0));
  const bytes = rounds.reduce((n, r) => n + r.bytes, 0);
  const unexpected: Record<string, number> = {};
  for (const r of rounds) for (const [code, n] of Object.entries(r.unexpected)) unexpected[code] = (unexpected[code] ?? 0) + n;
  const sorted = mergeSorted(rounds.map((r) => r.latencies));
  return {
    rps: rpsPerRound.length ? median(rpsPerRound) : 0,
    rpsPerRound,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    requests,
    unexpected,
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    timeouts: rounds.reduce((n, r) => n + r.timeouts, 0),
    bytesPerResponse: requests > 0 ? bytes / requests : 0,
    foreignCoresMax: rounds.reduce((m, r) => Math.max(m, r.foreignCores), 0),
    cpuMicrosPerRequest: requests > 0 ? (1e6 * rounds.reduce((n, r) => n + r.serverCpuSeconds, 0)) / requests : Number.NaN,
  };
}

/** a / b, or null when either side was not measured. */
export function ratio(a: number | undefined, b: number | undefined): number | null {
  if (a === undefined || b === undefined || !(a > 0) || !(b > 0)) return null;
  return a / b;
}

/** Round i runs the cases starting at i, so every case is measured early and late alike. */
export function interleave<T>(items: readonly T[], round: number): T[] {
  if (items.length === 0) return [];
  const start = round % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}
