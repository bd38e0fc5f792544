// --delay <ms>: every API answer held that long, as json-server's --delay holds its answers, for an
// integrator who wants a slow network without one. Held before routing, as json-server does, so the
// request is decided (and its rate-limit window read) when the wait is over. The admin API, the docs
// and discovery are not API traffic and are not held; a stop ends every wait at once.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Plugin } from '@hapi/hapi';

export interface DelayPluginOptions {
  delayMs: number;
  /** The API's base path (/v1): only requests under it are held. */
  basePath: string;
}

export const delayPlugin: Plugin<DelayPluginOptions> = {
  name: 'delay',
  version: '1.0.0',
  register(server, { delayMs, basePath }) {
    const prefix = `${basePath}/`;
    // Held answers must not hold stop() for up to a minute: stopping ends their wait.
    const stopping = new AbortController();
    server.ext('onPreStop', () => stopping.abort());
    server.ext('onRequest', async (request, h) => {
      const path = request.path;
      if (path === basePath || path.startsWith(prefix)) await sleep(delayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
      return h.continue;
    });
  },
};
