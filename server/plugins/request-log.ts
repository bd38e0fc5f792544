import { hostname } from 'node:os';
import type { Plugin, Request, ResponseObject } from '@hapi/hapi';
import type { Boom } from '@hapi/boom';
import pino, { type Logger } from 'pino';
import { redactUrl } from '../../spec/rules/redact.js';

export interface RequestLogOptions {
  /** pino level: at info one line per request; at warn only warnings and errors. */
  level: string;
  /** Where the JSON lines go; default: stdout, written asynchronously. */
  stream?: NodeJS.WritableStream;
}

/**
 * What a request line says. Deliberately not the headers: the Authorization header must never be
 * logged, and copying and redacting every header was once the largest cost of a request.
 */
function requestFields(request: Request) {
  return { id: request.info.id, method: request.method, url: redactUrl(request.raw.req.url ?? ''), remoteAddress: request.info.remoteAddress };
}

/**
 * The status a request was answered with. A handler that took the socket over (h.abandon: the live
 * view's event stream) leaves a symbol as its response; the status is then the one it wrote.
 */
function statusOf(request: Request): number | undefined {
  const response = request.response as ResponseObject | Boom | symbol | null;
  if (response === null || typeof response !== 'object') return request.raw.res.headersSent ? request.raw.res.statusCode : undefined;
  return 'isBoom' in response && response.isBoom ? response.output.statusCode : (response as ResponseObject).statusCode;
}

/**
 * Lines are handed on once this much is buffered... Each write is a hand-off to libuv's thread
 * pool and back; at 16 KiB (some 65 lines) those cost about 2 us a request in a profile.
 */
const FLUSH_BYTES = 64 * 1024;
/** ...or this long after the first of them was written, whichever comes first. */
const FLUSH_MS = 100;

/**
 * Collects log lines and hands them on in one write: under load a write per line cost a twentieth
 * of a request's CPU. A line waits at most FLUSH_MS; what is pending is written on stop and on exit.
 */
function batched(destination: NodeJS.WritableStream | pino.DestinationStream): pino.DestinationStream & { flushNow(): void } {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flushNow = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const text = pending;
    pending = '';
    destination.write(text);
  };
  process.once('exit', flushNow);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= FLUSH_BYTES) flushNow();
      else if (!timer) timer = setTimeout(flushNow, FLUSH_MS).unref();
    },
    flushNow,
  };
}

/** The request line pino would write for these fields, built directly: it is the line of every request. */
function requestLine(request: Request, base: string): string {
  const { id, remoteAddress, received } = request.info;
  // A query parameter named like a secret (?api_key=) is not written to the log.
  const url = redactUrl(request.raw.req.url ?? '');
  const now = Date.now();
  return (
    `{"level":30,"time":${now},${base},"req":{"id":${JSON.stringify(id)},"method":"${request.method}","url":${JSON.stringify(url)},` +
    `"remoteAddress":${JSON.stringify(remoteAddress)}},"res":{"statusCode":${statusOf(request) ?? 'null'}},"responseTime":${now - received},"msg":"request completed"}\n`
  );
}

/**
 * One JSON line per request and the server's own warnings and errors, through pino. Written here
 * rather than through hapi-pino, which builds a child logger for every request: half the cost of a
 * request's logging went there (npm run bench), for fields this server does not log.
 */
export const requestLogPlugin: Plugin<RequestLogOptions> = {
  name: 'request-log',
  version: '1.0.0',
  register(server, { level, stream }) {
    // Asynchronous writes: lines written while one write is pending go out together, so a busy
    // server makes one write call for many lines; flushed when the server stops.
    const underlying = stream ?? pino.destination({ dest: 1, sync: false });
    const destination = batched(underlying);
    const logger: Logger = pino({ level }, destination);
    const base = `"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

    if (logger.isLevelEnabled('info')) {
      server.events.on('response', (request) => destination.write(requestLine(request, base)));
    }
    // request.log(['error'], error) and errors hapi itself reports for a request.
    server.events.on({ name: 'request', channels: ['app', 'error'] }, (request, event, tags) => {
      if (!tags.error && !tags.warn) return;
      const fields = {
        req: requestFields(request),
        tags: event.tags,
        ...(event.error ? { err: event.error } : event.data !== undefined ? { data: event.data } : {}),
      };
      if (tags.error) logger.error(fields, 'request error');
      else logger.warn(fields, 'request warning');
    });
    // server.log(['...', 'warn'], message): the rate limiter's Redis fallback, for one.
    server.events.on('log', (event, tags) => {
      const fields = { tags: event.tags, ...(event.error ? { err: event.error } : {}) };
      const message = typeof event.data === 'string' ? event.data : 'server event';
      if (tags.error) logger.error(fields, message);
      else if (tags.warn) logger.warn(fields, message);
      else logger.info(fields, message);
    });
    server.ext('onPostStart', () => logger.info({ uri: server.info.uri }, 'server started'));
    server.ext('onPostStop', () => {
      logger.info({ uri: server.info.uri }, 'server stopped');
      destination.flushNow();
      try {
        (underlying as { flushSync?: () => void }).flushSync?.();
      } catch {
        // nothing was pending, or stdout is already gone
      }
    });
  },
};
