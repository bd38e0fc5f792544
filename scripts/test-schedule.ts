// How the test runner spends the machine: which file starts next (the longest first, so that no long
// file is left for the end) and whether another may start beside those running (only while cores
// stand idle, so a file that mostly waits, on k6 or on a window, does not hold a core it does not
// use, and a machine busy with other work gets no more files than before).
import { readFileSync, statSync } from 'node:fs';
import { machineTicks } from '../bench/proc.ts';

/** What a file took in a recorded run, in ms, by its path from the root (scripts/test-times.json). */
export type Durations = Readonly<Record<string, number>>;

/**
 * The files in the order they start: by recorded duration, longest first. A file with no record
 * (new since the record) is put among them by its size in bytes, at the duration of the recorded
 * file of the closest size: a guess, corrected by the next `npm test -- --record-times`.
 */
export function longestFirst(names: readonly string[], durations: Durations, sizeOf: (name: string) => number): string[] {
  const known = names.filter((n) => durations[n] !== undefined).map((n) => ({ size: sizeOf(n), ms: durations[n]! }));
  const estimate = (name: string): number => {
    const ms = durations[name];
    if (ms !== undefined) return ms;
    if (known.length === 0) return sizeOf(name);
    const size = sizeOf(name);
    return known.reduce((best, k) => (Math.abs(k.size - size) < Math.abs(best.size - size) ? k : best)).ms;
  };
  const estimates = new Map(names.map((n) => [n, estimate(n)]));
  return [...names].sort((a, b) => estimates.get(b)! - estimates.get(a)! || a.localeCompare(b));
}

export interface AdmissionOptions {
  /** Files that always run at once, whatever the machine does (the runner's old fixed count). */
  minLanes: number;
  /** Never more than this many at once. */
  maxLanes: number;
  /** Idle cores, averaged over the last look, that let one more file start. */
  idleCoresToAdmit: number;
  /** After a file starts, how long before another may start on idle cores: a file's first second is its busiest (loading tsx and its imports). */
  settleMs: number;
}

/** A new file starts when a lane is free below the minimum, or when cores have stood idle since the last start settled. */
export function mayStart(options: AdmissionOptions, state: { running: number; idleCores: number; msSinceLastStart: number }): boolean {
  if (state.running < options.minLanes) return true;
  if (state.running >= options.maxLanes) return false;
  return state.msSinceLastStart >= options.settleMs && state.idleCores >= options.idleCoresToAdmit;
}

/** Idle cores between two looks at /proc/stat; undefined where there is no /proc (the runner then keeps to its minimum). */
export function idleCoresSampler(read: () => string = () => readFileSync('/proc/stat', 'utf8')): () => number | undefined {
  let last: ReturnType<typeof machineTicks> | undefined;
  return () => {
    try {
      const now = machineTicks(read());
      const before = last;
      last = now;
      if (!before || now.total <= before.total) return undefined;
      const idleShare = 1 - (now.busy - before.busy) / (now.total - before.total);
      return idleShare * now.cpus;
    } catch {
      return undefined;
    }
  };
}

/** A recorded run's durations; none when the record is missing or unreadable. */
export function readDurations(path: string): Durations {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] >= 0));
  } catch {
    return {};
  }
}

export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
