// A third, independent implementation of the Animal Adoption Store API, on Express with
// express-rate-limit configured as its users configure it (limits.ts). Test tooling: it keeps the
// conformance kit honest about a popular library's readings of the rate-limit headers. It reads the
// process's clock (Date.now) like any Express app; clocked.ts runs it on a clock a test moves.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE_PATH } from '../../../spec/rules/contract.js';
import { createApp } from './app.ts';
import { resolveOptions, type LibraryServerOptions, type Plan } from './options.ts';
import { PetStore } from './pets.ts';

export { LIBRARY_CHOICES } from './choices.ts';
export { ADDRESS_LIMIT_PER_MINUTE } from './limits.ts';
export { BUGS, type Bug, type LibraryServerOptions, type LimiterOrder, type Plan } from './options.ts';

export interface LibraryServer {
  origin: string;
  /** origin + '/v1' */
  baseUrl: string;
  /** The first key of each plan; '' when `options.keys` gives that plan none. */
  keys: Record<Plan, string>;
  close(): Promise<void>;
}

export async function startLibraryServer(options: LibraryServerOptions = {}): Promise<LibraryServer> {
  const resolved = resolveOptions(options);
  const server = createServer(createApp(resolved, new PetStore(resolved.seed)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const firstKey = (plan: Plan) => [...resolved.keys].find(([, p]) => p === plan)?.[0] ?? '';
  return {
    origin,
    baseUrl: `${origin}${BASE_PATH}`,
    keys: { free: firstKey('free'), pro: firstKey('pro'), business: firstKey('business') },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
