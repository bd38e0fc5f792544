// HTTP rules hapi does not apply by itself: Host required on HTTP/1.1 (RFC 9112 §3.2) and never twice
// (RFC 9110 §7.2; Node keeps the first), OPTIONS without Origin and `OPTIONS *` answered with Allow
// (RFC 9110 §9.3.7), content codings case-insensitive (RFC 9110 §8.4.1), and a chunked body over the
// size limit answered 413 rather than with a reset connection.
import type { Plugin, Request, ResponseToolkit, Server } from '@hapi/hapi';
import { apiError } from '../errors.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods a path answers with a route of its own (not the catch-all 405 route), and OPTIONS. */
function allowed(request: Request): string[] | undefined {
  const server = request.server;
  const own = METHODS.filter((method) => {
    const route = server.match(method === 'HEAD' ? 'get' : (method.toLowerCase() as Lowercase<typeof method>), request.path);
    return route !== null && route.method !== '*';
  });
  return own.length > 0 ? [...own, 'OPTIONS'] : undefined;
}

/** The methods any route of the server has (GET implies HEAD), and OPTIONS: the answer to `OPTIONS *`. */
function serverMethods(server: Server): string[] {
  const routed = new Set(server.table().map((route) => route.method.toUpperCase()));
  return [...METHODS.filter((method) => routed.has(method === 'HEAD' ? 'GET' : method)), 'OPTIONS'];
}

/**
 * How many Host fields the request carried, as sent: Node's `headers` keeps only the first. An
 * injected request (server.inject) has no rawHeaders, and its headers object holds one Host at most.
 */
function hostFields(req: Request['raw']['req']): number {
  const raw = req.rawHeaders as readonly string[] | undefined;
  if (raw === undefined) return req.headers.host === undefined ? 0 : 1;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') count++;
  return count;
}

const noop = () => {};

export const httpRulesPlugin: Plugin<void> = {
  name: 'http-rules',
  version: '1.0.0',
  register(server) {
    let everyMethod: string[] | undefined;

    server.ext('onRequest', (request: Request, h: ResponseToolkit) => {
      const req = request.raw.req;
      if (req.httpVersion === '1.1' && !request.headers.host) {
        throw apiError('bad_request', 'An HTTP/1.1 request must carry a Host header.');
      }
      if (hostFields(req) > 1) throw apiError('bad_request', 'A request must carry one Host header, not several.');
      // The asterisk-form names the server itself, not a path (RFC 9112 §3.2.4): what it can do.
      if (req.url === '*' && request.method === 'options') {
        everyMethod ??= serverMethods(request.server);
        return h.response().code(204).header('Allow', everyMethod.join(', ')).takeover();
      }
      if (request.method === 'options' && !request.headers.origin) {
        const allow = allowed(request);
        if (!allow) throw apiError('route_not_found', `No route for OPTIONS ${request.path}.`);
        return h.response().code(204).header('Allow', allow.join(', ')).takeover();
      }
      // hapi's decoders and json-body.ts look a coding up by its exact name: "GZIP" must find gzip.
      const encoding: unknown = request.headers['content-encoding'];
      if (typeof encoding === 'string') request.headers['content-encoding'] = encoding.trim().toLowerCase();
      // Over the size limit hapi destroys the stream it reads: for a chunked body that is the socket,
      // and the client gets a reset, not the 413. A 'peek' listener gives hapi a stream of its own to
      // destroy; the rest of the body is drained as for a Content-Length too large.
      if (request.headers['transfer-encoding'] !== undefined) request.events.on('peek', noop);
      return h.continue;
    });
  },
};
