// @ts-check
// The floor of the features hapi lets the reference server hang on its lifecycle: the bare hapi peer
// plus a no-op auth scheme (the default strategy), no-op onRequest, onPostAuth and onPreResponse
// hooks, a 'response' listener, a no-op query validator and six extra headers of the reference's
// sizes (Link and the five rate-limit fields). Every step runs and does nothing, so the distance
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

const HEADERS = {
  link: '</v1/pets?limit=20&cursor=YWZ0ZXI6MjA>; rel="next"',
  'x-ratelimit-limit': '1000000000',
  'ratelimit-policy': '"minute";q=1000000000;w=60, "day";q=1000000000000;w=86400',
  ratelimit: '"minute";r=999999999;t=60, "day";r=999999999999;t=86400',
  'x-ratelimit-remaining': '999999999',
  'x-ratelimit-reset': '1795458888',
};
/** @param {Buffer} body @param {string} type */
const answer = (body, type) => (/** @type {import('@hapi/hapi').Request} */ _request, /** @type {import('@hapi/hapi').ResponseToolkit} */ h) => {
  const response = h.response(body).type(type);
  Object.assign(response.headers, HEADERS);
  return response;
};
const noop = async (/** @type {unknown} */ value) => value;
server.route({ method: 'GET', path: '/v1/pets', options: { validate: { query: noop }, handler: answer(canned.list.body, canned.list.contentType) } });
server.route({ method: 'GET', path: '/v1/pets/{petId}', options: { validate: { params: noop }, handler: answer(canned.get.body, canned.get.contentType) } });
await server.start();
announce(server.info.uri);
onTerminate(() => server.stop({ timeout: 2000 }));
