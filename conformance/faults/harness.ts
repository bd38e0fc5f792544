// The fault-injection harness: an in-process reference server on a manual clock, optionally behind
// a fault proxy, and a conformance run whose waits advance that clock instead of sleeping.
import { createServer, ManualClock } from '../../server/index.ts';
import { runConformance, type Report, type RunOptions } from '../run.ts';
import { startFaultProxy, type FaultBehaviour, type FaultProxy } from './proxy.ts';

export interface Target {
  baseUrl: string;
  clock: ManualClock;
  stop(): Promise<void>;
}

/** A fresh reference server (memory store, fixture keys and pets), behind `fault` when given. */
export async function startTarget(fault?: FaultBehaviour): Promise<Target> {
  const clock = new ManualClock();
  const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, clock });
  await server.start();
  let proxy: FaultProxy | undefined;
  if (fault) proxy = await startFaultProxy(server.info.uri, fault);
  return {
    baseUrl: `${proxy ? proxy.origin : server.info.uri}/v1`,
    clock,
    stop: async () => {
      await proxy?.close();
      await server.stop({ timeout: 1000 });
    },
  };
}

/** runConformance against a target, on its clock: Retry-After waits move the clock, never sleep. */
export function conformOn(target: Target, options: Partial<RunOptions> = {}): Promise<Report> {
  return runConformance({
    baseUrl: target.baseUrl,
    apiKey: 'test-pro-key',
    dredd: false,
    clock: target.clock,
    sleep: async (ms) => target.clock.advance(ms),
    ...options,
  });
}

export function outcomeOf(report: Report, id: string): string | undefined {
  return report.results.find((r) => r.id === id)?.outcome;
}

export function failedIds(report: Report): string[] {
  return report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned').map((r) => r.id);
}
