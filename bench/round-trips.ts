// The round trips a reference server made to PostgreSQL and Redis, read from the server itself: on
// SIGUSR2 each of its processes (the workers, under --workers) writes its counts to the log
// (server/round-trips.ts). PostgreSQL's own statistics would not do: without pg_stat_statements
// they count transactions, not statements, and an idle backend reports them up to 10 s late.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { ROUND_TRIPS_LINE, type RoundTrips } from '../server/round-trips.ts';
import { descendants } from './proc.ts';

const TIMEOUT_MS = 3_000;

/** Sums the last counts of each pid in `text` (the lines written since the signal). */
export function parseRoundTrips(text: string): Map<number, RoundTrips> {
  const last = new Map<number, RoundTrips>();
  for (const m of text.matchAll(ROUND_TRIPS_LINE)) last.set(Number(m[1]), { postgres: Number(m[2]), redis: Number(m[3]) });
  return last;
}

export class RoundTripCounter {
  readonly #pid: number;
  readonly #logFile: string;
  #offset: number;

  constructor(pid: number, logFile: string) {
    this.#pid = pid;
    this.#logFile = logFile;
    this.#offset = statSync(logFile).size;
  }

  /** Asks every process of the server for its counts and adds them up. */
  async read(): Promise<RoundTrips> {
    const processes = Math.max(1, descendants(this.#pid).length);
    process.kill(this.#pid, 'SIGUSR2');
    const deadline = Date.now() + TIMEOUT_MS;
    const seen = new Map<number, RoundTrips>();
    while (Date.now() < deadline) {
      for (const [pid, counts] of parseRoundTrips(this.#readNew())) seen.set(pid, counts);
      if (seen.size >= processes) {
        return [...seen.values()].reduce((a, b) => ({ postgres: a.postgres + b.postgres, redis: a.redis + b.redis }), { postgres: 0, redis: 0 });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`${this.#logFile}: ${seen.size} of ${processes} processes wrote their round trips within ${TIMEOUT_MS} ms`);
  }

  /** The whole lines appended to the log since the last read. */
  #readNew(): string {
    const size = statSync(this.#logFile).size;
    if (size <= this.#offset) return '';
    const buffer = Buffer.alloc(size - this.#offset);
    const fd = openSync(this.#logFile, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, this.#offset);
    } finally {
      closeSync(fd);
    }
    const end = buffer.lastIndexOf(0x0a) + 1;
    this.#offset += end;
    return buffer.subarray(0, end).toString('utf8');
  }
}
