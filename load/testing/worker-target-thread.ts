// The worker side of worker-target.ts: starts one real server on this thread's event loop and
// answers each batch of requests it is handed by sending them all at once over HTTP, so that the
// server sees them concurrently while the shim's thread blocks, as a k6 VU blocks on http.batch.
import type { MessagePort } from 'node:worker_threads';
import type { TargetSpec, WireRequest, WireResponse } from './worker-target.ts';
import { shuffled } from '../../spec/rules/testing/traffic.ts';

export interface ThreadInput {
  spec: TargetSpec;
  /** One Float64 (the manual clock, epoch ms) when the servers run on the shim's clock; null for the real one. */
  clock: SharedArrayBuffer | null;
  /** One Int32: 0 while a batch is out, 1 once its answers are posted. */
  signal: SharedArrayBuffer;
  port: MessagePort;
}

async function startServer(spec: TargetSpec, clock: { now(): number } | undefined): Promise<{ baseUrl: string; close(): Promise<void> }> {
  if (spec.kind === 'library') {
    // The worker serves nothing else: its global Date may tell the shim's clock (library-server/clock.ts).
    if (clock) (await import('../../conformance/testing/library-server/clock.ts')).installDateClock(() => clock.now());
    const { startLibraryServer } = await import('../../conformance/testing/library-server/index.ts');
    const server = await startLibraryServer(spec.options);
    return { baseUrl: server.baseUrl, close: () => server.close() };
  }
  if (spec.kind === 'second') {
    const { startSecondServer } = await import('../../conformance/testing/second-server/index.ts');
    const server = await startSecondServer({ ...spec.options, ...(clock ? { clock } : {}) });
    return { baseUrl: server.baseUrl, close: () => server.close() };
  }
  const { createServer } = await import('../../server/index.ts');
  const server = await createServer({
    host: '127.0.0.1',
    port: 0,
    logger: false,
    storage: { type: 'memory' },
    ...(clock ? { clock } : {}),
  });
  await server.start();
  return { baseUrl: `${server.info.uri}/v1`, close: () => server.stop({ timeout: 1000 }) };
}

async function send(req: WireRequest, dropDate: boolean): Promise<WireResponse> {
  try {
    const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body ?? undefined });
    const body = await res.text();
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (!(dropDate && name === 'date')) headers[name] = value;
    });
    return { status: res.status, headers, body };
  } catch {
    return { status: 0, headers: {}, body: '' };
  }
}

/** A shuffled order of n requests, the same in every run (seeded by the batch's number). */
let batchNumber = 0;
function raceOrder(n: number): number[] {
  return shuffled(
    Array.from({ length: n }, (_v, i) => i),
    ++batchNumber * 0x9e3779b9,
  );
}

export async function serve(input: ThreadInput): Promise<string> {
  const shared = input.clock ? new Float64Array(input.clock) : null;
  const clock = shared ? { now: () => shared[0]! } : undefined;
  const server = await startServer(input.spec, clock);
  // The reference server's Date header is written by Node from the real time, not from the manual
  // clock its limiter reads: on the shim's clock it is not the server's, so the script judges by
  // its own clock, which is the server's here (as it does for a target that sends no Date).
  const dropDate = shared !== null && input.spec.kind === 'reference';
  const signal = new Int32Array(input.signal);
  input.port.on('message', (message: { requests?: WireRequest[]; close?: true }) => {
    const reply = (value: unknown) => {
      input.port.postMessage(value);
      Atomics.store(signal, 0, 1);
      Atomics.notify(signal, 0);
    };
    if (message.close) {
      server.close().then(
        () => reply({ closed: true }),
        (e: unknown) => reply({ closed: true, error: String(e) }),
      );
      return;
    }
    const requests = message.requests ?? [];
    // k6's connections race: the server decides a batch in an order unrelated to the order of the
    // requests, which is the order http.batch hands the answers back in.
    const answers: WireResponse[] = new Array(requests.length);
    Promise.all(raceOrder(requests.length).map(async (i) => (answers[i] = await send(requests[i]!, dropDate)))).then(
      () => reply(answers),
      (e: unknown) => reply({ error: String(e) }),
    );
  });
  return server.baseUrl;
}
