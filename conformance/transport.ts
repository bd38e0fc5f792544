// One HTTP request over node:http or node:https, with the TLS settings a real target needs (--ca,
// --insecure) and a network failure named by what went wrong: a refused connection, a timeout, or a
// TLS failure (an untrusted or expired certificate, a name mismatch, TLS spoken to a plain port).
// The kit uses this instead of fetch: fetch cannot take a CA per request, rewrites some headers,
// and would not let the kit send every method and byte the generated phases need.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { flatHeaders } from '../lib/http-message.ts';

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
  body: string;
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

/** Requests to one target with one TLS setting, over at most `connections` kept-alive connections until close(). */
export class Transport {
  readonly #agent: { http: HttpAgent; https: HttpsAgent };

  constructor(tls: TlsSettings = {}, connections = DEFAULT_CONNECTIONS) {
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

  send(req: RawRequest): Promise<RawResponse> {
    const url = new URL(req.url);
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(req.body.length);
    const secure = url.protocol === 'https:';
    const request = secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let handshakeDone = !secure;
      const outgoing = request(url, { method: req.method, headers, agent: secure ? this.#agent.https : this.#agent.http }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res), body: Buffer.concat(chunks).toString('utf8') }));
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
