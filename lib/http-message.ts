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
