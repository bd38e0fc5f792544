// The judging proxy: an HTTP server that forwards every request unchanged to the target (over TLS
// with --ca or --insecure, plus the --header values), streams both bodies through as they come,
// and hands each finished exchange to the TrafficJudge with the first --capture bytes of each body.
// Nothing is added, removed or delayed, except the faults a client asks for with Prefer when
// --faults is on. An exchange lasts at most --timeout in total; stop() ends within a bounded time
// whatever is in flight. Like createServer of the reference server, it is built here and started by
// its caller.
import {
  createServer as createHttpServer,
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Clock, Exchange } from '../conformance/http.ts';
import { bodyText, redactHeader } from '../conformance/http.ts';
import type { Contract } from '../conformance/openapi.ts';
import type { TlsSettings } from '../conformance/transport.ts';
import { tlsExplanation } from '../conformance/transport.ts';
import { parsePrefer } from '../server/plugins/faults.ts';
import { BodyCapture, flatHeaders } from '../lib/http-message.ts';
import { Cut, Cutter } from './cutter.ts';
import { injectedAnswer, MAX_DELAY_MS } from './injected.ts';
import { keyOf, originForm, redactUrl } from './request.ts';
import { TrafficJudge, type Finding, type JudgeLimits } from './judge.ts';
import { OperationIndex } from './operations.ts';

export interface ProxyOptions {
  /** Where requests go: an origin, optionally with a path prefix that is put before every request's path. */
  target: string;
  host: string;
  port: number;
  contract: Contract;
  /** Sent with every forwarded request (--header), e.g. for a gateway in front of the target. */
  headers?: Record<string, string>;
  tls?: TlsSettings;
  /** The longest an exchange may last, from the request's arrival to the end of its answer. */
  timeoutMs: number;
  /** How many bytes of each body are kept for judging (--capture); the rest streams through unseen. */
  captureBytes?: number;
  /** Answer Prefer: code=429|500|503 in the server's place, and hold a request for Prefer: delay=<ms>. */
  faults?: boolean;
  clock?: Clock;
  /** Whether a response's Date header is the server's clock (false for a test server on a manual clock). */
  dateHeader?: boolean;
  clockToleranceSeconds?: number;
  /** How much the judge keeps (keys with full state, exchanges per key). */
  limits?: Partial<JudgeLimits>;
  onFinding?: (finding: Finding) => void;
  /** Every finished exchange, keys redacted, as it is judged (the HAR is streamed from it). */
  onExchange?: (exchange: Exchange) => void;
  /** Requests the proxy answers itself instead of forwarding (the live view); true when it did. */
  own?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Waits that many ms (Prefer: delay); tests pass one that moves their clock. */
  sleep?: (ms: number) => Promise<void>;
}

export interface TrafficProxy {
  readonly judge: TrafficJudge;
  /** Starts listening; the URL clients use instead of the target's. */
  start(): Promise<string>;
  /**
   * Stops listening; exchanges under way get `graceMs` (default 2 s) to finish, then are cut short
   * (judged on what had come, or counted as cut when no answer had started), and the connections close.
   */
  stop(graceMs?: number): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
export const DEFAULT_CAPTURE_BYTES = 65_536;
export const DEFAULT_STOP_GRACE_MS = 2_000;

/** A captured body as text; a cut one may end inside a character, which is left out rather than shown as bytes. */
function capturedText(capture: BodyCapture): string {
  const bytes = capture.bytes();
  if (capture.truncated) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    } catch {
      // Not UTF-8 before the cut either: shown as bytes, below.
    }
  }
  return bodyText(bytes).text;
}

