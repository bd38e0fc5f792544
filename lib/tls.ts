// TLS as the kit's commands meet it: the settings a target's certificate is checked with (--ca,
// --insecure), and what each TLS failure means for the person running the kit. conform and the
// proxy both reach targets over TLS.

export interface TlsSettings {
  /** PEM certificates trusted besides the system's (from --ca). */
  ca?: string;
  /** Skip certificate verification (--insecure). */
  insecure?: boolean;
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
