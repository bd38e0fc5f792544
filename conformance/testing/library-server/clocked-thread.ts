// The worker side of clocked.ts: this thread's Date tells the shared clock, then the library server
// starts here and serves until told to close.
import type { MessagePort } from 'node:worker_threads';
import { installDateClock, SharedClock } from './clock.ts';
import type { LibraryServerOptions, Plan } from './options.ts';

export interface ThreadInput {
  options: Omit<LibraryServerOptions, 'host' | 'port'>;
  clock: SharedArrayBuffer;
  port: MessagePort;
}

export interface Started {
  origin: string;
  baseUrl: string;
  keys: Record<Plan, string>;
}

export async function serve(input: ThreadInput): Promise<Started> {
  const clock = new SharedClock(input.clock);
  installDateClock(() => clock.now());
  // Imported after the clock is in place, so that nothing captures the real Date first.
  const { startLibraryServer } = await import('./index.ts');
  const server = await startLibraryServer(input.options);
  input.port.on('message', () => {
    server.close().then(
      () => input.port.postMessage({ closed: true }),
      (e: unknown) => input.port.postMessage({ closed: true, error: String(e) }),
    );
  });
  return { origin: server.origin, baseUrl: server.baseUrl, keys: server.keys };
}
