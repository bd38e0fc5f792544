// @ts-check
// Request builders shared by every script. Each request carries a `name` tag (the operationId) so
// k6 groups URLs with ids together; the key goes only to BASE_URL's origin, and a body is kept only
// when asked (`read`): k6 has no cap on how much of a body it buffers. k6's http module comes with
// the target (`target.http`, the script's import), so this module imports nothing of k6 and is
// bundled into bundle.cjs with the rest: k6 compiles it without Babel.

import { HEADERS } from '../../spec/rules/contract.js';
import { headerValue } from '../../spec/rules/fields.js';
import { onOrigin } from './origin.js';

/**
 * @typedef {Pick<typeof import('k6/http').default, 'request' | 'expectedStatuses'>} Http the script's `k6/http`
 * @typedef {{ baseUrl: string, apiKey: string, http: Http }} Target
 * @typedef {Record<string, string>} Tags
 * @typedef {{ tags?: Tags, expect?: number, read?: boolean }} Ask how a request is sent: `tags`
 *   besides its name; `expect`, a status it is meant to get although it is an error (a deliberate
 *   400 or 401), so that http_req_failed does not count it; `read`, whether its body is read (else
 *   k6 discards it and `body` is null)
 * @typedef {import('k6/http').RefinedResponse<'text' | 'none'>} Answer
 */

/**
 * @param {Target} target
 * @param {string} name the operationId, used as the request's `name` tag
 * @param {Ask} [ask]
 * @returns {import('k6/http').RefinedParams<'text' | 'none'>}
 */
export function params(target, name, ask) {
  const a = ask || {};
  const all = Object.assign({ name: name }, a.tags || {});
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (target.apiKey !== '') headers.Authorization = 'Bearer ' + target.apiKey;
  /** @type {import('k6/http').RefinedParams<'text' | 'none'>} */
  const p = { headers: headers, tags: all, redirects: 0, responseType: a.read ? 'text' : 'none' };
  if (a.expect !== undefined) p.responseCallback = target.http.expectedStatuses(a.expect);
  return p;
}

/**
 * The URL, when it may carry the key: on BASE_URL's origin. A URL built from an answer that named
 * another origin is a fault of the script, never a request.
 * @param {Target} target
 * @param {string} url
 */
export function checkedUrl(target, url) {
  const resolved = onOrigin(target.baseUrl, url);
  if (resolved === null) throw new Error('refused to send API_KEY to ' + url + ': not on the origin of BASE_URL ' + target.baseUrl);
  return resolved;
}

/** What was said of each target's redirects: once per kind (a VU's targets live as long as it). */
/** @type {WeakMap<Target, Record<string, boolean>>} */
const told = new WeakMap();

/**
 * Says once per VU and kind that an answer was a redirect, which the scripts do not follow: the
 * answer is judged as it is (a failed check, an unexpected status).
 * @param {Target} target
 * @param {{ status: number, headers: Record<string, string> }} res
 */
export function noteRedirect(target, res) {
  if (res.status < 300 || res.status > 399) return;
  const location = headerValue(res.headers, HEADERS.location);
  if (location === undefined) return;
  const foreign = onOrigin(target.baseUrl, location) === null;
  const kind = res.status + (foreign ? ' elsewhere' : ' here');
  const said = told.get(target) || {};
  told.set(target, said);
  if (said[kind]) return;
  said[kind] = true;
  console.warn(
    'the target answered ' +
      res.status +
      ' with Location ' +
      location +
      (foreign ? ', another origin than BASE_URL: not followed, API_KEY goes only to ' + target.baseUrl : ': not followed (maxRedirects: 0)') +
      '; judged as the answer it is'
  );
}

/**
 * @param {Target} target
 * @param {string} method
 * @param {string} url
 * @param {string | null} body
 * @param {import('k6/http').RefinedParams<'text' | 'none'>} p
 * @returns {Answer}
 */
function send(target, method, url, body, p) {
  const res = target.http.request(method, checkedUrl(target, url), body, p);
  noteRedirect(target, res);
  return res;
}

/**
 * @param {Record<string, string | number | undefined>} [query]
 */
function queryString(query) {
  if (!query) return '';
  const parts = [];
  const keys = Object.keys(query);
  for (let i = 0; i < keys.length; i++) {
    const v = query[keys[i]];
    if (v !== undefined) parts.push(encodeURIComponent(keys[i]) + '=' + encodeURIComponent(String(v)));
  }
  return parts.length === 0 ? '' : '?' + parts.join('&');
}

/**
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query] limit, status
 */
export function listPetsUrl(target, query) {
  return target.baseUrl + '/pets' + queryString(query);
}

/**
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query]
 * @param {Ask} [ask]
 */
export function listPets(target, query, ask) {
  return send(target, 'GET', listPetsUrl(target, query), null, params(target, 'listPets', ask));
}

/**
 * @param {Target} target
 * @param {unknown} pet the NewPet to send (smoke.js also sends an invalid one on purpose)
 * @param {Ask} [ask]
 */
export function createPet(target, pet, ask) {
  const p = params(target, 'createPet', ask);
  /** @type {Record<string, string>} */ (p.headers)['Content-Type'] = 'application/json';
  return send(target, 'POST', target.baseUrl + '/pets', JSON.stringify(pet), p);
}

/**
 * @param {Target} target
 * @param {number} id taken from an answer (the created pet's), so it goes into the path encoded
 * @param {Ask} [ask]
 */
export function getPet(target, id, ask) {
  return send(target, 'GET', target.baseUrl + '/pets/' + encodeURIComponent(String(id)), null, params(target, 'getPet', ask));
}

/**
 * The request for http.batch that lists pets, for scripts that send several at once.
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query]
 * @param {Ask} [ask]
 * @returns {import('k6/http').BatchRequest}
 */
export function listPetsBatchRequest(target, query, ask) {
  return { method: 'GET', url: checkedUrl(target, listPetsUrl(target, query)), params: params(target, 'listPets', ask) };
}

/**
 * setup()'s first request: stops the run at once, with the reason, when the target is down, the
 * key is refused, or the answer is not the contract's, instead of producing minutes of errors.
 * @param {Target} target
 * @returns {Answer}
 */
export function probe(target) {
  const res = send(target, 'GET', listPetsUrl(target, { limit: 1 }), null, params(target, 'listPets', { tags: { phase: 'setup' } }));
  if (res.status === 0) {
    throw new Error('target ' + target.baseUrl + ' is not answering (' + (res.error || 'no response') + '); start it or set BASE_URL');
  }
  if (res.status === 401) throw new Error('target ' + target.baseUrl + ' refused API_KEY (401); set API_KEY to a key it knows');
  if (res.status !== 200 && res.status !== 429) {
    throw new Error('target ' + target.baseUrl + ' answered GET /pets?limit=1 with ' + res.status + '; is BASE_URL the address ending in /v1?');
  }
  if (headerValue(res.headers, HEADERS.rateLimitLimit) === undefined) {
    console.warn('the target sends no X-RateLimit-Limit header; the rate-limit checks will fail');
  }
  return res;
}
