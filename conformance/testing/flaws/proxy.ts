// A proxy in front of a real implementation that breaks one behaviour at a time, by rewriting the
// request it forwards or the response it returns. The reference server stays untouched.
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readBody } from '../../../lib/http-message.ts';

export interface ProxyRequest {
  method: string;
  /** Path and query as received, e.g. /v1/pets?limit=1. */
  url: string;
  headers: Record<string, string>;
  /** The body as UTF-8 text; a flaw that changes it has its text forwarded. */
  body: string;
  /** The body's bytes as received, forwarded when the flaw leaves `body` alone. */
  bytes?: Buffer;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface FlawState {
  /** Anything a flaw needs to remember between requests (counters, first values seen). */
  memory: Map<string, unknown>;
  /** Requests seen so far, this one included. */
  count: number;
  /** Sends a request of the flaw's own to the implementation, past the flaw (a hidden extra request, a create replayed). */
  forward(req: ProxyRequest): Promise<ProxyResponse>;
}

export interface FlawBehaviour {
  /** Rewrite the request, or answer it without forwarding by returning a response. */
  request?(req: ProxyRequest, state: FlawState): ProxyRequest | ProxyResponse | Promise<ProxyRequest | ProxyResponse>;
  /** Rewrite the response the implementation gave. */
  response?(res: ProxyResponse, req: ProxyRequest, state: FlawState): ProxyResponse;
}

export interface FlawProxy {
  /** http://127.0.0.1:<port>, to which the target's path prefix (e.g. /v1) is appended. */
  origin: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade'];

function isResponse(value: ProxyRequest | ProxyResponse): value is ProxyResponse {
  return 'status' in value;
}

const badGateway = (error: unknown): ProxyResponse => ({
  status: 502,
  headers: { 'content-type': 'text/plain' },
  body: `flaw proxy: ${(error as Error).message}`,
});

/**
 * Starts the proxy on 127.0.0.1 at a free port; `targetOrigin` is e.g. http://127.0.0.1:3000. With
 * `tls` (a PEM key and certificate) it speaks HTTPS, for the kit's TLS tests.
 */
export async function startFlawProxy(targetOrigin: string, flaw: FlawBehaviour = {}, tls?: { key: string; cert: string }): Promise<FlawProxy> {
  let origin = '';
  // node:http on kept-alive connections, as a reverse proxy forwards: fetch (undici) cost the flaw
  // tests a fifth of their CPU, and asked the target for gzip where the kit's client had not.
  const secure = targetOrigin.startsWith('https:');
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const forward = (req: ProxyRequest, text = req.body): Promise<ProxyResponse> =>
    new Promise((resolve, reject) => {
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const body = hasBody && req.body ? (req.body === text && req.bytes ? req.bytes : Buffer.from(req.body, 'utf8')) : undefined;
      const headers = { ...req.headers, ...(hasBody ? { 'content-length': String(body?.length ?? 0) } : {}) };
      const outgoing = send(`${targetOrigin}${req.url}`, { method: req.method, headers, agent }, (upstream) => {
        const chunks: Buffer[] = [];
        upstream.on('data', (chunk: Buffer) => chunks.push(chunk));
        upstream.on('error', reject);
        upstream.on('end', () => {
          const responseHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(upstream.headers)) {
            if (value !== undefined && !HOP_BY_HOP.includes(name)) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          // As a reverse proxy does, absolute links to the implementation name the proxy instead.
          for (const name of ['link', 'location']) if (responseHeaders[name]) responseHeaders[name] = responseHeaders[name].split(targetOrigin).join(origin);
          resolve({ status: upstream.statusCode ?? 502, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') });
        });
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  const state: FlawState = { memory: new Map(), count: 0, forward: (req) => forward(req) };
  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined && !HOP_BY_HOP.includes(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    state.count++;
    const bytes = await readBody(incoming);
    const text = bytes.toString('utf8');
    let req: ProxyRequest = { method: incoming.method ?? 'GET', url: incoming.url ?? '/', headers, body: text, bytes };
    let res: ProxyResponse;
    const rewritten = flaw.request ? await flaw.request(req, state) : req;
    if (isResponse(rewritten)) {
      res = rewritten;
    } else {
      req = rewritten;
      try {
        res = await forward(req, text);
      } catch (error) {
        // A target that closed or reset the connection still answers through the flaw: a flaw
        // that counts requests in flight must see each of them end.
        res = badGateway(error);
      }
      if (flaw.response) res = flaw.response(res, req, state);
    }
    outgoing.writeHead(res.status, { ...res.headers, 'content-length': Buffer.byteLength(res.body) });
    outgoing.end(res.body);
  };
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      const res = badGateway(error);
      outgoing.writeHead(res.status, res.headers);
      outgoing.end(res.body);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createServer(listener);
  // Node's agent keeps a connection only when the server's Keep-Alive hint leaves it a second or more:
  // at 1 s every request of a run opened a connection of its own (301 in one run instead of 11).
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
