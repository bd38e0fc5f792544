// A second, independent implementation of the Animal Adoption Store API on plain node:http, in
// memory, deciding every point the specification leaves open differently from the reference
// server (choices.ts). The conformance kit's own tests run against both: a check that fails
// this server for one of those choices demands more than the specification does.
import { createServer, STATUS_CODES, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { BASE_PATH } from '../../../spec/rules/contract.js';
import { formatHttpDate } from '../../../spec/rules/fields.js';
import { ApiError } from './errors.ts';
import { Limiter } from './limiter.ts';
import { resolveOptions, type Plan, type SecondServerOptions } from './options.ts';
import { PetStore } from './pets.ts';
import { createHandler, rateLimitHeaders } from './routes.ts';

export { SECOND_SERVER_CHOICES } from './choices.ts';
export { ADDRESS_LIMIT_PER_MINUTE } from './limiter.ts';
export { BODY_LIMIT_BYTES } from './http.ts';
export type { Clock, Plan, Race, SecondServerOptions, SeedPet } from './options.ts';
export type { Pet } from './pets.ts';

export interface SecondServer {
  origin: string;
  /** origin + '/v1' */
  baseUrl: string;
  /** The first key of each plan; '' when `options.keys` gives that plan none. */
  keys: { free: string; pro: string; business: string };
  close(): Promise<void>;
}

/** Framing errors Node's parser reports before there is a request to hand over. */
function framingError(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new ApiError(431, 'HEADERS_TOO_LARGE', 'The request headers are too large.');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError(408, 'REQUEST_TIMEOUT', 'The request did not arrive in time.');
  return new ApiError(400, 'BAD_REQUEST', 'The request is not valid HTTP/1.1.');
}

export async function startSecondServer(options: SecondServerOptions = {}): Promise<SecondServer> {
  const resolved = resolveOptions(options);
  const store = new PetStore(resolved.seed, resolved.race.ids ? { raceGap: resolved.race.gap } : {});
  const limiter = new Limiter(resolved);
  let origin = '';
  const handle = createHandler({ options: resolved, store, limiter, origin: () => origin });

  // Without Host the handler answers 400 itself, with the Error body and the headers Node would omit.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    // Errors of a vanished client are not the server's to report.
    req.on('error', () => {});
    res.on('error', () => {});
    handle(req, res).catch(() => res.destroy());
  });
  /** An Error response written straight to a socket Node's HTTP layer has given up on. */
  const refuseRaw = (socket: Duplex & { remoteAddress?: string }, refusal: ApiError) => {
    const text = JSON.stringify(refusal.body);
    const headers = {
      Date: formatHttpDate(resolved.clock.now()),
      ...rateLimitHeaders(limiter.forAddress(socket.remoteAddress ?? '')),
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
      Connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n${head}\r\n${text}`);
  };
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    refuseRaw(socket, framingError(error));
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {});
    refuseRaw(socket, new ApiError(400, 'BAD_REQUEST', 'CONNECT is not served here.'));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

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
