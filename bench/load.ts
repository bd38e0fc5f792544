// Parent side of the load generator: one child process per measurement (see drive.ts), pinned
// to the load core when pinning is on, identical for every case.
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { awaitMessage, nodeTsArgs, spawnChild, stopChild, type Pinning } from './proc.ts';
import type { RoundMeasure } from './stats.ts';

const DRIVE_SCRIPT = fileURLToPath(new URL('./drive.ts', import.meta.url));

export interface DriveRequest {
  type: 'drive';
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration: number;
  amount?: number | undefined;
  expectStatus: number;
  /** Where to write the Float64 latency samples. */
  samplesFile: string;
}

export interface DriveResult {
  type: 'result';
  ok: number;
  unexpected: Record<string, number>;
  errors: number;
  timeouts: number;
  seconds: number;
  bytes: number;
  samplesFile: string;
}

export function isDriveResult(m: unknown): m is DriveResult {
  return typeof m === 'object' && m !== null && (m as DriveResult).type === 'result';
}

export type LoadMeasure = Omit<RoundMeasure, 'round'>;

export async function runLoad(request: Omit<DriveRequest, 'type'>, pinning: Pinning | null): Promise<LoadMeasure> {
  const child = spawnChild({
    command: process.execPath,
    args: nodeTsArgs(DRIVE_SCRIPT),
    cpu: pinning?.load,
    env: { ...process.env, BENCH_ROLE: 'drive' },
    output: 'inherit',
    ipc: true,
  });
  try {
    const budgetMs = (request.amount !== undefined ? 120 : request.duration + 60) * 1000;
    const answer = awaitMessage(child, isDriveResult, budgetMs, `load generator for ${request.url}`);
    child.send({ type: 'drive', ...request } satisfies DriveRequest);
    const result = await answer;
    const raw = readFileSync(result.samplesFile);
    rmSync(result.samplesFile, { force: true });
    const latencies = new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    return {
      ok: result.ok,
      unexpected: result.unexpected,
      errors: result.errors,
      timeouts: result.timeouts,
      seconds: result.seconds,
      bytes: result.bytes,
      latencies,
    };
  } finally {
    await stopChild(child, 'SIGTERM', 2000);
  }
}
