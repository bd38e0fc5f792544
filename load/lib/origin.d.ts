/**
 * The origin of an absolute http(s) URL, its port always written (`http://127.0.0.1:80`); null for
 * anything else: a relative reference, another scheme, userinfo (`http://good@evil.test`), or a host
 * that is neither a plain name nor an address.
 * @param {string} url
 * @returns {string | null}
 */
export function originOf(url: string): string | null;
/**
 * The absolute URL `reference` (absolute, scheme-relative, an absolute path or a relative one, as a
 * Location or a Link target may be) names, resolved against `baseUrl`, when it is on `baseUrl`'s
 * origin; null when it names another origin or cannot be read for certain. Only what this returns
 * may be requested with the key.
 * @param {string} baseUrl
 * @param {string} reference
 * @returns {string | null}
 */
export function onOrigin(baseUrl: string, reference: string): string | null;
