// One HTTP request over node:http(s), holding the kit's two bounds below every check: one origin
// only, and no body past --max-body (conformance/README.md, How it is built). Not fetch: it cannot
// take a CA per request, rewrites some headers, and would not send every method and byte we need.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { BodyCapture, flatHeaders } from '../lib/http-message.ts';
import type { BodyTooLarge, Exchange } from '../judge/exchange.ts';
import { tlsExplanation, type TlsSettings } from '../lib/tls.ts';

/** The connection a request first went on (Exchange's). */
export type SentOn = NonNullable<Exchange['connection']>;
/** A kept-alive connection that closed before any byte of an answer (Exchange's). */
export type ClosedBeforeAnswer = NonNullable<SentOn['closedBeforeAnswer']>;

export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  timeoutMs: number;
  /** The caller's number for the request: a later request that finds its connection closed names it. */
  seq?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body; of a body past the limit, only its first bytes (EVIDENCE_BYTES), for the report. */
  body: string;
  /** Set when the body went past the limit: the transport stopped reading it, so it cannot be judged. */
  tooLarge?: BodyTooLarge;
  /** The connection the request first went on, and whether it closed before answering (the answer is then the resend's). */
  connection: SentOn;
}

/** Default of --max-body: far above any answer of this API (100 pets are a few dozen KiB), far below a string's maximum length. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Of a body past the limit, what is kept to show in the report. */
export const EVIDENCE_BYTES = 2048;

/** Scheme, host and port: where a transport may send. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** Why a request to another origin than the base URL's was not sent. */
export function notSentText(url: string, origin: string): string {
  return `not sent: ${originOf(url)} is not the origin of --base-url (${originOf(origin)}); the kit sends requests, and its keys, only there`;
}

/** Why no response came: `code` is Node's (ECONNREFUSED, CERT_HAS_EXPIRED...), `tls` says whether TLS failed. */
export class NetworkFailure extends Error {
  readonly failure: string;
  readonly tls: boolean;
  /** The connection the request first went on, when it had one. */
  readonly connection: SentOn | undefined;
  constructor(failure: string, tls: boolean, message: string, connection?: SentOn) {
    super(message);
    this.failure = failure;
    this.tls = tls;
    this.connection = connection;
  }
}

/** RFC 9110 §9.2.2: the methods whose request may be sent again when the connection failed before the answer was read. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);

/** How Node reports a connection closed under a request: a reset or an end before the answer ("socket hang up"), a write to a closed socket. */
const CLOSED_UNDER_REQUEST: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

/** A reused connection closed before any byte of its answer: the one failure the transport may send again. */
class ClosedConnection extends NetworkFailure {
  readonly closed: ClosedBeforeAnswer;
  constructor(closed: ClosedBeforeAnswer, message: string) {
    super(closed.error, false, message, { reused: true, closedBeforeAnswer: closed });
    this.closed = closed;
  }
}

/** "HEAD http://…/v1/pets (request 11)": a request answered on a connection, in words. */
function answeredText(after: NonNullable<ClosedBeforeAnswer['after']>): string {
  return `${after.method} ${after.url}${after.seq === undefined ? '' : ` (request ${after.seq})`}`;
}

/** Connections the kit keeps to a target unless more requests are to be in flight together (--clients). */
export const DEFAULT_CONNECTIONS = 4;

export interface TransportLimits {
  /** The only origin requests go to (the base URL's): any other is refused before a byte is sent. */
  origin: string;
  /** Bodies are read up to this many bytes, no further. */
  maxBodyBytes: number;
}

/**
 * Requests to one target (one origin) with one TLS setting, over at most `connections` kept-alive
 * connections until close(); no body read past `maxBodyBytes`. A server may close a kept-alive
 * connection at any time (RFC 9112 §9.5), also just as the next request goes out on it: an
 * idempotent request that meets such a close before any byte of its answer is sent once more, on a
 * new connection (RFC 9112 §9.3.1, RFC 9110 §9.2.2), and its answer says so.
 */
export class Transport {
  readonly #agent: { http: HttpAgent; https: HttpsAgent };
  readonly #limits: TransportLimits;
  readonly #tls: TlsSettings;
  /** The last request answered on each kept-alive connection: the one a close came after. */
  readonly #lastAnswered = new WeakMap<Socket, NonNullable<ClosedBeforeAnswer['after']>>();
  /**
   * Connections that carried a request before. Node's `reusedSocket` is not enough: it is set only when
   * a request finds a connection idle, not when one that was queued (all `connections` busy) is handed
   * the connection another request just finished with.
   */
  readonly #carried = new WeakSet<Socket>();

