// The proxy's way to the target: each request forwarded unchanged (hop-by-hop headers aside, the
// --header values added), both bodies streamed through, the answer's first --capture bytes kept.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Clock } from '../judge/index.ts';
import { tlsExplanation, type TlsSettings } from '../lib/tls.ts';
import { cutShort } from './cutter.ts';
import { ChunkCapture, type RawExchange } from './raw-exchange.ts';

/**
 * Whether a header stays on its hop: connection, keep-alive, proxy-connection, proxy-authorization, te,
 * trailer, transfer-encoding, upgrade (and, for a request, host). By its length first: most names are
 * none of these, and are not lower-cased to find it out.
 */
function hopByHop(name: string, host: boolean): boolean {
  switch (name.length) {
    case 2:
      return name.toLowerCase() === 'te';
    case 4:
      return host && name.toLowerCase() === 'host';
    case 7: {
      const lower = name.toLowerCase();
      return lower === 'trailer' || lower === 'upgrade';
    }
    case 10: {
      const lower = name.toLowerCase();
      return lower === 'connection' || lower === 'keep-alive';
    }
    case 16:
      return name.toLowerCase() === 'proxy-connection';
    case 17:
      return name.toLowerCase() === 'transfer-encoding';
    case 19:
      return name.toLowerCase() === 'proxy-authorization';
    default:
      return false;
  }
}

const ignore = () => {};

export interface ForwardOptions {
  target: URL;
  tls?: TlsSettings | undefined;
  /** Sent with every forwarded request (--header). */
  headers?: Record<string, string> | undefined;
  captureBytes: number;
  clock: Clock;
}

export interface Forwarder {
  /** Forwards the request and streams the answer back, keeping on `raw` what the judge reads; it is `raw` that cuts it short. */
  forward(req: IncomingMessage, res: ServerResponse, raw: RawExchange, done: (raw: RawExchange, verdict: 'judge' | 'abandon') => void): void;
  /** Closes the kept-alive connections to the target. */
  destroy(): void;
}

export function createForwarder({ target, tls, headers: extra, captureBytes, clock }: ForwardOptions): Forwarder {
  const secure = target.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, ...(tls?.ca ? { ca: tls.ca } : {}), rejectUnauthorized: tls?.insecure !== true })
    : new HttpAgent({ keepAlive: true });
  // Options, not a URL string: a string is parsed again for every request.
  const targetOptions = { protocol: target.protocol, hostname: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || (secure ? 443 : 80) };

  const added = Object.entries(extra ?? {});

  function forward(req: IncomingMessage, res: ServerResponse, raw: RawExchange, done: (raw: RawExchange, verdict: 'judge' | 'abandon') => void): void {
    const headers: Record<string, string | string[]> = {};
    const rawHeaders = req.rawHeaders;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (hopByHop(name, true)) continue;
      const value = rawHeaders[i + 1]!;
      const had = headers[name];
      headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    for (const [name, value] of added) headers[name] = value;
    headers.host = target.host;
    // Without a length the body goes chunked, as it came; with one, the length is the client's (Node read both already).
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) headers['content-length'] = '0';

    let settled = false;
    let started = false;
    const settle = (how: 'judge' | 'abandon') => {
      if (settled) return;
      settled = true;
      done(raw, how);
    };
    const bodyless = headers['content-length'] === '0';
    const send = (retry: boolean): ClientRequest => {
      const upstream = (secure ? httpsRequest : httpRequest)({ ...targetOptions, path: raw.path, method: req.method, headers, agent }, (answer) => {
        started = true;
        // Errors of a cut answer are read from 'close'; one unlistened would end the process.
        answer.on('error', ignore);
        const answerRaw = answer.rawHeaders;
        const passed: string[] = [];
        for (let i = 0; i < answerRaw.length; i += 2) if (!hopByHop(answerRaw[i]!, false)) passed.push(answerRaw[i]!, answerRaw[i + 1]!);
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, passed);
        const capture = new ChunkCapture(captureBytes);
        // Written on as it comes, at the pace the client reads (what pipe() does, without the listeners it
        // sets up and takes down for every answer), and captured on the way.
        answer.on('data', (chunk: Buffer) => {
          capture.add(chunk);
          if (!res.write(chunk)) {
            answer.pause();
            res.once('drain', () => answer.resume());
          }
        });
        // Its headers as Node read them, and its chunks by reference: the judge makes what it reads of them where it runs.
        const answered = () => {
          raw.receivedAt = clock.now();
          raw.status = answer.statusCode ?? 0;
          raw.responseRaw = answerRaw;
          raw.responseBody = capture;
          raw.responseCut = !answer.complete;
        };
        answer.on('end', () => {
          res.end();
          answered();
          settle('judge');
        });
        answer.on('close', () => {
          if (settled) return;
          // Cut before its end: judged on what came (the headers, a part of the body), as cut short.
          answered();
          const reason = raw.reason;
          raw.error = reason ? `${reason.code}: ${reason.message}` : 'ECONNRESET: the target closed the connection before the answer ended';
          res.destroy();
          settle(reason && reason.code !== 'ETIMEDOUT' ? 'abandon' : 'judge');
        });
      });
      upstream.on('error', (error) => {
        if (settled) return;
        if (raw.reason) {
          if (!started) settle(cutShort(res, raw, raw.reason, clock.now()));
          return;
        }
        const code = (error as { code?: string }).code ?? error.message;
        // A kept-alive connection the target closed just as it was reused: sent again once on a new
        // one, as browsers do, when nothing was answered and nothing but headers was sent.
        if (!retry && !started && bodyless && upstream.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) {
          current = send(true);
          return;
        }
        const tls = tlsExplanation(code);
        raw.receivedAt = clock.now();
        raw.error = tls ? `TLS: ${tls} (${code})` : code;
        if (tls) raw.tlsError = true;
        // The one answer the proxy writes itself: the target gave none.
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
          res.end(`adoption-kit proxy: no answer from ${target.origin}: ${raw.error}\n`);
        } else res.destroy();
        settle('judge');
      });
      // The body streams through as it comes, at the pace the target reads it.
      if (bodyless) upstream.end();
      else req.pipe(upstream);
      return upstream;
    };
    let current = send(false);
    raw.onCut(() => current.destroy(new Error(raw.reason!.message)));
  }

  return { forward, destroy: () => agent.destroy() };
}
