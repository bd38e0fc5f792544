// One load run, with the CPU each process involved used meanwhile: the server (its whole process
// tree), the store's PostgreSQL backends, a local Redis, the load generator and this process; the
// round trips the server made to PostgreSQL and Redis; how busy the rest of the machine was, and
// what else ran on the server's own core, so that a disturbed round can be told apart.
import type { LoadGenerator, LoadMeasure, LoadRequest } from './load.ts';
import type { BenchDatabase } from './postgres.ts';
import { coreShares, coreTicks, foreignCores, machineTicks, processTicks, processTicksExact, TICKS_PER_SECOND, treeTicks } from './proc.ts';
import type { RoundTripCounter } from './round-trips.ts';
import type { RoundMeasure } from './stats.ts';

export type CpuMeasure = Omit<RoundMeasure, 'round'> & { ids?: number[] | undefined };

export interface MeasureTarget {
  generator: LoadGenerator;
  request: LoadRequest;
  serverPid: number;
  /** The PostgreSQL database the server stores in: its backends serve the server alone. */
  database?: BenchDatabase | undefined;
  /** A local Redis the limiter uses: its CPU is priced beside the server's. */
  redisPid?: number | undefined;
  /** The server's own count of its round trips to PostgreSQL and Redis. */
  roundTrips?: RoundTripCounter | undefined;
  /** The cores the server is pinned to: what else runs there is read around the load. */
  serverCores?: readonly number[] | undefined;
  /** The benchmark's other servers, idle meanwhile (pinned to the same core): their CPU is read too. */
  bystanders?: readonly number[] | undefined;
}

export async function measureWithCpu({
  generator,
  request,
  serverPid,
  database,
  redisPid,
  roundTrips,
  serverCores,
  bystanders = [],
}: MeasureTarget): Promise<CpuMeasure> {
  const storeTicks = async () => {
    const pids = database ? await database.backendPids().catch(() => [] as number[]) : [];
    return new Map(pids.map((pid) => [pid, processTicks(pid)]));
  };
  // Exact, not whole ticks: Redis may work less than a tick in a short round.
  const redisTicks = () => (redisPid ? processTicksExact(redisPid) : 0);
  const bystanderTicks = () => bystanders.reduce((n, pid) => n + treeTicks(pid), 0);
  const tripsBefore = await roundTrips?.read();
  const storeBefore = await storeTicks();
  const machineBefore = machineTicks();
  const coreBefore = serverCores ? coreTicks(serverCores) : undefined;
  const bystandersBefore = bystanderTicks();
  const serverBefore = treeTicks(serverPid);
  const ownBefore = processTicks(process.pid);
  const redisBefore = redisTicks();
  const measured: LoadMeasure = await generator.run(request);
  const serverTicks = treeTicks(serverPid) - serverBefore;
  const coreAfter = serverCores ? coreTicks(serverCores) : undefined;
  const bystandersUsed = bystanderTicks() - bystandersBefore;
  const redisUsed = redisTicks() - redisBefore;
  const ownAfter = processTicks(process.pid);
  const machineAfter = machineTicks();
  // A backend that appeared during the round used all its ticks in it.
  const storeAfter = await storeTicks();
  let backendTicks = 0;
  for (const [pid, ticks] of storeAfter) backendTicks += ticks - (storeBefore.get(pid) ?? 0);
  const tripsAfter = await roundTrips?.read();
  const generatorTicks = Number.isFinite(measured.generatorCpuSeconds) ? measured.generatorCpuSeconds * TICKS_PER_SECOND : 0;
  const own = serverTicks + backendTicks + redisUsed + (ownAfter - ownBefore) + generatorTicks;
  return {
    ...measured,
    foreignCores: foreignCores({ machine: machineBefore, own: 0 }, { machine: machineAfter, own: own + bystandersUsed }),
    serverCore:
      coreBefore && coreAfter
        ? coreShares(coreBefore, coreAfter, { server: serverTicks, stores: backendTicks + redisUsed, bystanders: bystandersUsed })
        : undefined,
    serverCpuSeconds: serverTicks / TICKS_PER_SECOND,
    postgresCpuSeconds: database ? backendTicks / TICKS_PER_SECOND : undefined,
    redisCpuSeconds: redisPid ? redisUsed / TICKS_PER_SECOND : undefined,
    roundTrips: tripsBefore && tripsAfter ? { postgres: tripsAfter.postgres - tripsBefore.postgres, redis: tripsAfter.redis - tripsBefore.redis } : undefined,
  };
}
