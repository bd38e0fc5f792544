// What the proxy reads of a request before it forwards it: the path it names and whose key it carries.
// How its URL is shown is spec/rules/redact.js's redactUrl.

/** The key of an Authorization header, whatever the scheme; undefined without one. */
export function keyOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^\S+\s+(.+)$/.exec(authorization.trim());
  return m ? m[1]!.trim() : authorization.trim();
}

/**
 * The path and query a request names. An absolute-form target (RFC 9112 §3.2.2) gives only its
 * path: whatever host it names, the request goes to --target and nowhere else. Undefined for a
 * target that names no path (authority-form, asterisk-form).
 */
export function originForm(requestTarget: string): string | undefined {
  if (requestTarget.startsWith('/')) return requestTarget;
  try {
    const absolute = new URL(requestTarget);
    if (absolute.protocol !== 'http:' && absolute.protocol !== 'https:') return undefined;
    return `${absolute.pathname}${absolute.search}`;
  } catch {
    return undefined;
  }
}
