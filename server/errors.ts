import Boom from '@hapi/boom';

/**
 * Every error the server sends has a stable `code`. These are the ones the core sends; the rate-limit,
 * deprecation and admin plugins add their own beside them.
 */
export const ErrorCodes = {
  invalidBody: 'invalid_body',
  malformedJson: 'malformed_json',
  invalidParameter: 'invalid_parameter',
  missingApiKey: 'missing_api_key',
  invalidApiKey: 'invalid_api_key',
  petNotFound: 'pet_not_found',
  routeNotFound: 'route_not_found',
  methodNotAllowed: 'method_not_allowed',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  internalError: 'internal_error',
} as const;

/** The code of an error that did not name one itself: hapi's own errors, mostly. */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: ErrorCodes.routeNotFound,
  405: ErrorCodes.methodNotAllowed,
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: ErrorCodes.payloadTooLarge,
  415: ErrorCodes.unsupportedMediaType,
  422: 'unprocessable_content',
  429: 'rate_limited',
  500: ErrorCodes.internalError,
  501: 'not_implemented',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

export interface ErrorBody {
  code: string;
  message: string;
  status: number;
}

interface ApiErrorData {
  code: string;
}

/** An error the errors plugin renders as `{ code, message, status }`, with any extra headers. */
export function apiError(status: number, code: string, message: string, headers: Record<string, string> = {}): Boom.Boom {
  const error = new Boom.Boom<ApiErrorData>(message, { statusCode: status, data: { code } });
  Object.assign(error.output.headers, headers);
  return error;
}

export function errorBody(error: Boom.Boom): ErrorBody {
  const status = error.output.statusCode;
  const data = error.data as Partial<ApiErrorData> | null | undefined;
  const code = typeof data?.code === 'string' ? data.code : (CODE_BY_STATUS[status] ?? `http_${status}`);
  // Boom hides the message of 5xx errors; keep it hidden, it may carry internals.
  const message = status >= 500 && !data?.code ? 'An unexpected error occurred.' : error.message || String(error.output.payload.error);
  return { code, message, status };
}
