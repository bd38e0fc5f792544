// Servers for the kit's edges (issue 30): one elsewhere that records every request it receives (to
// prove no key reaches another origin), and one that answers a body as large as a target likes,
// made on the fly, in front of a real implementation.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

export interface Listener {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closing(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** Another origin: records every request, answers each with an empty list. */
export async function startRecorder(): Promise<Listener & { requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  return { origin: await listen(server), requests, close: closing(server) };
}

/** How the front answers the requests it takes over. */
export interface HugeAnswer {
  /** Which requests get the huge body; the others are forwarded to the implementation. */
  takes(req: IncomingMessage): boolean;
  /** Content-Length to announce (the body is as long as announced, or until the client goes); none: chunked, endless. */
  declared?: number;
  /** Headers beside content-type. */
  headers(): Record<string, string>;
}

/** Most a huge answer sends before it ends on its own, whether or not anyone reads it. */
export const HUGE_BYTES = 1024 ** 3;
// A JSON array that never closes: whitespace after its bracket.
const CHUNK = Buffer.alloc(64 * 1024, ' ').fill('[', 0, 1);

/** Streams up to `total` bytes (HUGE_BYTES), made on the fly, honouring back-pressure; resolves with what was written when it ends or the client goes. */
function stream(res: ServerResponse, total: number): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const finish = () => resolve(sent);
    res.on('close', finish);
    const pump = () => {
      while (sent < total && !res.destroyed) {
        const part = CHUNK.subarray(0, Math.min(CHUNK.length, total - sent));
        sent += part.length;
        if (!res.write(part)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
}

/**
 * A front of `upstream` (an implementation's origin) that answers the requests `answer` takes with
 * a body of up to a GiB, and forwards every other one. `sent` holds the bytes each huge answer wrote.
 */
export async function startHugeFront(upstream: string, answer: HugeAnswer): Promise<Listener & { sent: number[] }> {
  const sent: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (answer.takes(req)) {
        const length = answer.declared;
        res.writeHead(200, { 'content-type': 'application/json', ...answer.headers(), ...(length !== undefined ? { 'content-length': String(length) } : {}) });
        void stream(res, length ?? HUGE_BYTES).then((n) => sent.push(n));
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string' && !['host', 'connection', 'content-length'].includes(e[0])),
      );
      const body = chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
      fetch(`${upstream}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(body ? { body: new Uint8Array(body) } : {}), redirect: 'manual' })
        .then(async (up) => {
          const out = Object.fromEntries(
            [...up.headers].filter(([name]) => !['content-length', 'transfer-encoding', 'connection', 'content-encoding', 'keep-alive'].includes(name)),
          );
          res.writeHead(up.status, out).end(Buffer.from(await up.arrayBuffer()));
        })
        .catch((error: Error) => res.writeHead(502, { 'content-type': 'text/plain' }).end(error.message));
    });
  });
  return { origin: await listen(server), sent, close: closing(server) };
}

/** X-RateLimit-* a huge answer carries, so that only its body is in question. */
export function rateLimitHeaders(): Record<string, string> {
  return {
    [LOWER_HEADERS.rateLimitLimit]: '300',
    [LOWER_HEADERS.rateLimitRemaining]: '250',
    [LOWER_HEADERS.rateLimitReset]: String(Math.floor(Date.now() / 1000) + 60),
  };
}
