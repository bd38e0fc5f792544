// Every Error body this server sends: `{ code, message, status }`, codes in kebab-case.
import type { Response } from 'express';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }

  get body(): { code: string; message: string; status: number } {
    return { code: this.code, message: this.message, status: this.status };
  }
}

export const badRequest = (message: string): ApiError => new ApiError(400, 'invalid-request', message);
export const notFound = (message: string): ApiError => new ApiError(404, 'not-found', message);

export function sendError(res: Response, error: ApiError): void {
  res.status(error.status).json(error.body);
}

/** body-parser's errors (they carry `type` and `status`) as our Error bodies; anything else is a 500. */
export function fromThrown(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const { type, status } = (error ?? {}) as { type?: string; status?: number };
  if (type === 'entity.parse.failed') return new ApiError(400, 'malformed-json', 'The body is not valid JSON.');
  if (type === 'entity.too.large') return new ApiError(413, 'payload-too-large', 'The body is larger than 100 kB.');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return new ApiError(415, 'unsupported-media-type', 'Only identity-encoded UTF-8 JSON bodies are read.');
  if (typeof status === 'number' && status >= 400 && status < 500) return new ApiError(status, 'invalid-request', 'The request could not be read.');
  return new ApiError(500, 'internal-error', 'Something went wrong on our side.');
}
