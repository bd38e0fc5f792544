// @ts-check
// The key goes only to BASE_URL's origin (the rule browsers and curl apply to redirects). No URL
// class (k6 has none): it reads what it can read for certain and calls everything else foreign.

/** Backslashes (WHATWG reads them as `/`, Go does not), whitespace and control characters. */
const AMBIGUOUS = /[\\\u0000-\u0020\u007f]/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * The origin of an absolute http(s) URL, its port always written (`http://127.0.0.1:80`); null for
 * anything else: a relative reference, another scheme, userinfo (`http://good@evil.test`), or a host
 * that is neither a plain name nor an address.
 * @param {string} url
 * @returns {string | null}
 */
export function originOf(url) {
  if (AMBIGUOUS.test(url)) return null;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(url);
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return null;
  const host = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::(\d*))?$/.exec(m[2]);
  if (!host) return null;
  const port = host[2] ? String(Number(host[2])) : scheme === 'http' ? '80' : '443';
  return scheme + '://' + host[1].toLowerCase() + ':' + port;
}

/**
 * `reference` (any form a Location or a Link target may take) resolved against `baseUrl`, when on
 * its origin; null otherwise or when it cannot be read for certain. Only what this returns may be
 * requested with the key.
 * @param {string} baseUrl
 * @param {string} reference
 * @returns {string | null}
 */
export function onOrigin(baseUrl, reference) {
  const origin = originOf(baseUrl);
  if (origin === null || AMBIGUOUS.test(reference)) return null;
  const scheme = /** @type {RegExpExecArray} */ (SCHEME.exec(baseUrl))[1];
  /** @type {string} */
  let absolute;
  if (SCHEME.test(reference)) absolute = reference;
  else if (reference.indexOf('//') === 0) absolute = scheme + ':' + reference;
  else {
    const authority = /** @type {RegExpExecArray} */ (/^[^:]+:\/\/[^/?#]*/.exec(baseUrl))[0];
    const path = baseUrl.slice(authority.length).split('#')[0].split('?')[0];
    if (reference.charAt(0) === '/') absolute = authority + reference;
    else if (reference.charAt(0) === '?') absolute = authority + path + reference;
    else if (reference === '' || reference.charAt(0) === '#') absolute = authority + path;
    else absolute = authority + path.slice(0, path.lastIndexOf('/') + 1) + (path === '' ? '/' : '') + reference;
  }
  return originOf(absolute) === origin ? absolute : null;
}
