// @ts-check
// The no-op features floor (bench/README.md, cases 17 and 18): the bare hapi peer with every lifecycle
// step the reference uses running and doing nothing, so that bare hapi over it is hapi's price for
// the steps, and it over the reference our own work.
import Hapi from '@hapi/hapi';
import { BASE_PATH } from '../../spec/rules/contract.js';
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
server.route({ method: 'GET', path: `${BASE_PATH}/pets`, options: { validate: { query: noop }, handler: answer(canned.list) } });
server.route({ method: 'GET', path: `${BASE_PATH}/pets/{petId}`, options: { validate: { params: noop }, handler: answer(canned.get) } });
await server.start();
announce(server.info.uri);
onTerminate(() => server.stop({ timeout: 2000 }));
