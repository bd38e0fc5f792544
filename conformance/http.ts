// The one way the kit talks to the implementation under test: every request and response is kept as
// an Exchange, so each check can show what it sent and what came back, and so every response can be
// validated against the description afterwards. A gate (the run's pacer) sees every request before
// it leaves and every answer after it comes, so the kit keeps within the target's rate limits.
import { KitError } from '../lib/errors.ts';
import type { OperationId } from '../spec/contract-types.ts';
import { curlLine, type Secrets } from '../judge/curl.ts';
import { Silence, TargetStoppedError, type RunHalted } from './silence.ts';
import { DEFAULT_MAX_BODY_BYTES, NetworkFailure, notSentText, Transport } from './transport.ts';
import { type TlsSettings } from '../lib/tls.ts';
import { bodyText, type Clock, type Exchange, type ExchangeRequest } from '../judge/exchange.ts';

export interface SendOptions {
  operationId: OperationId;
  purpose: string;
  method: string;
  /** Path below the base URL ('/pets', '/pets/3'), optionally with a query string; or an absolute URL. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** `undefined`: the run's API key; `null`: no Authorization header; a string: that header value. */
  authorization?: string | null;
  json?: unknown;
  /** Raw body sent as-is (for malformed bodies). */
  rawBody?: string | Buffer;
  /** Content-Type of a body: application/json unless given; null sends none. */
  contentType?: string | null;
  headers?: Record<string, string>;
  outside?: string;
  phase?: string;
  /** Sent past the run's pacer, answers as they come (the model phase judges its own 429s and paces itself). */
  ungated?: true;
}

/** What paces the requests: told before each request leaves and after each answer comes. */
export interface RequestGate {
  before(request: ExchangeRequest): Promise<void>;
  /** Whether to send the same request again (a 429 attributed and waited out). */
  after(exchange: Exchange): Promise<boolean>;
}

/**
 * Gives `exchange` its replay line, made when first read: only a failure's evidence and the reports
 * read it, and making one for every request was a few per cent of a run's CPU. Read once, it is kept;
 * set (Dredd's, whose body is its own), it is that value.
 */
function withReplay(exchange: Exchange, line: () => string): Exchange {
  const keep = (value: string | undefined) => Object.defineProperty(exchange, 'replay', { value, writable: true, enumerable: true, configurable: true });
  return Object.defineProperty(exchange, 'replay', {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = line();
      keep(value);
      return value;
    },
    set: keep,
  });
}

/** The target answered nothing at all: it is down, or the base URL is wrong. */
export class UnreachableError extends KitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unreachable', message, options);
  }
}

/** TLS failed: the certificate is not trusted, expired or for another host, or the port speaks no TLS. */
export class TlsError extends KitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('tls', message, options);
  }
}

export class HttpClient {
  readonly exchanges: Exchange[] = [];
  /** Requests in a row without an answer: enough of them halt the client (silence.ts). */
  readonly silence = new Silence();
  #halted: RunHalted | undefined;
  #observer: ((exchange: Exchange) => void) | undefined;
  #seq = 0;
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #headers: Record<string, string>;
  readonly #transport: Transport;
  readonly #secrets: Secrets;
  #gate: RequestGate | undefined;

