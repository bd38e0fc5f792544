// One HTTP request over node:http(s), holding the kit's two bounds below every check: one origin
// only, and no body past --max-body (conformance/README.md, How it is built). Not fetch: it cannot
// take a CA per request, rewrites some headers, and would not send every method and byte we need.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { BodyCapture, flatHeaders } from '../lib/http-message.ts';
import type { BodyTooLarge } from '../judge/exchange.ts';

export interface TlsSettings {
  /** PEM certificates trusted besides the system's (from --ca). */
  ca?: string;
  /** Skip certificate verification (--insecure). */
  insecure?: boolean;
}

export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  timeoutMs: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body; of a body past the limit, only its first bytes (EVIDENCE_BYTES), for the report. */
  body: string;
  /** Set when the body went past the limit: the transport stopped reading it, so it cannot be judged. */
  tooLarge?: BodyTooLarge;
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
  constructor(failure: string, tls: boolean, message: string) {
    super(message);
    this.failure = failure;
    this.tls = tls;
  }
}

/** OpenSSL's verification codes and Node's own TLS codes, with what each means for the person running the kit. */
const TLS_FAILURES: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed and not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a self-signed CA that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is signed by a CA that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'the certificate of the CA that signed the certificate is not available',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate is signed by a CA that is not trusted',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  CERT_REVOKED: 'the certificate was revoked',
  CERT_SIGNATURE_FAILURE: 'the certificate signature does not verify',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate does not name this host',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the target does not speak TLS on this port (try http://)',
  EPROTO: 'the TLS handshake failed',
  ECONNRESET_TLS: 'the connection was closed during the TLS handshake',
};

export function tlsExplanation(code: string): string | undefined {
  return TLS_FAILURES[code] ?? (/^ERR_SSL_|^ERR_TLS_/.test(code) ? 'the TLS handshake failed' : undefined);
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
 * connections until close(); no body read past `maxBodyBytes`.
 */
export class Transport {
  readonly #agent: { http: HttpAgent; https: HttpsAgent };
  readonly #limits: TransportLimits;

  constructor(limits: TransportLimits, tls: TlsSettings = {}, connections = DEFAULT_CONNECTIONS) {
    this.#limits = { ...limits, origin: originOf(limits.origin) };
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

  send(req: RawRequest): Promise<RawResponse> {
    const url = new URL(req.url);
    if (url.origin !== this.#limits.origin) {
      return Promise.reject(new NetworkFailure('other_origin', false, notSentText(req.url, this.#limits.origin)));
    }
    const limit = this.#limits.maxBodyBytes;
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(req.body.length);
    const secure = url.protocol === 'https:';
    const request = secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let handshakeDone = !secure;
      const outgoing = request(url, { method: req.method, headers, agent: secure ? this.#agent.https : this.#agent.http }, (res) => {
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
          resolve({ status, headers, body: capture.bytes().subarray(0, EVIDENCE_BYTES).toString('utf8'), tooLarge });
        };
        // A HEAD answer, a 204 and a 304 have no body whatever Content-Length says (RFC 9110 §8.6).
        const bodiless = req.method === 'HEAD' || status === 204 || status === 304;
        if (!bodiless && declared !== undefined && declared > limit) return stop();
        res.on('data', (c: Buffer) => {
          capture.add(c);
          if (capture.truncated) stop();
        });
        res.on('end', () => resolve({ status, headers, body: capture.bytes().toString('utf8') }));
        res.on('error', (error) => reject(failure(error, handshakeDone)));
      });
      outgoing.on('socket', (socket) => {
        // A kept-alive socket finished its handshake long ago.
        if (!socket.connecting) handshakeDone = true;
        else socket.once('secureConnect', () => (handshakeDone = true));
      });
      outgoing.setTimeout(req.timeoutMs, () => outgoing.destroy(Object.assign(new Error(`no response within ${req.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      outgoing.on('error', (error) => reject(failure(error, handshakeDone)));
      outgoing.end(req.body);
    });
  }
}

function failure(error: Error, handshakeDone: boolean): NetworkFailure {
  const code = (error as { code?: string }).code ?? error.message;
  // A reset before the handshake finished on an https URL is a TLS failure too.
  const tlsCode = code === 'ECONNRESET' && !handshakeDone ? 'ECONNRESET_TLS' : code;
  const explained = tlsExplanation(tlsCode);
  return new NetworkFailure(tlsCode, explained !== undefined, explained ? `${explained} (${code})` : error.message);
}
