import type { Lifecycle, Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { apiError, errorBody, namedCode, storageUnavailable, type ErrorBody, type ErrorCode } from '../errors.ts';
import { publicMessage } from '../public-message.ts';

/**
 * The route `failAction` for validation: a 400 with `code` and the validator's message, which names
 * the offending field. Validation failures never reach a handler, so they change nothing.
 */
export function rejectInvalid(code: ErrorCode): Lifecycle.FailAction {
  return (_request: Request, _h: ResponseToolkit, error?: Error) => {
    throw apiError(code, error?.message ?? 'The request is invalid.');
  };
}

/** The `payload.failAction` for bodies that cannot be parsed: bad JSON, too large, wrong media type. */
export function rejectUnparsableBody(maxBodyBytes: number): Lifecycle.FailAction {
  return (_request, _h, error) => {
    const status = (error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode ?? 400;
    if (status === 413) throw apiError('payload_too_large', `The request body is larger than the ${maxBodyBytes} bytes allowed.`);
    if (status === 415) throw apiError('unsupported_media_type', 'The request body must be application/json.');
    if (status === 408) throw apiError('request_timeout', 'The request body did not arrive in time.');
    throw apiError('malformed_json', 'The request body is not valid JSON.');
  };
}

/** KitError codes of a store (or the limiter's shared counters) that cannot answer now. */
const UNAVAILABLE = new Set(['database_unavailable', 'counters_unavailable']);

/**
 * Seconds a client waits after a create the disk refused. A full or read-only disk needs someone to
 * act, which takes longer than a lost database connection (STORAGE_RETRY_AFTER_SECONDS); 5 s keeps
 * retries from piling up meanwhile without leaving a client waiting long once the disk takes writes.
 */
export const DISK_RETRY_AFTER_SECONDS = 5;

/** The body of a create the disk refused: the cause's errno, never a path. */
function diskRefusal(error: { errno?: unknown }): ErrorBody {
  const errno = typeof error.errno === 'string' ? error.errno : 'EIO';
  return {
    code: 'storage_unavailable',
    message: `The pet could not be stored durably (${errno}); nothing was created. Retry after the time in Retry-After.`,
    status: 503,
  };
}

/**
 * Makes every error the server sends, hapi's own included, an `application/json` body of
 * `{ code, message, status }` with `status` equal to the HTTP status, and keeps the error's headers.
 */
export const errorsPlugin: Plugin<void> = {
  name: 'errors',
  version: '1.0.0',
  register(server) {
    server.ext('onPreResponse', (request, h) => {
      const response = request.response;
      if (!('isBoom' in response) || !response.isBoom) return h.continue;
      const named = namedCode(response) !== undefined;
      const kitCode = String((response as { code?: unknown }).code);
      if (!named && kitCode === 'storage_unavailable') {
        // The store remembers the failure for /healthz; one error line per refused write would flood the log.
        response.output.statusCode = 503;
        response.output.payload = diskRefusal(response as { errno?: unknown }) as unknown as typeof response.output.payload;
        response.output.headers['retry-after'] = String(DISK_RETRY_AFTER_SECONDS);
        return h.continue;
      }
      // A store that stops answering is the service being unavailable for a moment, not a bug: 503
      // with Retry-After. The store's reason (which names the database) goes to the log only.
      const unavailable = !named && UNAVAILABLE.has(kitCode) ? storageUnavailable() : undefined;
      if (unavailable) request.log(['warn', 'storage'], response.message);
      else if (response.output.statusCode >= 500 && !named) request.log(['error'], response);
      if (response.output.statusCode === 404 && !named) {
        response.message = `No route for ${request.method.toUpperCase()} ${request.path}.`;
      }
      const body: ErrorBody = errorBody(unavailable ?? response);
      // A 5xx may carry a failure's own words (a store's reason in /healthz): the code stays, addresses and paths go.
      if (body.status >= 500) body.message = publicMessage(body.message);
      if (unavailable) Object.assign(response.output.headers, unavailable.output.headers);
      response.output.statusCode = body.status;
      response.output.payload = body as unknown as typeof response.output.payload;
      return h.continue;
    });
  },
};
