// What one flood run measured, and the helpers both flood drivers share.

export interface FloodFigures {
  /** Addresses sent: fewer than planned when --max-seconds stopped the flood. */
  addresses: number;
  planned: number;
  /** Addresses that arrived once the counters already held its ceiling of partitions (0 if never full). */
  addressesOnceFull: number;
  cpuMicrosPerAddress: number;
  cpuMicrosPerAddressOnceFull: number | null;
  normalP50Micros: number;
  normalP99Micros: number;
  rssBeforeMB: number;
  rssAfterMB: number;
  /** Heap in use after the flood, after a full collection when run with --expose-gc (else as found). */
  heapAfterMB: number;
  heapCollected: boolean;
  partitionsAfter: number;
  keyBanSurvived: boolean;
  addressBlockSurvived: boolean;
}

/** The i-th flood address: IPv4 for the first half, IPv6 /64 partitions for the second. */
export function floodAddress(i: number, total: number): string {
  if (i < total / 2) return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return `2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const cpuMicros = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
export const rssMB = (): number => process.memoryUsage().rss / 2 ** 20;

/** Heap in use, after a full collection when the runtime allows one (node --expose-gc). */
export function heapAfterCollection(): { heapAfterMB: number; heapCollected: boolean } {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  return { heapAfterMB: process.memoryUsage().heapUsed / 2 ** 20, heapCollected: collect !== undefined };
}

export interface FloodDriver {
  /** One request (or decision) from a new address. */
  flood(address: string): void | Promise<void>;
  /** One decision for the normal client, timed. */
  normal(): void | Promise<void>;
  /** Partitions the limiter holds now. */
  size(): number;
}

/**
 * Sends one request from each of `planned` distinct addresses (until `maxSeconds`), timing the
 * normal client's decision every `sampleEvery` addresses. Awaits only a driver that is asynchronous,
 * so synchronous counters are measured without the cost of promises.
 */
export async function floodLoop(driver: FloodDriver, planned: number, maxSeconds: number, sampleEvery: number): Promise<FloodRun> {
  const run: FloodRun = { addresses: 0, planned, fullAt: null, fullCpu: 0, startedCpu: cpuMicros(), samples: [], rssBeforeMB: rssMB() };
  let previousSize = driver.size();
  const deadline = performance.now() + maxSeconds * 1000;
  for (let i = 0; i < planned && performance.now() < deadline; i++) {
    run.addresses = i + 1;
    const sent = driver.flood(floodAddress(i, planned));
    if (sent) await sent;
    // The counters are full once a new address no longer makes them grow.
    if (run.fullAt === null && driver.size() === previousSize) {
      run.fullAt = i;
      run.fullCpu = cpuMicros();
    }
    previousSize = driver.size();
    if (i % sampleEvery === 0) {
      const t = process.hrtime.bigint();
      const decided = driver.normal();
      if (decided) await decided;
      run.samples.push(Number(process.hrtime.bigint() - t) / 1_000);
    }
  }
  return run;
}

/** What a flood loop observed; `measured` turns it into the figures both drivers report. */
export interface FloodRun {
  addresses: number;
  planned: number;
  /** The address at which the counters stopped growing, and the CPU time then. */
  fullAt: number | null;
  fullCpu: number;
  startedCpu: number;
  /** Microseconds of the normal key's decisions, in any order. */
  samples: number[];
  rssBeforeMB: number;
}

export function measured(run: FloodRun, after: { partitionsAfter: number; keyBanSurvived: boolean; addressBlockSurvived: boolean }): FloodFigures {
  const ended = cpuMicros();
  const samples = [...run.samples].sort((a, b) => a - b);
  const onceFull = run.fullAt === null ? 0 : run.addresses - run.fullAt;
  return {
    addresses: run.addresses,
    planned: run.planned,
    addressesOnceFull: onceFull,
    cpuMicrosPerAddress: (ended - run.startedCpu) / run.addresses,
    cpuMicrosPerAddressOnceFull: onceFull > 0 ? (ended - run.fullCpu) / onceFull : null,
    normalP50Micros: percentile(samples, 50),
    normalP99Micros: percentile(samples, 99),
    rssBeforeMB: run.rssBeforeMB,
    rssAfterMB: rssMB(),
    ...heapAfterCollection(),
    ...after,
  };
}

export function formatFigures(mode: string, f: FloodFigures): string {
  const us = (n: number | null) => (n === null ? 'n/a (never full)' : `${n.toFixed(2)} µs`);
  return [
    `flood (${mode}): ${f.addresses} distinct addresses, one request each${f.addresses < f.planned ? ` (stopped by --max-seconds: ${f.planned} planned)` : ''}`,
    `  CPU per new address:              ${us(f.cpuMicrosPerAddress)} overall`,
    `  CPU per new address once full:    ${us(f.cpuMicrosPerAddressOnceFull)} (${f.addressesOnceFull} addresses after the counters were full)`,
    `  normal key's decision:            p50 ${f.normalP50Micros.toFixed(2)} µs, p99 ${f.normalP99Micros.toFixed(2)} µs`,
    `  RSS:                              ${f.rssBeforeMB.toFixed(0)} MB before, ${f.rssAfterMB.toFixed(0)} MB after`,
    `  heap in use after:                ${f.heapAfterMB.toFixed(0)} MB${f.heapCollected ? ' (after a full GC)' : ' (no GC forced: run node with --expose-gc)'}`,
    `  partitions held after:            ${f.partitionsAfter}`,
    `  key ban survived:                 ${f.keyBanSurvived ? 'yes' : 'NO'}`,
    `  address block survived:           ${f.addressBlockSurvived ? 'yes' : 'NO'}`,
  ].join('\n');
}
