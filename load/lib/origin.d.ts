/**
 * The origin of an absolute http(s) URL, its port always written (`http://127.0.0.1:80`); null for
 * anything else: a relative reference, another scheme, userinfo (`http://good@evil.test`), or a host
 * that is neither a plain name nor an address.
 * @param {string} url
 * @returns {string | null}
 */
export function originOf(url: string): string | null;
/**
 * `reference` (any form a Location or a Link target may take) resolved against `baseUrl`, when on
 * its origin; null otherwise or when it cannot be read for certain. Only what this returns may be
 * requested with the key.
 * @param {string} baseUrl
 * @param {string} reference
 * @returns {string | null}
 */
export function onOrigin(baseUrl: string, reference: string): string | null;
