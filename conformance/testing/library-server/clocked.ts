// The library server on a clock a test moves: it runs in a worker thread whose global Date tells
// the SharedClock's time (clock.ts), so express-rate-limit's windows, Reset, Retry-After and Date
// all move with it, computed by the library exactly as in production.
import { MessageChannel, Worker } from 'node:worker_threads';
import type { SharedClock } from './clock.ts';
import type { Started, ThreadInput } from './clocked-thread.ts';
import type { LibraryServer } from './index.ts';
import { threadImport } from '../../../lib/testing/run-source.ts';

export { SharedClock } from './clock.ts';

// The thread's module, loaded in the worker as lib/testing/run-source.ts says (its bundle, or through tsx).
const thread = new URL('./clocked-thread.ts', import.meta.url);

export async function startClockedLibraryServer(options: ThreadInput['options'], clock: SharedClock): Promise<LibraryServer> {
  const { port1, port2 } = new MessageChannel();
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    (async () => {
      const { serve } = ${threadImport(thread)};
      parentPort.postMessage({ started: await serve(workerData) });
    })().catch((e) => parentPort.postMessage({ error: String(e && e.stack || e) }));`;
  const workerData = { options, clock: clock.buffer, port: port2 };
  const worker = new Worker(source, { eval: true, workerData, transferList: [port2] });
  const answer = await new Promise<{ started?: Started; error?: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  if (!answer.started) {
    await worker.terminate();
    throw new Error(`the library server did not start: ${answer.error}`);
  }
  return {
    ...answer.started,
    close: async () => {
      const closed = new Promise((resolve) => port1.once('message', resolve));
      port1.postMessage({ close: true });
      await closed;
      port1.close();
      await worker.terminate();
    },
  };
}
