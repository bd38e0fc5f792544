// What the kit's HTTP parts that stand between a client and a server (the judging proxy, the fault
// proxy, the conformance transport) read from a Node message the same way.
import type { IncomingMessage } from 'node:http';

/** Each header once, repeated values joined with ", " as RFC 9110 allows for list fields. */
export function flatHeaders(message: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
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
