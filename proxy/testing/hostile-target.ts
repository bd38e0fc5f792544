// A target that makes the exchanges of issue 29 for real: a request body of any size counted, an answer
// of any size made as the reader takes it, a body that never ends, and any key answered as a correct
// server would, so that many keys test nothing but the proxy's memory. Its routes lie on the
// description's paths, so the proxy judges these exchanges as the contract's.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

/** POST: the body is read to its end and counted; a 201 createPet answer names the count in X-Received-Bytes. */
export const UPLOAD_PATH = '/v1/pets';
/** GET: a correct listPets answer, rate-limit headers included, whatever the key. */
export const PETS_PATH = '/v1/pets?limit=1';
/** GET: `?bytes=<n>` bytes of body with their Content-Length, made as the reader takes them. */
export const HUGE_PATH = '/v1/pets/huge';
/** GET: a 200 whose body gets one byte every ENDLESS_BYTE_MS until the connection closes. */
export const ENDLESS_PATH = '/v1/pets/endless';
export const ENDLESS_BYTE_MS = 500;

const CHUNK = Buffer.alloc(64 * 1024, 'x');

export interface HostileTarget {
  origin: string;
  /** Request bodies read to their end, in bytes, in the order they ended. */
  readonly uploads: number[];
  /** Bodies of HUGE_PATH written out in full. */
  readonly hugeSent: number;
  /** ENDLESS_PATH answers under way (their connection is still open). */
  readonly endlessOpen: number;
  /** Request bodies of UPLOAD_PATH being read (begun, not ended or cut). */
  readonly uploadsOpen: number;
  close(): Promise<void>;
}

/** A key's first request of a fresh minute window, as the reference server names it. */
function rateLimitHeaders(): Record<string, string> {
  return {
    [LOWER_HEADERS.rateLimitLimit]: '60',
    [LOWER_HEADERS.rateLimitRemaining]: '59',
    [LOWER_HEADERS.rateLimitReset]: String(Math.floor(Date.now() / 1000) + 60),
    [LOWER_HEADERS.rateLimitPolicy]: '"minute";q=60;w=60',
    [LOWER_HEADERS.rateLimit]: '"minute";r=59;t=60',
  };
}

export async function startHostileTarget(): Promise<HostileTarget> {
  const uploads: number[] = [];
  let hugeSent = 0;
  let endlessOpen = 0;
  let uploadsOpen = 0;

  function upload(req: IncomingMessage, res: ServerResponse): void {
    let bytes = 0;
    uploadsOpen += 1;
    req.once('close', () => (uploadsOpen -= 1));
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      uploads.push(bytes);
      res.writeHead(201, {
        'content-type': 'application/json; charset=utf-8',
        location: '/v1/pets/11',
        'x-received-bytes': String(bytes),
        ...rateLimitHeaders(),
      });
      res.end(JSON.stringify({ id: 11, name: 'Mochi', categoryId: 2, status: 'available' }));
    });
  }

  function huge(res: ServerResponse, total: number): void {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(total), ...rateLimitHeaders() });
    let sent = 0;
    const more = () => {
      while (sent < total) {
        const part = Math.min(CHUNK.length, total - sent);
        sent += part;
        const last = sent === total;
        const flushed = res.write(part === CHUNK.length ? CHUNK : CHUNK.subarray(0, part));
        if (last) {
          res.end(() => (hugeSent += 1));
          return;
        }
        if (!flushed) {
          res.once('drain', more);
          return;
        }
      }
    };
    res.once('close', () => res.off('drain', more));
    more();
  }

  function endless(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...rateLimitHeaders() });
    endlessOpen += 1;
    res.write('[');
    const timer = setInterval(() => res.write(' '), ENDLESS_BYTE_MS);
    res.once('close', () => {
      clearInterval(timer);
      endlessOpen -= 1;
    });
  }

  function pets(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...rateLimitHeaders() });
    res.end(JSON.stringify([{ id: 1, name: 'Biscuit', categoryId: 1, status: 'available' }]));
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://target');
    if (req.method === 'POST' && url.pathname === UPLOAD_PATH) return upload(req, res);
    // Whatever else came with the request is read and dropped, so that keep-alive goes on.
    req.resume();
    if (req.method === 'GET' && url.pathname === HUGE_PATH) return huge(res, Number(url.searchParams.get('bytes') ?? 0));
    if (req.method === 'GET' && url.pathname === ENDLESS_PATH) return endless(res);
    if (req.method === 'GET' && url.pathname === new URL(PETS_PATH, 'http://target').pathname) return pets(res);
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ status: 404, code: 'not_found', message: 'No such route on the hostile target.' }));
  });
  // A client the proxy cut off must not stop the target.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    uploads,
    get hugeSent() {
      return hugeSent;
    },
    get endlessOpen() {
      return endlessOpen;
    },
    get uploadsOpen() {
      return uploadsOpen;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
