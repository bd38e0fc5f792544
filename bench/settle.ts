// When a ratio of two cases may be quoted: only when its rounds agree (bench/README.md, A ratio is
// quoted only when its rounds agree). A median of disagreeing rounds said "met" in one run and
// "missed" in the next about the same server.
import { formatRatio } from './format.ts';
import { median, type CaseSummary, type RoundFigures } from './stats.ts';

export const SETTLED = {
  /** Rounds both cases measured cleanly. */
  rounds: 2,
  /** Highest over lowest round ratio, less one. */
  spread: 0.15,
  /** Cores something else may take in a round (see RoundFigures.disturbance). */
  shared: 0.1,
} as const;

/** One round's ratio of two cases, and the larger disturbance of the two servers in it. */
export interface PairedRound {
  round: number;
  ratio: number;
  disturbance: number;
}

export type Settlement =
  { settled: true; value: number; low: number; high: number } | { settled: false; value: number | null; low: number | null; high: number | null; why: string };

/** a over b in each round both measured cleanly, in round order. */
export function pairRounds(a: CaseSummary, b: CaseSummary, by: 'rps' | 'cpu'): PairedRound[] {
  const value = (f: RoundFigures) => (by === 'rps' ? f.rps : f.cpuMicros);
  const theirs = new Map(b.perRound.map((f) => [f.round, f]));
  const rounds: PairedRound[] = [];
  for (const mine of a.perRound) {
    const other = theirs.get(mine.round);
    if (!other || !(value(mine) > 0) || !(value(other) > 0)) continue;
    rounds.push({ round: mine.round, ratio: value(mine) / value(other), disturbance: Math.max(mine.disturbance, other.disturbance) });
  }
  return rounds;
}

/**
 * Whether the rounds agree enough to quote their median; `meets` is the target's test, when a
 * target judges the ratio: every round must then give the same verdict.
 */
export function settle(rounds: readonly PairedRound[], meets?: (ratio: number) => boolean): Settlement {
  if (rounds.length === 0) return { settled: false, value: null, low: null, high: null, why: 'no round in common' };
  const ratios = rounds.map((r) => r.ratio);
  const low = Math.min(...ratios);
  const high = Math.max(...ratios);
  const value = median(ratios);
  const range = `${formatRatio(low)}-${formatRatio(high)}`;
  const reasons: string[] = [];
  if (rounds.length < SETTLED.rounds) reasons.push(`${rounds.length} round in common (at least ${SETTLED.rounds} wanted)`);
  const shared = rounds.filter((r) => r.disturbance > SETTLED.shared);
  if (shared.length) {
    const most = Math.max(...shared.map((r) => r.disturbance));
    reasons.push(
      `something else ran beside the benchmark in round${shared.length > 1 ? 's' : ''} ${shared.map((r) => r.round).join(', ')} ` +
        `(up to ${most.toFixed(2)} of a core; at most ${SETTLED.shared.toFixed(2)})`,
    );
  }
  const spread = high / low - 1;
  if (spread > SETTLED.spread) reasons.push(`rounds ${range}, ${percent(spread)} apart (at most ${percent(SETTLED.spread)})`);
  if (meets && ratios.some(meets) && !ratios.every(meets)) reasons.push(`rounds ${range} on both sides of the target`);
  return reasons.length ? { settled: false, value, low, high, why: reasons.join('; ') } : { settled: true, value, low, high };
}

// Rounded up: a figure over its bound never reads as the bound itself.
const percent = (share: number) => `${Math.ceil(share * 100 - 1e-9)}%`;
