// @ts-check
// The framework's ceiling: hapi routes answering the list and get requests with the reference
// server's exact bytes; no auth, validation, rate limiting or logging.
import Hapi from '@hapi/hapi';
import { BASE_PATH } from '../../spec/rules/contract.js';
import { announce, cannedFromEnv, onTerminate } from './protocol.mjs';

const canned = cannedFromEnv();
const server = Hapi.server({ host: '127.0.0.1', port: 0 });
server.route({ method: 'GET', path: `${BASE_PATH}/pets`, handler: (_request, h) => h.response(canned.list.body).type(canned.list.contentType) });
server.route({ method: 'GET', path: `${BASE_PATH}/pets/{petId}`, handler: (_request, h) => h.response(canned.get.body).type(canned.get.contentType) });
await server.start();
announce(server.info.uri);
onTerminate(() => server.stop({ timeout: 2000 }));
