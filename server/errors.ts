// Every error code the server can send, with its status and when it is sent: the one registry.
// The contract's Error.code enumeration and the server guide's error table are tested against it
// (errors.test.ts), and `apiError` takes a code, so a code is never sent with another status.
import Boom from '@hapi/boom';

export const ERRORS = {
  invalid_body: { status: 400, when: 'the body is not a JSON object, or `name`, `categoryId` or `status` is missing or invalid' },
  malformed_json: { status: 400, when: 'the body is not valid JSON' },
  invalid_parameter: { status: 400, when: '`limit`, `status` or `cursor` in the query, or `petId` in the path, is invalid' },
  bad_request: {
    status: 400,
    when: 'a request that is not valid HTTP (bad framing, no `Host` or more than one, a malformed URL, cookie or header), or any other client error Hapi raises',
  },
  missing_api_key: { status: 401, when: 'no `Authorization` header, or not the Bearer scheme' },
  invalid_api_key: { status: 401, when: 'an empty or unknown bearer token' },
  invalid_admin_token: { status: 401, when: 'an admin API request without the admin token' },
  pet_not_found: { status: 404, when: 'no pet has that id' },
  route_not_found: { status: 404, when: 'no such path' },
  method_not_allowed: { status: 405, when: 'a method the path does not have (`Allow` lists the ones it has)' },
  request_timeout: { status: 408, when: 'the request body did not arrive in time' },
  clock_not_movable: { status: 409, when: 'the admin API was asked to move a clock that cannot move' },
  operation_sunset: { status: 410, when: '`getPet` after its sunset' },
  payload_too_large: { status: 413, when: 'the body is larger than the server accepts (16 KiB by default)' },
  unsupported_media_type: { status: 415, when: 'the body is not `application/json` (UTF-8)' },
  unsupported_encoding: { status: 415, when: 'the body has a `Content-Encoding` other than `gzip`, `deflate` or `identity`' },
  expectation_failed: { status: 417, when: 'an `Expect` header other than `100-continue`' },
  rate_limited_minute: { status: 429, when: "the key's per-minute limit is used up" },
  rate_limited_day: { status: 429, when: "the key's per-day limit is used up" },
  key_banned: { status: 429, when: 'the key kept sending after 429s and is banned for a while' },
  rate_limited_ip: { status: 429, when: 'too many requests without a valid key from this address' },
  ip_blocked: { status: 429, when: 'the address kept sending without a valid key and is blocked for a while' },
  headers_too_large: { status: 431, when: 'the request headers are larger than the server accepts (16 KiB)' },
  internal_error: { status: 500, when: 'an unexpected failure (details are logged, never sent)' },
  service_unavailable: { status: 503, when: 'the server cannot serve the request now' },
  storage_unavailable: {
    status: 503,
    when: 'the store cannot take or serve the request now: the disk refused to make a create durable (full, read-only, failing; nothing was created), or the database connection was lost or a query passed its time bound; `Retry-After` says when to retry',
  },
  id_space_exhausted: {
    status: 507,
    when: 'a create after the store has handed out its last id (2^53 − 1, the largest integer a JSON client in JavaScript reads exactly); nothing was created, and retrying does not help',
  },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * Seconds a client is told to wait after `storage_unavailable`: a lost connection is replaced at the
 * next request, and a database restart or failover takes a few seconds.
 */
export const STORAGE_RETRY_AFTER_SECONDS = 2;

/** The 503 of a store that cannot answer now: a retry soon may succeed, and says nothing about the request. */
export function storageUnavailable(
  message = `The store is unavailable; retry after ${STORAGE_RETRY_AFTER_SECONDS} seconds.`,
  headers: Record<string, string> = {},
): Boom.Boom {
  return apiError('storage_unavailable', message, { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS), ...headers });
}

/** The code of an error that did not name one: Hapi's own errors. Anything else is 400 or 500. */
const FALLBACK: Readonly<Record<number, ErrorCode>> = {
  400: 'bad_request',
  404: 'route_not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  417: 'expectation_failed',
  431: 'headers_too_large',
  500: 'internal_error',
  503: 'service_unavailable',
};

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

/** Where an error keeps its code: on the error itself, since hapi replaces `data` when it re-boomifies one. */
const CODE = Symbol('errorCode');

/** An error the errors plugin renders as `{ code, message, status }`, with any extra headers. */
export function apiError(code: ErrorCode, message: string, headers: Record<string, string> = {}): Boom.Boom {
  const error = new Boom.Boom(message, { statusCode: ERRORS[code].status });
  Object.defineProperty(error, CODE, { value: code });
  Object.assign(error.output.headers, headers);
  return error;
}

export function namedCode(error: Boom.Boom): ErrorCode | undefined {
  return (error as Boom.Boom & { [CODE]?: ErrorCode })[CODE];
}

/**
 * The body of an error, named or not. An error Hapi raised with a status the registry has no code
 * for is sent as the nearest one the registry has (400 or 500), so every code sent is documented.
 */
export function errorBody(error: Boom.Boom): ErrorBody {
  const named = namedCode(error);
  const raised = error.output.statusCode;
  const code = named ?? FALLBACK[raised] ?? (raised < 500 ? 'bad_request' : 'internal_error');
  const status = ERRORS[code].status;
  // Boom hides the message of 5xx errors; keep it hidden, it may carry internals.
  const message = status >= 500 && !named ? 'An unexpected error occurred.' : error.message || String(error.output.payload.error);
  return { code, message, status };
}
