// The one way the kit talks to the implementation under test: every request and response is kept as
// an Exchange, so each check can show what it sent and what came back, and so every response can be
// validated against the description afterwards.
import { KitError } from '../lib/errors.ts';
import type { OperationId } from './openapi.ts';

export interface Clock {
  now(): number;
}

export interface ExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ExchangeResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Exchange {
  seq: number;
  operationId: OperationId;
  /** What the kit meant to do, in words: "list with limit=1". */
  purpose: string;
  request: ExchangeRequest;
  response?: ExchangeResponse;
  /** Network failure: refused, reset, timed out. */
  error?: string;
  /** The clock's time when the request left (epoch ms). */
  sentAt: number;
  /** The clock's time when the response arrived (epoch ms). */
  receivedAt: number;
}

export interface SendOptions {
  operationId: OperationId;
  purpose: string;
  method: 'GET' | 'POST';
  /** Path below the base URL ('/pets', '/pets/3'), optionally with a query string; or an absolute URL. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** `undefined`: the run's API key; `null`: no Authorization header; a string: that header value. */
  authorization?: string | null;
  json?: unknown;
  /** Raw body sent as-is (for malformed bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** The target answered nothing at all: it is down, or the base URL is wrong. */
export class UnreachableError extends KitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unreachable', message, options);
  }
}

export class HttpClient {
  readonly exchanges: Exchange[] = [];
  #seq = 0;
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #clock: Clock;
  readonly #timeoutMs: number;

  constructor(options: { baseUrl: string; apiKey: string; clock: Clock; timeoutMs: number }) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#clock = options.clock;
    this.#timeoutMs = options.timeoutMs;
  }

  get baseUrl(): string {
    return this.#baseUrl;
  }

  bearer(key: string = this.#apiKey): string {
    return `Bearer ${key}`;
  }

  url(path: string, query?: SendOptions['query']): string {
    const url = new URL(/^https?:\/\//i.test(path) ? path : `${this.#baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  async send(options: SendOptions): Promise<Exchange> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const authorization = options.authorization === undefined ? this.bearer() : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.json !== undefined) body = JSON.stringify(options.json);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const request: ExchangeRequest = { method: options.method, url: this.url(options.path, options.query), headers };
    if (body !== undefined) request.body = body;
    const exchange: Exchange = {
      seq: ++this.#seq,
      operationId: options.operationId,
      purpose: options.purpose,
      request,
      sentAt: this.#clock.now(),
      receivedAt: 0,
    };
    try {
      const res = await fetch(request.url, {
        method: request.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      const responseHeaders: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        responseHeaders[name] = value;
      });
      exchange.response = { status: res.status, headers: responseHeaders, body: await res.text() };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      exchange.error = cause?.code ?? cause?.message ?? (error as Error).message;
    }
    exchange.receivedAt = this.#clock.now();
    this.exchanges.push(exchange);
    return exchange;
  }
}

export function jsonBody(exchange: Exchange): unknown {
  if (!exchange.response) return undefined;
  try {
    return JSON.parse(exchange.response.body);
  } catch {
    return undefined;
  }
}

/** The Authorization value as reports show it: the scheme and the first characters of the key. */
export function redactAuthorization(value: string): string {
  const m = /^(\S+)\s+(.*)$/.exec(value);
  if (!m) return value.length > 4 ? `${value.slice(0, 4)}…` : value;
  const secret = m[2]!;
  return `${m[1]} ${secret.length > 6 ? `${secret.slice(0, 6)}…(${secret.length} chars)` : secret}`;
}

/** An exchange as text, the way a failed check shows it. */
export function formatExchange(exchange: Exchange, maxBody = 600): string {
  const lines: string[] = [];
  const { request } = exchange;
  lines.push(`> ${request.method} ${request.url}`);
  for (const [name, value] of Object.entries(request.headers)) {
    lines.push(`> ${name}: ${name === 'authorization' ? redactAuthorization(value) : value}`);
  }
  if (request.body !== undefined) lines.push(`> ${truncate(request.body, maxBody)}`);
  if (exchange.error) {
    lines.push(`< (no response: ${exchange.error})`);
  } else if (exchange.response) {
    lines.push(`< ${exchange.response.status}`);
    for (const [name, value] of Object.entries(exchange.response.headers)) lines.push(`< ${name}: ${value}`);
    if (exchange.response.body) lines.push(`< ${truncate(exchange.response.body, maxBody)}`);
  }
  return lines.join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} bytes)` : text;
}
