// Every refusal is an ApiError: the HTTP status, a stable SCREAMING_SNAKE code and the headers
// that belong to that refusal (Allow, WWW-Authenticate, Retry-After). The reference server's codes
// are snake_case; different letters make it obvious which server answered.

export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'VALIDATION_FAILED'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'FORBIDDEN_BANNED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'METHOD_NOT_ALLOWED'
  | 'MALFORMED_JSON'
  | 'BAD_REQUEST'
  | 'HEADERS_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'INTERNAL_ERROR';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }

  get body(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status };
  }
}

export const invalid = (message: string) => new ApiError(400, 'VALIDATION_FAILED', message);
export const notFound = (message: string) => new ApiError(404, 'NOT_FOUND', message);
