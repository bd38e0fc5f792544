// What the kit's HTTP parts that stand between a client and a server (the judging proxy, the fault
// proxy, the conformance transport) read from a Node message the same way.
import type { IncomingMessage } from 'node:http';

/** Each header once, repeated values joined with ", " as RFC 9110 allows for list fields. */
export function flatHeaders(message: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** Fields of which Node keeps the first value when a message repeats them (node:_http_incoming, matchKnownFields). */
const FIRST_WINS = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'referer',
  'host',
  'authorization',
  'proxy-authorization',
  'if-modified-since',
  'if-unmodified-since',
  'from',
  'location',
  'max-forwards',
  'retry-after',
  'etag',
  'last-modified',
  'server',
  'age',
  'expires',
]);

/**
 * flatHeaders of a message read from its raw headers, without building Node's `headers` first: the
 * same object (names in lower case, a repeated field kept first or joined as Node joins it, then with
 * ", "), for a caller that walks the raw headers anyway.
 */
export function flatRawHeaders(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    const had = out[name];
    if (had === undefined) out[name] = value;
    else if (!FIRST_WINS.has(name)) out[name] = `${had}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return out;
}

/** The whole body of a message, as bytes. */
export function readBody(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (c: Buffer) => chunks.push(c));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

/**
 * The first `limit` bytes of a body that streams past: what a judge reads of a body of any size.
 * `total` counts every byte; `truncated` says the body went on past the capture.
 */
export class BodyCapture {
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  total = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.#limit - this.#kept;
    if (room <= 0) return;
    // A copy of the part kept, so a big chunk's memory is not held for a few bytes of it.
    const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    this.#chunks.push(part);
    this.#kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.#kept;
  }

  bytes(): Buffer {
    return this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
  }
}
