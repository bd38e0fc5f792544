// @ts-check
// The floor of the features hapi lets the reference server hang on its lifecycle: the bare hapi peer
// plus a no-op auth scheme (the default strategy), no-op onRequest, onPostAuth and onPreResponse
// hooks, a 'response' listener, a no-op route validator and six extra headers, with the values the
// reference sent (Link and the five rate-limit fields). Every step runs and does nothing, so the distance
// from bare hapi is hapi's price for the steps, and the distance to the reference is our own work.
import Hapi from '@hapi/hapi';
import { announce, cannedFromEnv, onTerminate } from './protocol.mjs';

const canned = cannedFromEnv();
const server = Hapi.server({ host: '127.0.0.1', port: 0 });
server.auth.scheme('none-op', () => ({ authenticate: (_request, h) => h.authenticated({ credentials: {} }) }));
server.auth.strategy('none-op', 'none-op');
server.auth.default('none-op');
server.ext('onRequest', (_request, h) => h.continue);
server.ext('onPostAuth', (_request, h) => h.continue);
server.ext('onPreResponse', (_request, h) => h.continue);
server.events.on('response', () => {});

/** @param {{ body: Buffer, contentType: string, headers: Record<string, string> }} canned */
const answer = (canned) => (/** @type {import('@hapi/hapi').Request} */ _request, /** @type {import('@hapi/hapi').ResponseToolkit} */ h) => {
  const response = h.response(canned.body).type(canned.contentType);
  Object.assign(response.headers, canned.headers);
  return response;
};
const noop = async (/** @type {unknown} */ value) => value;
server.route({ method: 'GET', path: '/v1/pets', options: { validate: { query: noop }, handler: answer(canned.list) } });
server.route({ method: 'GET', path: '/v1/pets/{petId}', options: { validate: { params: noop }, handler: answer(canned.get) } });
await server.start();
announce(server.info.uri);
onTerminate(() => server.stop({ timeout: 2000 }));
