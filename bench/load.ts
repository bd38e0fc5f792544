// The load generator: wrk when it is installed (bench/wrk.ts), else autocannon in a Node process of
// its own (bench/drive.ts). Either one runs on the load core, reports its own CPU time, and is the
// same for every case of a run.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { awaitMessage, nodeTsArgs, processTicks, spawnChild, stopChild, TICKS_PER_SECOND, type Pinning } from './proc.ts';
import type { Histogram, RoundMeasure } from './stats.ts';
import { findWrk, WrkGenerator } from './wrk.ts';
import type { LoadGenerator, LoadMeasure, LoadRequest } from './load-generator.ts';

const DRIVE_SCRIPT = fileURLToPath(new URL('./drive.ts', import.meta.url));

export type { LoadGenerator, LoadMeasure, LoadRequest } from './load-generator.ts';

export type GeneratorChoice = 'auto' | 'wrk' | 'autocannon';

/** The generator to use: wrk when present (or asked for), else autocannon; `note` says why when it is not wrk. */
export async function openGenerator(choice: GeneratorChoice, pinning: Pinning | null, dir: string): Promise<{ generator: LoadGenerator; note?: string }> {
  if (choice !== 'autocannon') {
    const wrk = await findWrk();
    if (wrk) return { generator: new WrkGenerator(wrk.path, wrk.version, pinning, dir) };
    if (choice === 'wrk') throw new Error('--generator wrk: wrk is not on PATH (Debian: apt-get install wrk)');
    return {
      generator: new AutocannonGenerator(pinning),
      note: 'wrk is not on PATH: the load generator is autocannon, which saturates several times earlier (see bench/README.md)',
    };
  }
  return { generator: new AutocannonGenerator(pinning) };
}

/** The autocannon driver's request, over IPC. */
export interface DriveRequest extends LoadRequest {
  type: 'drive';
  id: number;
}

/** What the driver sends back. */
export interface DriveResult extends Pick<RoundMeasure, 'ok' | 'unexpected' | 'errors' | 'timeouts' | 'seconds' | 'bytes'> {
  type: 'result';
  id: number;
  /** [microseconds, count] pairs. */
  latency: Array<[number, number]>;
  ids?: number[] | undefined;
}

export function isDriveResult(m: unknown): m is DriveResult {
  return typeof m === 'object' && m !== null && (m as DriveResult).type === 'result';
}

const AUTOCANNON_VERSION = (
  JSON.parse(readFileSync(fileURLToPath(new URL('../node_modules/autocannon/package.json', import.meta.url)), 'utf8')) as { version: string }
).version;

/** autocannon in one Node process for the whole run, pinned to the load core, driven over IPC. */
export class AutocannonGenerator implements LoadGenerator {
  readonly name = 'autocannon';
  readonly version = AUTOCANNON_VERSION;
  readonly description = `autocannon ${AUTOCANNON_VERSION}, one Node process`;
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

  async run(request: LoadRequest): Promise<LoadMeasure> {
    const id = this.#next++;
    const budgetMs = (request.duration + 60) * 1000;
    const answer = awaitMessage(this.#child, (m): m is DriveResult => isDriveResult(m) && m.id === id, budgetMs, `load generator for ${request.url}`);
    const before = processTicks(this.#child.pid!);
    this.#child.send({ type: 'drive', id, ...request } satisfies DriveRequest);
    const result = await answer;
    const latency: Histogram = new Map(result.latency);
    return {
      ok: result.ok,
      unexpected: result.unexpected,
      errors: result.errors,
      timeouts: result.timeouts,
      seconds: result.seconds,
      bytes: result.bytes,
      latency,
      generatorCpuSeconds: (processTicks(this.#child.pid!) - before) / TICKS_PER_SECOND,
      ids: result.ids,
    };
  }

  async close(): Promise<void> {
    if (this.#child.connected) this.#child.disconnect();
    await stopChild(this.#child, 'SIGTERM', 2000);
  }
}
