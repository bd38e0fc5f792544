// A real server for the k6 shim, in a worker thread: the shim's thread blocks on every request as a
// k6 VU does, so a batch reaches the server at once and is decided concurrently. On the fake clock
// the server reads the shim's time from a shared Float64; only the racy build's gap is real time.
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { LibraryServerOptions } from '../../conformance/testing/library-server/index.ts';
import type { SecondServerOptions } from '../../conformance/testing/second-server/index.ts';
import type { FakeRequest, FakeResponse, Handler } from './k6-shim.ts';
import { threadImport } from '../../lib/testing/run-source.ts';

export type TargetSpec =
  | { kind: 'reference' }
  | { kind: 'second'; options: Omit<SecondServerOptions, 'clock' | 'host' | 'port'> }
  // express-rate-limit reads Date.now: on the shim's clock this worker's Date tells the shared one.
  | { kind: 'library'; options: Omit<LibraryServerOptions, 'host' | 'port'> };

export type WireRequest = Pick<FakeRequest, 'method' | 'url' | 'headers' | 'body'>;
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface WorkerTarget {
  baseUrl: string;
  /** For runScript: one request, or (`handler.batch`) a batch sent at once. */
  handler: Handler;
  /** Requests sent at once, batch by batch, for tests that check what was concurrent. */
  batches: number[];
  close(): Promise<void>;
}

// The thread's module, loaded in the worker as lib/testing/run-source.ts says (its bundle, or through tsx).
const thread = new URL('./worker-target-thread.ts', import.meta.url);
const BATCH_TIMEOUT_MS = 30_000;

/**
 * Starts the target in a worker. `startMs`: the servers run on the shim's clock, starting there
 * (the handler moves it to each batch's time); null: they run on the real clock.
 */
export async function startWorkerTarget(spec: TargetSpec, startMs: number | null): Promise<WorkerTarget> {
  const clock = startMs === null ? null : new SharedArrayBuffer(8);
  if (clock) new Float64Array(clock)[0] = startMs!;
  const signal = new SharedArrayBuffer(4);
  const flag = new Int32Array(signal);
  const { port1, port2 } = new MessageChannel();
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    (async () => {
      const { serve } = ${threadImport(thread)};
      parentPort.postMessage({ baseUrl: await serve(workerData) });
    })().catch((e) => parentPort.postMessage({ error: String(e && e.stack || e) }));`;
  const worker = new Worker(source, { eval: true, workerData: { spec, clock, signal, port: port2 }, transferList: [port2] });
  const started = await new Promise<{ baseUrl?: string; error?: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  if (!started.baseUrl) {
    await worker.terminate();
    throw new Error(`the target did not start: ${started.error}`);
  }

  /** Blocks this thread until the worker answers; the worker's own event loop does the sending. */
  const call = (message: unknown): unknown => {
    Atomics.store(flag, 0, 0);
    port1.postMessage(message);
    if (Atomics.wait(flag, 0, 0, BATCH_TIMEOUT_MS) === 'timed-out') throw new Error(`no answer from the target in ${BATCH_TIMEOUT_MS} ms`);
    // The flag has been seen set before the message could be taken (once, in a run of the suite beside
    // two busy loops): the message is taken as soon as it is there, within the same bound.
    const until = Date.now() + BATCH_TIMEOUT_MS;
    let received = receiveMessageOnPort(port1);
    while (!received && Date.now() < until) {
      Atomics.wait(flag, 0, 1, 1);
      received = receiveMessageOnPort(port1);
    }
    if (!received) throw new Error(`the target signalled but posted nothing in ${BATCH_TIMEOUT_MS} ms`);
    return received.message;
  };

  const batches: number[] = [];
  const batch = (requests: FakeRequest[], nowMs: number): FakeResponse[] => {
    if (clock) new Float64Array(clock)[0] = nowMs;
    batches.push(requests.length);
    const answer = call({ requests: requests.map(({ method, url, headers, body }) => ({ method, url, headers, body })) }) as WireResponse[] | { error: string };
    if (!Array.isArray(answer)) throw new Error(`the target failed: ${answer.error}`);
    return answer.map((r) => ({ status: r.status, headers: r.headers, body: r.body }));
  };
  const handler: Handler = Object.assign((req: FakeRequest, nowMs: number) => batch([req], nowMs)[0]!, { batch });
  return {
    baseUrl: started.baseUrl,
    handler,
    batches,
    close: async () => {
      call({ close: true });
      port1.close();
      await worker.terminate();
    },
  };
}