  constructor(limits: TransportLimits, tls: TlsSettings = {}, connections = DEFAULT_CONNECTIONS) {
    this.#limits = { ...limits, origin: originOf(limits.origin) };
    this.#tls = tls;
    this.#agent = {
      http: new HttpAgent({ keepAlive: true, maxSockets: connections }),
      https: new HttpsAgent({
        keepAlive: true,
        maxSockets: connections,
        ...(tls.ca ? { ca: tls.ca } : {}),
        rejectUnauthorized: tls.insecure !== true,
      }),
    };
  }

  close(): void {
    this.#agent.http.destroy();
    this.#agent.https.destroy();
  }

  /** Whether the transport sends to this URL: only to the origin it was made for. */
  sendsTo(url: string): boolean {
    return originOf(url) === this.#limits.origin;
  }

  async send(req: RawRequest): Promise<RawResponse> {
    const url = new URL(req.url);
    if (url.origin !== this.#limits.origin) throw new NetworkFailure('other_origin', false, notSentText(req.url, this.#limits.origin));
    try {
      return await this.#attempt(req, url, 'pooled');
    } catch (error) {
      if (!(error instanceof ClosedConnection)) throw error;
      const { closed } = error;
      const method = req.method.toUpperCase();
      if (!IDEMPOTENT_METHODS.has(method)) {
        throw new NetworkFailure(
          closed.error,
          false,
          `${error.message}; not sent again, because ${method} is not idempotent (RFC 9110 §9.2.2)`,
          error.connection,
        );
      }
      const connection: SentOn = { reused: true, closedBeforeAnswer: { ...closed, resent: true } };
      try {
        // Alone on a new connection: the pool may hold more the server closed, and a failed automatic retry is not retried (RFC 9110 §9.2.2).
        return { ...(await this.#attempt(req, url, 'fresh')), connection };
      } catch (again) {
        if (!(again instanceof NetworkFailure)) throw again;
        throw new NetworkFailure(again.failure, again.tls, `${again.message}, when sent again after ${error.message}`, connection);
      }
    }
  }

  /**
   * One sending of the request: on a connection of the pool (`pooled`, kept alive for the next), or
   * on a new one closed after its answer (`fresh`: Node's default agent, which sends Connection: close).
   */
  #attempt(req: RawRequest, url: URL, on: 'pooled' | 'fresh'): Promise<RawResponse> {
    const limit = this.#limits.maxBodyBytes;
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(req.body.length);
    const secure = url.protocol === 'https:';
    const request = secure ? httpsRequest : httpRequest;
    const pool = secure ? this.#agent.https : this.#agent.http;
    const tls = secure ? { ...(this.#tls.ca ? { ca: this.#tls.ca } : {}), rejectUnauthorized: this.#tls.insecure !== true } : {};
    const agent = on === 'pooled' ? { agent: pool } : { agent: false as const, ...tls };
    return new Promise((resolve, reject) => {
      let handshakeDone = !secure;
      let socket: Socket | undefined;
      let reused = false;
      // Whether any byte of the answer came: after one, a close is no longer "before any answer".
      let answerBegun = false;
      const begun = () => (answerBegun = true);
      const outgoing = request(url, { method: req.method, headers, ...agent }, (res) => {
        socket?.off('data', begun);
        if (socket) this.#lastAnswered.set(socket, { ...(req.seq !== undefined ? { seq: req.seq } : {}), method: req.method, url: req.url });
        const connection: SentOn = { reused };
        const status = res.statusCode ?? 0;
        const headers = flatHeaders(res);
        const capture = new BodyCapture(limit);
        const declared = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
        let stopped = false;
        const stop = () => {
          if (stopped) return;
          stopped = true;
          const tooLarge: BodyTooLarge = { limit, read: capture.total, ...(declared !== undefined && Number.isFinite(declared) ? { declared } : {}) };
          // Destroying the answer closes its connection too: the rest of the body is never read.
          res.destroy();
          resolve({ status, headers, body: capture.bytes().subarray(0, EVIDENCE_BYTES).toString('utf8'), tooLarge, connection });
        };
        // A HEAD answer, a 204 and a 304 have no body whatever Content-Length says (RFC 9110 §8.6).
        const bodiless = req.method === 'HEAD' || status === 204 || status === 304;
        if (!bodiless && declared !== undefined && declared > limit) return stop();
        res.on('data', (c: Buffer) => {
          capture.add(c);
          if (capture.truncated) stop();
        });
        res.on('end', () => resolve({ status, headers, body: capture.bytes().toString('utf8'), connection }));
        res.on('error', (error) => reject(failure(error, handshakeDone, { reused })));
      });
      outgoing.on('socket', (assigned) => {
        socket = assigned;
        reused = this.#carried.has(assigned);
        this.#carried.add(assigned);
        assigned.on('data', begun);
        // A kept-alive socket finished its handshake long ago.
        if (!assigned.connecting) handshakeDone = true;
        else assigned.once('secureConnect', () => (handshakeDone = true));
      });
      outgoing.setTimeout(req.timeoutMs, () => outgoing.destroy(Object.assign(new Error(`no response within ${req.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      outgoing.on('error', (error) => {
        socket?.off('data', begun);
        const code = (error as { code?: string }).code ?? error.message;
        if (reused && !answerBegun && CLOSED_UNDER_REQUEST.has(code)) {
          const after = socket && this.#lastAnswered.get(socket);
          const closed: ClosedBeforeAnswer = { ...(after ? { after } : {}), error: code, resent: false };
          const where = after ? `after its answer to ${answeredText(after)}` : 'before this request';
          return reject(new ClosedConnection(closed, `${code}: the target closed the kept-alive connection ${where}, before any answer to this one`));
        }
        reject(failure(error, handshakeDone, { reused }));
      });
      outgoing.end(req.body);
    });
  }
}

function failure(error: Error, handshakeDone: boolean, connection: SentOn): NetworkFailure {
  const code = (error as { code?: string }).code ?? error.message;
  // A reset before the handshake finished on an https URL is a TLS failure too.
  const tlsCode = code === 'ECONNRESET' && !handshakeDone ? 'ECONNRESET_TLS' : code;
  const explained = tlsExplanation(tlsCode);
  return new NetworkFailure(tlsCode, explained !== undefined, explained ? `${explained} (${code})` : error.message, connection);
}
