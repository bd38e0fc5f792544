// The judging proxy: an HTTP server that forwards every request unchanged to the target (over TLS
// with --ca or --insecure, plus the --header values), streams the answer back unchanged, and hands
// each finished exchange to the TrafficJudge. Nothing is added, removed or delayed, except the faults
// a client asks for with Prefer when --faults is on. Like createServer of the reference server, it is
// built here and started by its caller.
import {
  createServer as createHttpServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Clock, Exchange } from '../conformance/http.ts';
import { bodyText, redactHeader } from '../conformance/http.ts';
import type { Contract } from '../conformance/openapi.ts';
import { curlLine } from '../conformance/report/curl.ts';
import type { TlsSettings } from '../conformance/transport.ts';
import { tlsExplanation } from '../conformance/transport.ts';
import { parsePrefer } from '../server/plugins/faults.ts';
import { headerValue, parseInteger } from '../spec/rules/fields.js';
import { operationOf, TrafficJudge, type Finding } from './judge.ts';
import { flatHeaders, readBody } from '../lib/http-message.ts';

export interface ProxyOptions {
  /** Where requests go: an origin, optionally with a path prefix that is put before every request's path. */
  target: string;
  host: string;
  port: number;
  contract: Contract;
  /** Sent with every forwarded request (--header), e.g. for a gateway in front of the target. */
  headers?: Record<string, string>;
  tls?: TlsSettings;
  timeoutMs: number;
  /** Answer Prefer: code=429|500|503 in the server's place, and hold a request for Prefer: delay=<ms>. */
  faults?: boolean;
  clock?: Clock;
  /** Whether a response's Date header is the server's clock (false for a test server on a manual clock). */
  dateHeader?: boolean;
  clockToleranceSeconds?: number;
  onFinding?: (finding: Finding) => void;
  /** Waits that many ms (Prefer: delay); tests pass one that moves their clock. */
  sleep?: (ms: number) => Promise<void>;
}

export interface TrafficProxy {
  readonly judge: TrafficJudge;
  /** Every exchange that passed, keys redacted (the HAR is written from them). */
  readonly exchanges: Exchange[];
  /** Starts listening; the URL clients use instead of the target's. */
  start(): Promise<string>;
  /** Stops listening and closes the connections to the target; exchanges under way are finished first. */
  stop(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
const MAX_DELAY_MS = 60_000;

/** The key of an Authorization header, whatever the scheme; undefined without one. */
function keyOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^\S+\s+(.+)$/.exec(authorization.trim());
  return m ? m[1]!.trim() : authorization.trim();
}

/** Query parameters named like a secret (api_key=...) are shown redacted too. */
function redactUrl(url: string): string {
  const parsed = new URL(url);
  for (const name of [...parsed.searchParams.keys()]) if (/token|key|secret|password|auth/i.test(name)) parsed.searchParams.set(name, '<redacted>');
  return parsed.toString();
}

/** The Error body and headers of a fault the proxy answers in the server's place. */
function injectedAnswer(
  code: 429 | 500 | 503,
  lastReset: number | undefined,
  lastLimit: number | undefined,
  nowMs: number,
): { headers: Record<string, string>; body: string } {
  const messages = {
    429: ['rate_limited', 'Too many requests (injected by the proxy).'],
    500: ['internal_error', 'Internal error (injected by the proxy).'],
    503: ['service_unavailable', 'Service unavailable (injected by the proxy).'],
  } as const;
  const [errorCode, message] = messages[code];
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-fault-injected': `code=${code}`,
  };
  if (code === 429) {
    // The 429 the key would get: its window's end as the last answer named it, else a minute.
    const now = Math.floor(nowMs / 1000);
    const reset = lastReset !== undefined && lastReset > now ? lastReset : now + 60;
    headers['retry-after'] = String(Math.max(1, reset - now));
    headers['x-ratelimit-limit'] = String(lastLimit ?? 0);
    headers['x-ratelimit-remaining'] = '0';
    headers['x-ratelimit-reset'] = String(reset);
  } else if (code === 503) headers['retry-after'] = '1';
  return { headers, body: JSON.stringify({ status: code, code: errorCode, message }) };
}