  constructor(options: {
    baseUrl: string;
    apiKey: string;
    clock: Clock;
    timeoutMs: number;
    headers?: Record<string, string>;
    tls?: TlsSettings;
    gate?: RequestGate;
    /** Connections kept to the target: as many requests are in flight at once (transport.ts). */
    connections?: number;
    /** Keys by the environment variable a replay line names instead of them. */
    secrets?: Secrets;
    /** Bodies are read up to this many bytes (--max-body). */
    maxBodyBytes?: number;
  }) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#clock = options.clock;
    this.#timeoutMs = options.timeoutMs;
    this.#headers = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    this.#transport = new Transport(
      { origin: this.#baseUrl, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES },
      options.tls ?? {},
      options.connections,
    );
    this.#secrets = options.secrets ?? { CONFORMANCE_API_KEY: options.apiKey };
    this.#gate = options.gate;
  }

  set gate(gate: RequestGate | undefined) {
    this.#gate = gate;
  }

  /** Told every exchange as it completes (--exitfirst judges each at once). */
  set observer(observer: ((exchange: Exchange) => void) | undefined) {
    this.#observer = observer;
  }

  /** From now on every send throws `why` and sends nothing: the run ends (the target stopped answering, --exitfirst). */
  halt(why: RunHalted): void {
    this.#halted ??= why;
  }

  /** Why the client sends nothing more, once it was halted. */
  get halted(): RunHalted | undefined {
    return this.#halted;
  }

  /** The request as a curl command that sends it again, without the keys. */
  replay(request: ExchangeRequest): string {
    return curlLine(request, this.#secrets);
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#transport.close();
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

  /** Whether a URL is on the base URL's origin, the only one the kit sends to (with or without a key). */
  sendsTo(url: string): boolean {
    return this.#transport.sendsTo(url);
  }

  async send(options: SendOptions): Promise<Exchange> {
    const url = this.url(options.path, options.query);
    // Credentials stay with their origin: a URL elsewhere (a Location, a Link) is data, never a request.
    if (!this.sendsTo(url)) return this.#notSent(options, url);
    const headers: Record<string, string> = { accept: 'application/json', ...this.#headers, ...options.headers };
    const authorization = options.authorization === undefined ? this.bearer() : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    let bytes: Buffer | undefined;
    if (options.rawBody !== undefined) bytes = Buffer.isBuffer(options.rawBody) ? options.rawBody : Buffer.from(options.rawBody, 'utf8');
    else if (options.json !== undefined) bytes = Buffer.from(JSON.stringify(options.json), 'utf8');
    if (bytes !== undefined) {
      const type = options.contentType === undefined ? 'application/json' : options.contentType;
      if (type !== null) headers['content-type'] ??= type;
    }
    const request: ExchangeRequest = { method: options.method, url, headers };
    if (bytes !== undefined) {
      const { text, utf8 } = bodyText(bytes);
      request.body = text;
      if (!utf8) request.bytes = bytes;
    }
    const gate = options.ungated ? undefined : this.#gate;
    for (let attempt = 1; ; attempt++) {
      if (this.#halted) throw this.#halted;
      await gate?.before(request);
      if (this.#halted) throw this.#halted;
      const exchange = await this.#perform(options, request, bytes);
      if (attempt === 1 && gate && (await gate.after(exchange))) continue;
      return exchange;
    }
  }

  /** A request to another origin: nothing sent, nothing paced, not among the exchanges the areas inspect. */
  #notSent(options: SendOptions, url: string): Exchange {
    const now = this.#clock.now();
    const request: ExchangeRequest = { method: options.method, url, headers: {} };
    const exchange: Exchange = {
      seq: 0,
      operationId: options.operationId,
      purpose: options.purpose,
      request,
      error: notSentText(url, this.#baseUrl),
      sentAt: now,
      receivedAt: now,
    };
    return withReplay(exchange, () => this.replay(request));
  }

  async #perform(options: SendOptions, request: ExchangeRequest, bytes: Buffer | undefined): Promise<Exchange> {
    const exchange: Exchange = {
      seq: ++this.#seq,
      operationId: options.operationId,
      purpose: options.purpose,
      request,
      sentAt: this.#clock.now(),
      receivedAt: 0,
      ...(options.outside ? { outside: options.outside } : {}),
      ...(options.phase ? { phase: options.phase } : {}),
    };
    withReplay(exchange, () => this.replay(request));
    const started = performance.now();
    try {
      const { connection, ...response } = await this.#transport.send({
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(bytes ? { body: bytes } : {}),
        timeoutMs: this.#timeoutMs,
        seq: exchange.seq,
      });
      exchange.response = response;
      // Whether it went on a reused connection, and was sent again because that one had closed: http.close-announced reads it.
      exchange.connection = connection;
    } catch (error) {
      if (error instanceof NetworkFailure) {
        // A connection closed under the request says which and why it was not sent again; other failures are their code.
        exchange.error = error.tls ? `TLS: ${error.message}` : error.connection?.closedBeforeAnswer ? error.message : error.failure;
        if (error.tls) exchange.tlsError = true;
        if (error.connection) exchange.connection = error.connection;
      } else exchange.error = (error as Error).message;
    }
    exchange.receivedAt = this.#clock.now();
    exchange.elapsedMs = performance.now() - started;
    this.exchanges.push(exchange);
    this.#listen(exchange);
    this.#observer?.(exchange);
    return exchange;
  }

  /** Whether the target still answers: enough requests in a row without an answer halt the client. */
  #listen(exchange: Exchange): void {
    const what = `${exchange.request.method} ${exchange.request.url}`;
    if (exchange.response) return this.silence.answered(`${what} (${exchange.response.status}, request ${exchange.seq})`);
    const why = exchange.error === 'ETIMEDOUT' ? `no answer within --timeout ${this.#timeoutMs} ms` : (exchange.error ?? 'no answer');
    const stopped = this.silence.unanswered(`${what} (request ${exchange.seq})`, why);
    if (stopped !== undefined) this.halt(new TargetStoppedError(stopped));
  }
}
