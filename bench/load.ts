// Parent side of the load generator (see drive.ts): one child process for the whole run, pinned
// to the load core when pinning is on, identical for every case.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { awaitMessage, nodeTsArgs, spawnChild, stopChild, type Pinning } from './proc.ts';
import type { RoundMeasure } from './stats.ts';

const DRIVE_SCRIPT = fileURLToPath(new URL('./drive.ts', import.meta.url));

export interface DriveRequest {
  type: 'drive';
  id: number;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Stop early once this many expected-status responses arrived (a warm-up that must not grow a store much). */
  stopAfterOk?: number | undefined;
  expectStatus: number;
  /** Where to write the Float64 latency samples. */
  samplesFile: string;
}

/** What the driver sends back: the round's counts, its latencies left in `samplesFile`. */
export interface DriveResult extends Pick<RoundMeasure, 'ok' | 'unexpected' | 'errors' | 'timeouts' | 'seconds' | 'bytes'> {
  type: 'result';
  id: number;
  samplesFile: string;
}

export function isDriveResult(m: unknown): m is DriveResult {
  return typeof m === 'object' && m !== null && (m as DriveResult).type === 'result';
}

export type LoadMeasure = Omit<RoundMeasure, 'round' | 'foreignCores' | 'serverCpuSeconds'>;
export type LoadRequest = Omit<DriveRequest, 'type' | 'id'>;

/** The load generator process: started once per run, pinned to its core, driven over IPC. */
export class LoadGenerator {
  readonly #child: ChildProcess;
  #next = 1;

  constructor(pinning: Pinning | null) {
    this.#child = spawnChild({
      command: process.execPath,
      args: nodeTsArgs(DRIVE_SCRIPT),
      cpu: pinning?.load,
      env: { ...process.env, BENCH_ROLE: 'drive' },
      output: 'inherit',
      ipc: true,
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  async run(request: LoadRequest): Promise<LoadMeasure> {
    const id = this.#next++;
    const budgetMs = (request.duration + 60) * 1000;
    const answer = awaitMessage(this.#child, (m): m is DriveResult => isDriveResult(m) && m.id === id, budgetMs, `load generator for ${request.url}`);
    this.#child.send({ type: 'drive', id, ...request } satisfies DriveRequest);
    const result = await answer;
    const raw = readFileSync(result.samplesFile);
    rmSync(result.samplesFile, { force: true });
    return {
      ok: result.ok,
      unexpected: result.unexpected,
      errors: result.errors,
      timeouts: result.timeouts,
      seconds: result.seconds,
      bytes: result.bytes,
      latencies: new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)),
    };
  }

  async close(): Promise<void> {
    if (this.#child.connected) this.#child.disconnect();
    await stopChild(this.#child, 'SIGTERM', 2000);
  }
}
