// A JSON request body, decoded by the server itself instead of by hapi: hapi reads text as UTF-8
// with replacement characters (so "\xff" would be stored as U+FFFD) and passes an unknown
// Content-Encoding through as if it were none. JSON must be UTF-8 (RFC 8259 §8.1), and a body the
// server cannot decode must be refused, not guessed at.
import { apiError } from './errors.ts';

/** What hapi decompresses (subtext's decoders), and no encoding at all. */
const ENCODINGS = new Set(['', 'identity', 'gzip', 'deflate']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body's JSON value, or null for an empty body. `payload` is the raw (decompressed) bytes hapi
 * read with `parse: 'gunzip'`; `headers` are the request's.
 */
export function decodeJsonBody(payload: unknown, headers: Readonly<Record<string, string | undefined>>): unknown {
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (!ENCODINGS.has(encoding)) {
    throw apiError('unsupported_encoding', `The Content-Encoding "${encoding}" is not supported: send the body as it is, or with gzip or deflate.`);
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw apiError('unsupported_media_type', `The request body must be application/json in UTF-8, not in ${charset}.`);
  }
  if (!Buffer.isBuffer(payload) || payload.length === 0) return null;
  let text: string;
  try {
    text = utf8.decode(payload);
  } catch {
    throw apiError('malformed_json', 'The request body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw apiError('malformed_json', 'The request body is not valid JSON.');
  }
}
