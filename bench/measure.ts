// One load run, with the CPU each process involved used meanwhile: the server (its whole process
// tree), the store's PostgreSQL backends, a local Redis, the load generator and this process; and
// how busy the rest of the machine was, so that a disturbed round can be told apart.
import type { LoadGenerator, LoadMeasure, LoadRequest } from './load.ts';
import type { BenchDatabase } from './postgres.ts';
import { foreignCores, machineTicks, processTicks, TICKS_PER_SECOND, treeTicks } from './proc.ts';
import type { RoundMeasure } from './stats.ts';

export type CpuMeasure = Omit<RoundMeasure, 'round'> & { ids?: number[] | undefined };

export interface MeasureTarget {
  generator: LoadGenerator;
  request: LoadRequest;
  serverPid: number;
  /** The PostgreSQL database the server stores in: its backends' CPU is the server's. */
  database?: BenchDatabase | undefined;
  /** A local Redis the limiter uses: counted as the benchmark's own CPU, not as other processes'. */
  redisPid?: number | undefined;
}

export async function measureWithCpu({ generator, request, serverPid, database, redisPid }: MeasureTarget): Promise<CpuMeasure> {
  const storeTicks = async () => {
    const pids = database ? await database.backendPids().catch(() => [] as number[]) : [];
    return new Map(pids.map((pid) => [pid, processTicks(pid)]));
  };
  const ownTicks = () => processTicks(process.pid) + (redisPid ? processTicks(redisPid) : 0);
  const storeBefore = await storeTicks();
  const machineBefore = machineTicks();
  const serverBefore = treeTicks(serverPid);
  const ownBefore = ownTicks();
  const measured: LoadMeasure = await generator.run(request);
  const serverTicks = treeTicks(serverPid) - serverBefore;
  const ownAfter = ownTicks();
  const machineAfter = machineTicks();
  // A backend that appeared during the round used all its ticks in it.
  const storeAfter = await storeTicks();
  let backendTicks = 0;
  for (const [pid, ticks] of storeAfter) backendTicks += ticks - (storeBefore.get(pid) ?? 0);
  const generatorTicks = Number.isFinite(measured.generatorCpuSeconds) ? measured.generatorCpuSeconds * TICKS_PER_SECOND : 0;
  const own = serverTicks + backendTicks + (ownAfter - ownBefore) + generatorTicks;
  return {
    ...measured,
    foreignCores: foreignCores({ machine: machineBefore, own: 0 }, { machine: machineAfter, own }),
    serverCpuSeconds: (serverTicks + backendTicks) / TICKS_PER_SECOND,
  };
}
