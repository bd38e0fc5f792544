// `adoption-kit serve --workers <n>`: n server processes on one port (node:cluster), for machines with
// more cores than one process can use. They are one server only if they share their state, so the
// command requires the PostgreSQL store and Redis. The primary process serves nothing: it starts the
// workers, prints the banner once they all listen, replaces a worker that dies (at most a few times a
// minute), and on SIGTERM or SIGINT stops them all, each finishing its in-flight requests.
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

/** How many replacements a minute before the primary gives up (a worker that cannot start). */
const MAX_RESTARTS_PER_MINUTE = 5;

/** Runs the primary; resolves with the exit code once every worker is gone after a stop signal. */
export function runPrimary(workers: number, write: (text: string) => void): Promise<number> {
  return new Promise((done) => {
    let stopping = false;
    let announced = false;
    const ready = new Set<number>();
    const restarts: number[] = [];

    const fork = (): Worker => {
      const worker = cluster.fork();
      worker.on('message', (message: unknown) => {
        if (!isReady(message)) return;
        ready.add(worker.id);
        if (!announced && ready.size >= workers) {
          announced = true;
          write(`${message.banner}  workers: ${workers} processes on one port (node:cluster), primary ${process.pid}\n`);
        }
      });
      return worker;
    };

    cluster.on('exit', (worker, code, signal) => {
      ready.delete(worker.id);
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) done(0);
        return;
      }
      const now = Date.now();
      restarts.push(now);
      while (restarts[0]! < now - 60_000) restarts.shift();
      if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
        write(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); ${restarts.length} workers died within a minute, stopping\n`);
        stopping = true;
        for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
        if (Object.keys(cluster.workers ?? {}).length === 0) done(1);
        return;
      }
      write(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another\n`);
      fork();
    });

    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      write(`${signal} received: stopping ${Object.keys(cluster.workers ?? {}).length} workers\n`);
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    stopWithParent(() => stop('SIGTERM'));
    for (let i = 0; i < workers; i++) fork();
  });
}

/** In a worker: tells the primary the server listens, with the banner it would print alone. */
export function announceWorker(banner: string): void {
  const ready: WorkerReady = { type: 'listening', banner };
  process.send?.(ready);
}

export const isWorker = (): boolean => cluster.isWorker;
