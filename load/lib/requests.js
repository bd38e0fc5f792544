// @ts-check
// Request builders shared by every script: the base address and key come from the config, every
// request carries a `name` tag (the operationId) so k6 groups URLs with ids and queries together.

import http from 'k6/http';
import { headerValue } from '../../spec/rules/fields.js';

/**
 * @typedef {{ baseUrl: string, apiKey: string }} Target
 * @typedef {Record<string, string>} Tags
 */

/**
 * @param {Target} target
 * @param {string} name the operationId, used as the request's `name` tag
 * @param {Tags} [tags]
 * @param {number} [expectedStatus] a status this request is meant to get although it is an error
 *   (a deliberate 400 or 401), so that http_req_failed does not count it
 * @returns {import('k6/http').RefinedParams<'text'>}
 */
export function params(target, name, tags, expectedStatus) {
  const all = Object.assign({ name: name }, tags || {});
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (target.apiKey !== '') headers.Authorization = 'Bearer ' + target.apiKey;
  /** @type {import('k6/http').RefinedParams<'text'>} */
  const p = { headers: headers, tags: all };
  if (expectedStatus !== undefined) p.responseCallback = http.expectedStatuses(expectedStatus);
  return p;
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
 * @param {Tags} [tags]
 * @param {number} [expectedStatus]
 */
export function listPets(target, query, tags, expectedStatus) {
  return http.get(listPetsUrl(target, query), params(target, 'listPets', tags, expectedStatus));
}

/**
 * @param {Target} target
 * @param {unknown} pet the NewPet to send (smoke.js also sends an invalid one on purpose)
 * @param {Tags} [tags]
 * @param {number} [expectedStatus]
 */
export function createPet(target, pet, tags, expectedStatus) {
  const p = params(target, 'createPet', tags, expectedStatus);
  /** @type {Record<string, string>} */ (p.headers)['Content-Type'] = 'application/json';
  return http.post(target.baseUrl + '/pets', JSON.stringify(pet), p);
}

/**
 * @param {Target} target
 * @param {number} id
 * @param {Tags} [tags]
 */
export function getPet(target, id, tags) {
  return http.get(target.baseUrl + '/pets/' + encodeURIComponent(String(id)), params(target, 'getPet', tags));
}

/**
 * The request for http.batch that lists pets, for scripts that send several at once.
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query]
 * @param {Tags} [tags]
 * @returns {import('k6/http').BatchRequest}
 */
export function listPetsBatchRequest(target, query, tags) {
  return { method: 'GET', url: listPetsUrl(target, query), params: params(target, 'listPets', tags) };
}

/**
 * setup()'s first request: stops the run at once, with the reason, when the target is down, the
 * key is refused, or the answer is not the contract's, instead of producing minutes of errors.
 * @param {Target} target
 * @returns {import('k6/http').RefinedResponse<'text'>}
 */
export function probe(target) {
  const res = http.get(listPetsUrl(target, { limit: 1 }), params(target, 'listPets', { phase: 'setup' }));
  if (res.status === 0) {
    throw new Error('target ' + target.baseUrl + ' is not answering (' + (res.error || 'no response') + '); start it or set BASE_URL');
  }
  if (res.status === 401) throw new Error('target ' + target.baseUrl + ' refused API_KEY (401); set API_KEY to a key it knows');
  if (res.status !== 200 && res.status !== 429) {
    throw new Error('target ' + target.baseUrl + ' answered GET /pets?limit=1 with ' + res.status + '; is BASE_URL the address ending in /v1?');
  }
  if (headerValue(res.headers, 'X-RateLimit-Limit') === undefined) {
    console.warn('the target sends no X-RateLimit-Limit header; the rate-limit checks will fail');
  }
  return res;
}
