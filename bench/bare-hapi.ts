// The framework's ceiling: one hapi route answering GET /v1/pets with the reference server's
// bytes; no auth, validation, rate limiting or logging.
import { readFileSync } from 'node:fs';
import Hapi from '@hapi/hapi';
import { announce, cannedFromEnv, onTerminate } from './child-protocol.ts';

const canned = cannedFromEnv();
const body = readFileSync(canned.bodyFile);

const server = Hapi.server({ host: '127.0.0.1', port: 0 });
server.route({
  method: 'GET',
  path: '/v1/pets',
  handler: (_request, h) => h.response(body).type(canned.contentType),
});
await server.start();
announce(server.info.uri);
onTerminate(() => server.stop({ timeout: 2000 }));
