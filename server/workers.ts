// `adoption-kit serve --workers <n>`: n server processes on one port (node:cluster), one server only if
// they share PostgreSQL and Redis. The primary serves nothing: it starts, restarts and stops workers.
// Workers accept their own connections (SCHED_NONE): under round-robin a worker killed mid-handoff
// left the primary holding its client's connection open forever (server/README.md, Decisions).
import cluster, { type Worker } from 'node:cluster';
import { stopWithParent } from '../lib/processes.ts';
import type { ServerOptions } from './options.ts';

/** Why these options cannot run as several workers, or undefined when they can. */
export function workersRefusal(workers: number, options: ServerOptions): string | undefined {
  if (workers <= 1) return undefined;
  const missing = [options.storage?.type !== 'postgres' ? '--database <postgres url>' : '', !options.redisUrl ? '--redis <url>' : ''].filter(Boolean);
  if (missing.length === 0) return undefined;
  return `--workers ${workers} needs the shared stores (${missing.join(' and ')}): otherwise each worker keeps its own pets and limits`;
}

export interface WorkerReady {
  type: 'listening';
  banner: string;
}

const isReady = (message: unknown): message is WorkerReady => (message as WorkerReady | null)?.type === 'listening';

export interface RestartPolicy {
  /** Wait before restarting the first crashed worker of a streak; it doubles with each crash after. */
  firstDelayMs: number;
  /** Longest wait before a restart. */
  maxDelayMs: number;
  /** A worker that stayed up this long ends the streak: the next crash waits firstDelayMs again. */
  stableMs: number;
  /** The primary gives up at this many crashes within windowMs. */
  maxCrashes: number;
  windowMs: number;
}

export const RESTART_POLICY: RestartPolicy = { firstDelayMs: 100, maxDelayMs: 5_000, stableMs: 30_000, maxCrashes: 10, windowMs: 60_000 };

export type RestartDecision = { giveUp: false; delayMs: number; crashes: number } | { giveUp: true; crashes: number };

/** When to restart a crashed worker, or that restarting no longer helps. Pure: time is passed in. */
export class RestartBackoff {
  readonly #policy: RestartPolicy;
  #streak = 0;
  #crashes: number[] = [];

  constructor(policy: RestartPolicy) {
    this.#policy = policy;
  }

  /** A worker that had been up `upMs` crashed at `now`. */
  crashed(now: number, upMs: number): RestartDecision {
    const { firstDelayMs, maxDelayMs, stableMs, maxCrashes, windowMs } = this.#policy;
    this.#crashes = [...this.#crashes.filter((at) => at > now - windowMs), now];
    const crashes = this.#crashes.length;
    if (crashes >= maxCrashes) return { giveUp: true, crashes };
    if (upMs >= stableMs) this.#streak = 0;
    const delayMs = Math.min(firstDelayMs * 2 ** this.#streak, maxDelayMs);
    this.#streak++;
    return { giveUp: false, delayMs, crashes };
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs the primary; resolves with the exit code once every worker is gone: 0 after a stop signal,
 * 1 when it gave up on workers that kept crashing (so that a supervisor restarts the whole server)
 * or when a worker failed while stopping.
 */
export function runPrimary(workers: number, write: (text: string) => void, policy: RestartPolicy = RESTART_POLICY): Promise<number> {
  // Read by the first fork only.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  return new Promise((done) => {
    let stopping = false;
    let exitCode = 0;
    let announced = false;
    const ready = new Set<number>();
    const startedAt = new Map<number, number>();
    const restarts = new Set<NodeJS.Timeout>();
    const backoff = new RestartBackoff(policy);
    // Workers whose process has not exited. Not cluster.workers: node:cluster keeps a worker listed
    // until its IPC channel has closed too, which may come after its 'exit'; counted from that list,
    // the last exit of a stop could find a worker still there and the primary never finish (node
    // then ends it with code 13, an unsettled top-level await, where the exit code is 1).
    const live = new Set<number>();
    const alive = () => live.size;
    const finishIfEmpty = () => {
      if (alive() === 0) done(exitCode);
    };

    const fork = (): Worker => {
      const worker = cluster.fork();
      live.add(worker.id);
      startedAt.set(worker.id, Date.now());
      worker.on('message', (message: unknown) => {
        if (!isReady(message)) return;
        ready.add(worker.id);
        if (announced) write(`worker ${worker.process.pid} listening (restarted)\n`);
        if (!announced && ready.size >= workers) {
          announced = true;
          write(`${message.banner}  workers: ${workers} processes on one port (node:cluster), primary ${process.pid}\n`);
        }
      });
      return worker;
    };

    const stopAll = () => {
      stopping = true;
      for (const timer of restarts) clearTimeout(timer);
      restarts.clear();
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      finishIfEmpty();
    };

    cluster.on('exit', (worker, code, signal) => {
      live.delete(worker.id);
      ready.delete(worker.id);
      const upMs = Date.now() - (startedAt.get(worker.id) ?? Date.now());
      startedAt.delete(worker.id);
      const how = signal ?? `code ${code}`;
      if (stopping) {
        // A worker still starting when asked to stop dies of the SIGTERM itself; that is a stop too.
        if (code !== 0 && signal !== 'SIGTERM') exitCode = 1;
        finishIfEmpty();
        return;
      }
      const decision = backoff.crashed(Date.now(), upMs);
      if (decision.giveUp) {
        write(
          `worker ${worker.process.pid} exited (${how}) after ${seconds(upMs)}; ${decision.crashes} crashes within ${seconds(policy.windowMs)}: giving up, stopping every worker, exit 1\n`,
        );
        exitCode = 1;
        stopAll();
        return;
      }
      write(
        `worker ${worker.process.pid} exited (${how}) after ${seconds(upMs)}; restarting it in ${seconds(decision.delayMs)} (crash ${decision.crashes} of ${policy.maxCrashes} allowed within ${seconds(policy.windowMs)})\n`,
      );
      const timer = setTimeout(() => {
        restarts.delete(timer);
        if (!stopping) fork();
      }, decision.delayMs);
      restarts.add(timer);
    });

    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      write(`${signal} received: stopping ${alive()} workers\n`);
      stopAll();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    stopWithParent(() => stop('SIGTERM'));
    // The primary serves nothing: its workers answer for the round trips (server/round-trips.ts).
    process.on('SIGUSR2', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGUSR2');
    });
    for (let i = 0; i < workers; i++) fork();
  });
}

/** In a worker: tells the primary the server listens, with the banner it would print alone. */
export function announceWorker(banner: string): void {
  const ready: WorkerReady = { type: 'listening', banner };
  process.send?.(ready);
}

export const isWorker = (): boolean => cluster.isWorker;
