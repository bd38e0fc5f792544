// What one flood run measured, and the helpers both flood drivers share.

export interface FloodFigures {
  /** Addresses sent: fewer than planned when --max-seconds stopped the flood. */
  addresses: number;
  planned: number;
  /** Addresses that arrived once the store already held its ceiling of partitions (0 if never full). */
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

export function formatFigures(mode: string, f: FloodFigures): string {
  const us = (n: number | null) => (n === null ? 'n/a (never full)' : `${n.toFixed(2)} µs`);
  return [
    `flood (${mode}): ${f.addresses} distinct addresses, one request each${f.addresses < f.planned ? ` (stopped by --max-seconds: ${f.planned} planned)` : ''}`,
    `  CPU per new address:              ${us(f.cpuMicrosPerAddress)} overall`,
    `  CPU per new address once full:    ${us(f.cpuMicrosPerAddressOnceFull)} (${f.addressesOnceFull} addresses after the store was full)`,
    `  normal key's decision:            p50 ${f.normalP50Micros.toFixed(2)} µs, p99 ${f.normalP99Micros.toFixed(2)} µs`,
    `  RSS:                              ${f.rssBeforeMB.toFixed(0)} MB before, ${f.rssAfterMB.toFixed(0)} MB after`,
    `  heap in use after:                ${f.heapAfterMB.toFixed(0)} MB${f.heapCollected ? ' (after a full GC)' : ' (no GC forced: run node with --expose-gc)'}`,
    `  partitions held after:            ${f.partitionsAfter}`,
    `  key ban survived:                 ${f.keyBanSurvived ? 'yes' : 'NO'}`,
    `  address block survived:           ${f.addressBlockSurvived ? 'yes' : 'NO'}`,
  ].join('\n');
}