export function createTrafficProxy(options: ProxyOptions): TrafficProxy {
  const clock = options.clock ?? { now: () => Date.now() };
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const target = new URL(options.target);
  const prefix = target.pathname.replace(/\/+$/, '');
  const secure = target.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, ...(options.tls?.ca ? { ca: options.tls.ca } : {}), rejectUnauthorized: options.tls?.insecure !== true })
    : new HttpAgent({ keepAlive: true });
  const judge = new TrafficJudge({
    contract: options.contract,
    dateHeader: options.dateHeader ?? true,
    ...(options.clockToleranceSeconds !== undefined ? { tolerances: { clockSkewSeconds: options.clockToleranceSeconds } } : {}),
    ...(options.onFinding ? { onFinding: options.onFinding } : {}),
  });
  const exchanges: Exchange[] = [];
  /** Per key, the last X-RateLimit-Reset and -Limit seen: an injected 429 names the same window. */
  const windows = new Map<string, { reset?: number; limit?: number }>();
  let seq = 0;
  // Exchanges are judged in the order their requests arrived, even when answers come back out of order.
  let queue: Promise<void> = Promise.resolve();
  const pending = new Set<Promise<void>>();

  function record(req: IncomingMessage, url: string, requestHeaders: Record<string, string>, body: Buffer, sentAt: number): Exchange {
    const key = keyOf(requestHeaders.authorization);
    const path = new URL(url).pathname;
    const operationId = operationOf(options.contract, req.method ?? 'GET', path);
    const shown = Object.fromEntries(Object.entries(requestHeaders).map(([name, value]) => [name, redactHeader(name, value)]));
    const request: Exchange['request'] = { method: req.method ?? 'GET', url: redactUrl(url), headers: shown };
    if (body.length > 0) request.body = bodyText(body).text;
    const exchange: Exchange = {
      seq: ++seq,
      // Exchange wants an operation; one outside the description is marked `outside`, which every check reads first.
      operationId: operationId ?? 'listPets',
      purpose: `${req.method} ${path}`,
      request,
      sentAt,
      receivedAt: sentAt,
      replay: curlLine(
        { method: request.method, url: request.url, headers: requestHeaders, ...(request.body !== undefined ? { body: request.body } : {}) },
        key ? { API_KEY: key } : {},
      ),
      ...(operationId ? {} : { outside: 'not an operation of the description' }),
    };
    return exchange;
  }

  function finish(exchange: Exchange, key: string | undefined, injected: boolean): void {
    exchanges.push(exchange);
    const res = exchange.response;
    if (res && !injected) {
      const reset = parseInteger(headerValue(res.headers, 'x-ratelimit-reset'));
      const limit = parseInteger(headerValue(res.headers, 'x-ratelimit-limit'));
      windows.set(key ?? '', { ...(reset !== null ? { reset } : {}), ...(limit !== null ? { limit } : {}) });
    }
    judge.observe({ exchange, key, ...(injected ? { injected } : {}) });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sentAt = clock.now();
    const body = await readBody(req);
    const url = `${target.origin}${prefix}${req.url ?? '/'}`;
    const incoming = flatHeaders(req);
    const key = keyOf(incoming.authorization);
    const exchange = record(req, url, incoming, body, sentAt);
    judge.arrived({ exchange, key });
    // The turn of this exchange in the judge's order, taken when the request arrived.
    const before = queue;
    let done!: () => void;
    queue = new Promise<void>((resolve) => (done = resolve));
    let judged = false;
    const judgeInTurn = async (injected: boolean) => {
      judged = true;
      await before;
      try {
        finish(exchange, key, injected);
      } finally {
        done();
      }
    };
    try {
      await pass(req, res, { url, incoming, key, body, exchange, judgeInTurn });
    } finally {
      // A failure on the way must not hold up the exchanges that came after this one.
      if (!judged) {
        judge.abandoned({ exchange, key });
        void before.then(done);
      }
    }
  }

  /** Forwards one request (or answers a fault), then has the exchange judged in its turn. */
  async function pass(
    req: IncomingMessage,
    res: ServerResponse,
    {
      url,
      incoming,
      key,
      body,
      exchange,
      judgeInTurn,
    }: {
      url: string;
      incoming: Record<string, string>;
      key: string | undefined;
      body: Buffer;
      exchange: Exchange;
      judgeInTurn: (injected: boolean) => Promise<void>;
    },
  ): Promise<void> {
    if (options.faults) {
      const fault = parsePrefer(incoming.prefer, MAX_DELAY_MS);
      if (typeof fault === 'string') {
        // Not a fault this proxy injects: the request goes on unchanged, and the server says what it thinks of it.
      } else {
        if (fault.delayMs) await sleep(fault.delayMs);
        if (fault.code) {
          const last = windows.get(key ?? '') ?? {};
          const answer = injectedAnswer(fault.code, last.reset, last.limit, clock.now());
          res.writeHead(fault.code, answer.headers);
          res.end(answer.body);
          exchange.receivedAt = clock.now();
          exchange.response = { status: fault.code, headers: answer.headers, body: answer.body };
          await judgeInTurn(true);
          return;
        }
      }
    }

    const forward: Record<string, string | string[]> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower) || lower === 'host') continue;
      const value = req.rawHeaders[i + 1]!;
      const had = forward[name];
      forward[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) forward[name] = value;
    forward.host = target.host;
    if (body.length > 0 || incoming['content-length'] !== undefined) forward['content-length'] = String(body.length);

    await new Promise<void>((resolve) => {
      const upstream = (secure ? httpsRequest : httpRequest)(url, { method: req.method, headers: forward, agent }, (answer) => {
        const headers: string[] = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          if (HOP_BY_HOP.has(answer.rawHeaders[i]!.toLowerCase())) continue;
          headers.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
        }
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          res.write(chunk);
        });
        answer.on('end', () => {
          res.end();
          exchange.receivedAt = clock.now();
          exchange.response = { status: answer.statusCode ?? 0, headers: flatHeaders(answer), body: bodyText(Buffer.concat(chunks)).text };
          resolve();
        });
        answer.on('error', (error) => {
          res.destroy(error);
          exchange.receivedAt = clock.now();
          exchange.error = (error as { code?: string }).code ?? error.message;
          resolve();
        });
      });
      upstream.setTimeout(options.timeoutMs, () =>
        upstream.destroy(Object.assign(new Error(`no response within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
      );
      upstream.on('error', (error) => {
        const code = (error as { code?: string }).code ?? error.message;
        const tls = tlsExplanation(code);
        exchange.receivedAt = clock.now();
        exchange.error = tls ? `TLS: ${tls} (${code})` : code;
        if (tls) exchange.tlsError = true;
        // The one answer the proxy writes itself: the target gave none.
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(`adoption-kit proxy: no answer from ${target.origin}: ${exchange.error}\n`);
        } else res.destroy();
        resolve();
      });
      upstream.end(body);
    });
    await judgeInTurn(false);
  }

  const server: Server = createHttpServer((req, res) => {
    const work = handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`adoption-kit proxy: ${(error as Error).message}\n`);
    });
    pending.add(work);
    void work.finally(() => pending.delete(work));
  });

  return {
    judge,
    exchanges,
    start: () =>
      new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
          const { port } = server.address() as AddressInfo;
          resolve(`http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`);
        });
      }),
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await Promise.all([...pending]);
      agent.destroy();
    },
  };
}
