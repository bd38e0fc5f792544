// HTTP below the routes: reading a bounded body, the media-type and coding rules, and writing
// JSON and Error responses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors.ts';

export const BODY_LIMIT_BYTES = 4096;

/** The body, read only up to the limit: a larger one is refused, not buffered. */
export function readBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  const tooLarge = () => new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${limit} bytes.`);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish(() => reject(tooLarge()));
      } else chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks)));
    const onClose = () => finish(() => reject(new ApiError(400, 'BAD_REQUEST', 'The request ended before its body did.')));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}

const unsupported = (message: string) => new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', message);

/** application/json in any letters, with parameters, but only in UTF-8 and without a coding. */
export function requireJsonMedia(req: IncomingMessage): void {
  const coding = req.headers['content-encoding'];
  if (coding !== undefined && coding.split(',').some((c) => c.trim() !== '' && c.trim().toLowerCase() !== 'identity')) {
    throw unsupported(`Content-Encoding ${JSON.stringify(coding)} is not supported; send the body uncoded.`);
  }
  const contentType = req.headers['content-type'];
  if (contentType === undefined) throw unsupported('Content-Type is missing; send application/json.');
  const [type = '', ...params] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/json')
    throw unsupported(`Content-Type ${JSON.stringify(contentType)} is not supported; send application/json.`);
  for (const param of params) {
    if (param.trim() === '') continue;
    const eq = param.indexOf('=');
    if (eq < 0) throw unsupported(`Content-Type ${JSON.stringify(contentType)} has a malformed parameter.`);
    const name = param.slice(0, eq).trim().toLowerCase();
    if (name === 'charset' && unquote(param.slice(eq + 1).trim()).toLowerCase() !== 'utf-8') {
      throw unsupported(`Content-Type ${JSON.stringify(contentType)}: only UTF-8 is supported.`);
    }
  }
}

export function parseJson(body: Buffer): unknown {
  const malformed = (why: string) => new ApiError(400, 'MALFORMED_JSON', `The body is not JSON: ${why}.`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw malformed('it is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw malformed(text.trim() === '' ? 'it is empty' : error instanceof Error ? error.message : 'unreadable');
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, headers);
  res.end();
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, error.body, { ...error.headers });
}
