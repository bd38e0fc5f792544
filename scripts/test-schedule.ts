// How the test runner spends the machine: which file starts next (the longest first, so that no long
// file is left for the end) and whether another may start beside those running (only while cores
// stand idle, so a file that mostly waits, on k6 or on a window, does not hold a core it does not
// use, and a machine busy with other work gets no more files than before). A file counts for the
// cores it used in the recorded run, not as one of a fixed number of lanes: four files waiting on k6
// must not keep the next file from the cores they leave idle.
import { readFileSync, statSync } from 'node:fs';
import { machineTicks } from '../bench/proc.ts';

/** What a file took in a recorded run, in ms, by its path from the root (scripts/test-times.json). */
export type Durations = Readonly<Record<string, number>>;

/** A file's recorded run: its wall time and the CPU time of its process tree, in ms. */
export interface Recorded {
  ms: number;
  cpuMs?: number;
}
export type TimesRecord = Readonly<Record<string, Recorded>>;

/** A file with no CPU on record counts as one whole core. */
const UNKNOWN_CORES = 1;
/** No file counts for less than this: it still starts, loads and ends. */
const LEAST_CORES = 0.1;

/** The cores a file kept busy on average in the recorded run (its CPU time over its wall time), within [0.1, 1]. */
export function expectedCores(recorded: Recorded | undefined): number {
  if (!recorded || recorded.cpuMs === undefined || recorded.ms <= 0) return UNKNOWN_CORES;
  return Math.min(1, Math.max(LEAST_CORES, recorded.cpuMs / recorded.ms));
}

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
  /** Never more than this many cores expected busy at once (each file's `expectedCores`), past the minimum. */
  maxCores: number;
  /** Idle cores, averaged over the last look, that let one more file start. */
  idleCoresToAdmit: number;
  /** After a file starts, how long before another may start on idle cores: a file's first second is its busiest (loading tsx and its imports). */
  settleMs: number;
}

/**
 * A new file starts when a lane is free below the minimum, or when cores have stood idle since the last
 * start settled and the files running with this one are expected to use no more than `maxCores`.
 */
export function mayStart(
  options: AdmissionOptions,
  state: { running: number; cores: number; nextCores: number; idleCores: number; msSinceLastStart: number },
): boolean {
  if (state.running < options.minLanes) return true;
  if (state.running >= options.maxLanes) return false;
  if (state.cores + state.nextCores > options.maxCores) return false;
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

/**
 * A recorded run: each file's wall and CPU time (`{ "ms": …, "cpuMs": … }`, or a bare number of ms as
 * older records hold); none when the record is missing or unreadable, and no entry that is not a time.
 */
export function readRecord(path: string): TimesRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object') return {};
  const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const entries: Array<[string, Recorded]> = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (isTime(value)) entries.push([name, { ms: value }]);
    else if (value && typeof value === 'object' && isTime((value as Recorded).ms)) {
      const { ms, cpuMs } = value as Recorded;
      entries.push([name, isTime(cpuMs) ? { ms, cpuMs } : { ms }]);
    }
  }
  return Object.fromEntries(entries);
}

/** The wall times of a record, the order files start in (`longestFirst`). */
export function durationsOf(record: TimesRecord): Durations {
  return Object.fromEntries(Object.entries(record).map(([name, r]) => [name, r.ms]));
}

export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
