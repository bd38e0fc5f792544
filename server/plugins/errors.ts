import type { Lifecycle, Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { apiError, errorBody, ErrorCodes } from '../errors.ts';

/**
 * The route `failAction` for joi validation: a 400 with `code` and joi's message, which names the
 * offending field. Validation failures never reach a handler, so they change nothing.
 */
export function rejectInvalid(code: string): Lifecycle.FailAction {
  return (_request: Request, _h: ResponseToolkit, error?: Error) => {
    throw apiError(400, code, error?.message ?? 'The request is invalid.');
  };
}

/** The `payload.failAction` for bodies that cannot be parsed: bad JSON, too large, wrong media type. */
export function rejectUnparsableBody(maxBodyBytes: number): Lifecycle.FailAction {
  return (_request, _h, error) => {
    const status = (error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode ?? 400;
    if (status === 413) {
      throw apiError(413, ErrorCodes.payloadTooLarge, `The request body is larger than the ${maxBodyBytes} bytes allowed.`);
    }
    if (status === 415) {
      throw apiError(415, ErrorCodes.unsupportedMediaType, 'The request body must be application/json.');
    }
    throw apiError(400, ErrorCodes.malformedJson, 'The request body is not valid JSON.');
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
      const status = response.output.statusCode;
      const named = typeof (response.data as { code?: unknown } | null)?.code === 'string';
      if (status >= 500 && !named) request.log(['error'], response);
      if (status === 404 && !named) {
        response.message = `No route for ${request.method.toUpperCase()} ${request.path}.`;
      }
      response.output.payload = errorBody(response) as unknown as typeof response.output.payload;
      return h.continue;
    });
  },
};