export function createTrafficProxy(options: ProxyOptions): TrafficProxy {
  const clock = options.clock ?? { now: () => Date.now() };
  const captureBytes = options.captureBytes ?? DEFAULT_CAPTURE_BYTES;
  const target = new URL(options.target);
  const prefix = target.pathname.replace(/\/+$/, '');
  const secure = target.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, ...(options.tls?.ca ? { ca: options.tls.ca } : {}), rejectUnauthorized: options.tls?.insecure !== true })
    : new HttpAgent({ keepAlive: true });
  const operations = new OperationIndex(options.contract);
  // Options, not a URL string: a string is parsed again for every request.
  const targetOptions = { protocol: target.protocol, hostname: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || (secure ? 443 : 80) };
  const judge = new TrafficJudge({
    contract: options.contract,
    dateHeader: options.dateHeader ?? true,
    ...(options.clockToleranceSeconds !== undefined ? { tolerances: { clockSkewSeconds: options.clockToleranceSeconds } } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.onFinding ? { onFinding: options.onFinding } : {}),
  });
  let seq = 0;
  // Exchanges are judged in the order their requests arrived, even when answers come back out of order.
  let queue: Promise<void> = Promise.resolve();
  const pending = new Set<Promise<void>>();
  /** Each exchange under way, by the function that cuts it short. */
  const inFlight = new Set<(cut: Cut) => void>();

  function sleep(ms: number, cutter: Cutter): Promise<void> {
    if (options.sleep) return options.sleep(ms);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      cutter.onCut(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  function record(req: IncomingMessage, url: string, headers: Record<string, string>, sentAt: number): Exchange {
    const path = url.slice(target.origin.length).split('?', 1)[0]!;
    const operationId = operations.of(req.method ?? 'GET', path);
    const shown: Record<string, string> = {};
    for (const name in headers) shown[name] = redactHeader(name, headers[name]!);
    return {
      seq: ++seq,
      // Exchange wants an operation; one outside the description is marked `outside`, which every check reads first.
      operationId: operationId ?? 'listPets',
      purpose: `${req.method} ${path}`,
      request: { method: req.method ?? 'GET', url: redactUrl(url), headers: shown },
      sentAt,
      receivedAt: sentAt,
      ...(operationId ? {} : { outside: 'not an operation of the description' }),
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sentAt = clock.now();
    const path = originForm(req.url ?? '/');
    if (path === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end('adoption-kit proxy: the request target must be a path (or an absolute URL, whose path is used)\n');
      return;
    }
    const url = `${target.origin}${prefix}${path}`;
    const incoming = flatHeaders(req);
    const key = keyOf(incoming.authorization);
    const exchange = record(req, url, incoming, sentAt);
    judge.arrived({ exchange, key });
    // The turn of this exchange in the judge's order, taken when the request arrived.
    const before = queue;
    let done!: () => void;
    queue = new Promise<void>((resolve) => (done = resolve));
    const cutter = new Cutter();
    const cut = (reason: Cut) => cutter.cut(reason);
    inFlight.add(cut);
    const timer = setTimeout(() => cut(new Cut(`no complete exchange within --timeout ${options.timeoutMs} ms`, 'ETIMEDOUT')), options.timeoutMs);
    // A client that goes away takes its exchange with it: an endless answer is not read for nobody.
    res.once('close', () => {
      if (!res.writableFinished) cut(new Cut('the client closed the connection before the answer ended', 'ECLIENTGONE'));
    });
    let verdict: 'judge' | 'injected' | 'abandon' = 'abandon';
    try {
      verdict = await pass(req, res, { url, incoming, key, exchange, cutter });
    } finally {
      clearTimeout(timer);
      inFlight.delete(cut);
      await before;
      try {
        // A failure on the way must not hold up the exchanges that came after this one.
        if (verdict === 'abandon') judge.abandoned({ exchange, key });
        else judge.observe({ exchange, key, ...(verdict === 'injected' ? { injected: true } : {}) });
        options.onExchange?.(exchange);
      } finally {
        done();
      }
    }
  }

  /** The request body as it streams in: captured up to --capture, the capture put on the exchange when it ends. */
  function requestBody(req: IncomingMessage, exchange: Exchange): { capture: BodyCapture; ended: Promise<void> } {
    const capture = new BodyCapture(captureBytes);
    req.on('data', (chunk: Buffer) => capture.add(chunk));
    // Held until it is forwarded (pipe resumes it) or dropped (resume): flowing now, the body would
    // stream into the capture alone while Prefer: delay holds the request, and never reach the target.
    req.pause();
    const ended = new Promise<void>((resolve) => {
      let finished = false;
      // 'close' follows 'end' on every request that ends: the capture is decoded once.
      const finish = () => {
        if (finished) return;
        finished = true;
        if (capture.total > 0) {
          exchange.request.body = capturedText(capture);
          if (capture.truncated) exchange.request.truncatedFrom = capture.total;
        }
        resolve();
      };
      req.once('end', finish);
      req.once('close', finish);
    });
    return { capture, ended };
  }

  /** Forwards one request (or answers a fault) and says how the exchange is to be judged. */
  async function pass(
    req: IncomingMessage,
    res: ServerResponse,
    { url, incoming, key, exchange, cutter }: { url: string; incoming: Record<string, string>; key: string | undefined; exchange: Exchange; cutter: Cutter },
  ): Promise<'judge' | 'injected' | 'abandon'> {
    const body = requestBody(req, exchange);
    if (options.faults) {
      const fault = parsePrefer(incoming.prefer, MAX_DELAY_MS);
      // A Prefer that is not a fault this proxy injects goes on unchanged: the server says what it thinks of it.
      if (typeof fault !== 'string') {
        if (fault.delayMs) await sleep(fault.delayMs, cutter);
        if (cutter.reason) return cutShort(res, exchange, cutter.reason);
        if (fault.code) {
          req.resume();
          await body.ended;
          const answer = injectedAnswer(fault.code, judge.lastWindow(key), clock.now());
          res.writeHead(fault.code, answer.headers);
          res.end(answer.body);
          exchange.receivedAt = clock.now();
          exchange.response = { status: fault.code, headers: answer.headers, body: answer.body };
          return 'injected';
        }
      }
    }
    return forward(req, res, { url, incoming, exchange, cutter });
  }

  /** The client's exchange ends without an answer from the target: 502 or 504 when nothing was sent yet. */
  function cutShort(res: ServerResponse, exchange: Exchange, reason: Cut): 'judge' | 'abandon' {
    exchange.receivedAt = clock.now();
    exchange.error = `${reason.code}: ${reason.message}`;
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(reason.code === 'ETIMEDOUT' ? 504 : 502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(`adoption-kit proxy: ${reason.message}\n`);
    } else res.destroy();
    // A target that never answered in time is the target's doing; a stop or a client gone is nobody's.
    return reason.code === 'ETIMEDOUT' ? 'judge' : 'abandon';
  }

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    { url, incoming, exchange, cutter }: { url: string; incoming: Record<string, string>; exchange: Exchange; cutter: Cutter },
  ): Promise<'judge' | 'abandon'> {
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower) || lower === 'host') continue;
      const value = req.rawHeaders[i + 1]!;
      const had = headers[name];
      headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name] = value;
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
              exchange.response = { status: answer.statusCode ?? 0, headers: flatHeaders(answer), body: capturedText(capture) };
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
            if (!started) settle(cutShort(res, exchange, cutter.reason));
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

  const server: Server = createHttpServer((req, res) => {
    if (options.own?.(req, res)) return;
    const work = handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`adoption-kit proxy: ${(error as Error).message}\n`);
    });
    pending.add(work);
    void work.finally(() => pending.delete(work));
  });

  return {
    judge,
    start: () =>
      new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
          const { port } = server.address() as AddressInfo;
          resolve(`http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`);
        });
      }),
    stop: async (graceMs = DEFAULT_STOP_GRACE_MS) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const finished = Promise.all([...pending]);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([finished, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const cut of [...inFlight]) cut(new Cut('the proxy stopped before the exchange ended', 'ECUTSHORT'));
      await finished;
      server.closeAllConnections();
      await closed;
      agent.destroy();
    },
  };
}
