// A server that closes a kept-alive connection after some answers without announcing it, as waitress
// does after every HEAD: no Connection: close on the answer (RFC 9112 §9.6 makes that a SHOULD), and
// keep-alive otherwise. Either as a plain server of its own (the transport's tests) or in front of an
// implementation (a conform run against the reference server).
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * When the close comes. `at-once`: right after the answer, as waitress does; whether the client
 * reuses the connection before it sees the close is a race. `when-reused`: the connection stays open
 * until the next request comes on it, which is dropped unanswered: the close crossing that request,
 * the race lost every time.
 */
export type CloseWhen = 'at-once' | 'when-reused';

export interface ClosingOptions {
  /** Which answers end their connection; every HEAD's unless told. */
  closesAfter?: (req: IncomingMessage) => boolean;
  when?: CloseWhen;
  /** Say so on the answer with Connection: close, as RFC 9112 §9.6 asks. */
  announce?: boolean;
}

export interface ClosingServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Every request received, in order: "HEAD /v1/pets". */
  received: string[];
  /** The requests that came on a connection closed after the answer before them, dropped unanswered. */
  dropped: string[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

const said = (req: IncomingMessage) => `${req.method} ${req.url}`;

/** Starts `handle` on 127.0.0.1 at a port the system picks, closing connections as `options` say. */
export async function startClosingServer(handle: Handler, options: ClosingOptions = {}): Promise<ClosingServer> {
  const closesAfter = options.closesAfter ?? ((req) => req.method === 'HEAD');
  const when = options.when ?? 'at-once';
  const received: string[] = [];
  const dropped: string[] = [];
  const closing = new WeakSet<Socket>();
  const server = createServer({ keepAlive: true }, (req, res) => {
    const socket = req.socket;
    if (closing.has(socket)) {
      dropped.push(said(req));
      socket.destroy();
      return;
    }
    received.push(said(req));
    if (closesAfter(req)) {
      if (options.announce) res.setHeader('connection', 'close');
      else
        res.once('finish', () => {
          if (when === 'at-once') socket.destroy();
          else closing.add(socket);
        });
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers every request 200 with its method and path as JSON. */
export const echo: Handler = (req, res) => {
  const body = JSON.stringify({ method: req.method, url: req.url });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
};

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

/** A closing server in front of `upstream` (http://127.0.0.1:<port>), forwarding every request it answers. */
export async function startClosingProxy(upstream: string, options: ClosingOptions = {}): Promise<ClosingServer> {
  const agent = new Agent({ keepAlive: true });
  let origin = '';
  const forward: Handler = (req, res, body) => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const out = request(`${upstream}${req.url}`, { method: req.method, headers, agent }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const kept: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value === undefined || HOP_BY_HOP.has(name)) continue;
          // Absolute links to the implementation name this server instead, as a reverse proxy's do.
          kept[name] = name === 'link' || name === 'location' ? String(value).split(upstream).join(origin) : value;
        }
        res.writeHead(answer.statusCode ?? 502, kept);
        res.end(Buffer.concat(chunks));
      });
    });
    out.on('error', (error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`closing server: ${error.message}`);
    });
    out.end(body);
  };
  const front = await startClosingServer(forward, options);
  origin = front.origin;
  return {
    ...front,
    close: async () => {
      await front.close();
      agent.destroy();
    },
  };
}
