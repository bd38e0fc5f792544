// How many round trips this process made to the stores it shares with other instances. The price of
// scaling out is mostly these (each costs the server, the database or Redis CPU), so the benchmark
// reads them: `kill -USR2 <pid>` writes one line with the counts to the log (see cli.ts).

export interface RoundTrips {
  /** Statements sent to PostgreSQL (each one a round trip). */
  postgres: number;
  /** Commands sent to Redis (a script call is one). */
  redis: number;
}

export const roundTrips: RoundTrips = { postgres: 0, redis: 0 };

/** The line SIGUSR2 writes; bench/round-trips.ts parses it with ROUND_TRIPS_LINE. */
export function roundTripsLine(pid: number, counts: RoundTrips = roundTrips): string {
  return `round trips: pid ${pid} postgres ${counts.postgres} redis ${counts.redis}\n`;
}

export const ROUND_TRIPS_LINE = /^round trips: pid (\d+) postgres (\d+) redis (\d+)$/gm;
