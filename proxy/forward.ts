// The proxy's way to the target: each request forwarded unchanged (hop-by-hop headers aside, the
// --header values added), both bodies streamed through, the answer's first --capture bytes kept.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type Clock, type Exchange } from '../judge/index.ts';
import { tlsExplanation, type TlsSettings } from '../lib/tls.ts';
import { BodyCapture, flatRawHeaders } from '../lib/http-message.ts';
import { capturedText } from './exchange-record.ts';
import { cutShort, type Cutter } from './cutter.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

export interface ForwardOptions {
  target: URL;
  tls?: TlsSettings | undefined;
  /** Sent with every forwarded request (--header). */
  headers?: Record<string, string> | undefined;
  captureBytes: number;
  clock: Clock;
}

export interface OneForward {
  url: string;
  incoming: Record<string, string>;
  exchange: Exchange;
  cutter: Cutter;
}

export interface Forwarder {
  forward(req: IncomingMessage, res: ServerResponse, one: OneForward): Promise<'judge' | 'abandon'>;
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

  function forward(req: IncomingMessage, res: ServerResponse, { url, incoming, exchange, cutter }: OneForward): Promise<'judge' | 'abandon'> {
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower) || lower === 'host') continue;
      const value = req.rawHeaders[i + 1]!;
      const had = headers[name];
      headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    for (const [name, value] of Object.entries(extra ?? {})) headers[name] = value;
    headers.host = target.host;
    // Without a length the body goes chunked, as it came; with one, the length is the client's.
    if (incoming['content-length'] === undefined && incoming['transfer-encoding'] === undefined) headers['content-length'] = '0';

    return new Promise((resolve) => {
      let settled = false;
      let started = false;
      const settle = (how: 'judge' | 'abandon') => {
        if (settled) return;
        settled = true;
        resolve(how);
      };
      const bodyless = headers['content-length'] === '0';
      const send = (retry: boolean): ClientRequest => {
        const upstream = (secure ? httpsRequest : httpRequest)(
          { ...targetOptions, path: url.slice(target.origin.length), method: req.method, headers, agent },
          (answer) => {
            started = true;
            // Errors of a cut answer are read from 'close'; one unlistened would end the process.
            answer.on('error', () => {});
            const raw: string[] = [];
            for (let i = 0; i < answer.rawHeaders.length; i += 2) {
              if (HOP_BY_HOP.has(answer.rawHeaders[i]!.toLowerCase())) continue;
              raw.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
            }
            res.writeHead(answer.statusCode ?? 502, answer.statusMessage, raw);
            const capture = new BodyCapture(captureBytes);
            answer.on('data', (chunk: Buffer) => capture.add(chunk));
            answer.pipe(res);
            const answered = () => {
              exchange.receivedAt = clock.now();
              // From the raw headers: Node's own object would be built for this alone.
              exchange.response = { status: answer.statusCode ?? 0, headers: flatRawHeaders(answer.rawHeaders), body: capturedText(capture) };
              if (capture.truncated || !answer.complete) exchange.response.truncatedFrom = capture.total;
            };
            answer.once('end', () => {
              answered();
              settle('judge');
            });
            answer.once('close', () => {
              if (settled) return;
              // Cut before its end: judged on what came (the headers, a part of the body), as cut short.
              answered();
              const reason = cutter.reason;
              exchange.error = reason ? `${reason.code}: ${reason.message}` : 'ECONNRESET: the target closed the connection before the answer ended';
              res.destroy();
              settle(reason && reason.code !== 'ETIMEDOUT' ? 'abandon' : 'judge');
            });
          },
        );
        upstream.on('error', (error) => {
          if (settled) return;
          if (cutter.reason) {
            if (!started) settle(cutShort(res, exchange, cutter.reason, clock.now()));
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
          exchange.receivedAt = clock.now();
          exchange.error = tls ? `TLS: ${tls} (${code})` : code;
          if (tls) exchange.tlsError = true;
          // The one answer the proxy writes itself: the target gave none.
          if (!res.headersSent) {
            res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
            res.end(`adoption-kit proxy: no answer from ${target.origin}: ${exchange.error}\n`);
          } else res.destroy();
          settle('judge');
        });
        // The body streams through as it comes, at the pace the target reads it.
        if (bodyless) upstream.end();
        else req.pipe(upstream);
        return upstream;
      };
      let current = send(false);
      cutter.onCut(() => current.destroy(new Error(cutter.reason!.message)));
    });
  }

  return { forward, destroy: () => agent.destroy() };
}
