// The Node HTTP server under hapi, made by us so that what goes wrong before hapi sees a request is
// answered like everything else: a slow or stalled client is cut off on time (hapi alone waits for
// a stalled body to finish before it answers, up to Node's 300 s), and errors of Node's HTTP parser
// (oversized headers, bad framing), timeouts and unmet `Expect` get the Error body, not a bare status.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ERRORS, type ErrorCode } from './errors.ts';
import { publicMessage } from './public-message.ts';

export interface ListenerOptions {
  /** Longest time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Longest time to receive a whole request, headers and body. */
  requestTimeoutMs: number;
  /** The Date header's value now, from the server's clock (plugins/date.ts). */
  date: () => string;
}

/** How often Node checks the two timeouts; their precision. */
const CHECK_INTERVAL_MS = 500;

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 417: 'Expectation Failed', 431: 'Request Header Fields Too Large' };

function errorOf(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', message: 'The request headers are larger than the server accepts.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'The request did not arrive in time.' };
    default:
      // The parser's own words name what was wrong ("Transfer-Encoding can't be present with Content-Length").
      return { code: 'bad_request', message: `The request is not valid HTTP: ${publicMessage(error.message.replace(/^Parse Error: /, ''))}.` };
  }
}

/** A whole HTTP/1.1 response with an Error body, for a socket that no hapi request owns. */
export function rawErrorResponse(code: ErrorCode, message: string, date: string): string {
  const status = ERRORS[code].status;
  const body = JSON.stringify({ code, message, status });
  return [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    `Date: ${date}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

function onClientError(date: () => string, error: NodeJS.ErrnoException, socket: Socket): void {
  // A response already under way (say a 401 sent before a body that never came) cannot be replaced.
  const current = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (!socket.writable || current?.headersSent) {
    socket.destroy();
    return;
  }
  const { code, message } = errorOf(error);
  socket.end(rawErrorResponse(code, message, date()));
}

function onUnmetExpectation(date: () => string, response: ServerResponse): void {
  const body = JSON.stringify({ code: 'expectation_failed', message: 'Only "Expect: 100-continue" is supported.', status: 417 });
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), date: date(), connection: 'close' };
  response.writeHead(417, headers);
  response.end(body);
}

/**
 * The listener hapi is given. Call `takeOverErrors` once hapi has added its own handlers: hapi's
 * clientError handler answers a bare 400, so it is replaced.
 */
export function createListener(options: ListenerOptions): { listener: Server; takeOverErrors(): void } {
  const listener = createServer({
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    // Answered by the server itself (400 with an Error body), not by Node with a bare 400.
    requireHostHeader: false,
  });
  const { date } = options;
  // Hapi's answers get Date as they leave hapi; a stream a handler writes itself (h.abandon) gets it here.
  listener.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => response.setHeader('date', date()));
  return {
    listener,
    takeOverErrors() {
      listener.removeAllListeners('clientError');
      listener.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => onClientError(date, error, socket));
      listener.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => onUnmetExpectation(date, response));
    },
  };
}
