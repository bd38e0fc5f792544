// What the proxy reads of a request before it forwards it: the path it names, whose key it carries,
// and its URL as the reports show it.

const SECRET_QUERY = /token|key|secret|password|auth/i;

/** The key of an Authorization header, whatever the scheme; undefined without one. */
export function keyOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^\S+\s+(.+)$/.exec(authorization.trim());
  return m ? m[1]!.trim() : authorization.trim();
}

/** Query parameters named like a secret (api_key=...) are shown redacted too. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  // Most queries name no secret: only one that might is parsed.
  if (at < 0 || !SECRET_QUERY.test(url.slice(at))) return url;
  const parsed = new URL(url);
  for (const name of [...parsed.searchParams.keys()]) if (SECRET_QUERY.test(name)) parsed.searchParams.set(name, '<redacted>');
  return parsed.toString();
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
