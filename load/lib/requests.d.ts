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
export function params(target: Target, name: string, tags?: Tags, expectedStatus?: number): import("k6/http").RefinedParams<"text">;
/**
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query] limit, status
 */
export function listPetsUrl(target: Target, query?: Record<string, string | number | undefined>): string;
/**
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query]
 * @param {Tags} [tags]
 * @param {number} [expectedStatus]
 */
export function listPets(target: Target, query?: Record<string, string | number | undefined>, tags?: Tags, expectedStatus?: number): http.RefinedResponse<"text">;
/**
 * @param {Target} target
 * @param {unknown} pet the NewPet to send (smoke.js also sends an invalid one on purpose)
 * @param {Tags} [tags]
 * @param {number} [expectedStatus]
 */
export function createPet(target: Target, pet: unknown, tags?: Tags, expectedStatus?: number): http.RefinedResponse<"text">;
/**
 * @param {Target} target
 * @param {number} id
 * @param {Tags} [tags]
 */
export function getPet(target: Target, id: number, tags?: Tags): http.RefinedResponse<"text">;
/**
 * The request for http.batch that lists pets, for scripts that send several at once.
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query]
 * @param {Tags} [tags]
 * @returns {import('k6/http').BatchRequest}
 */
export function listPetsBatchRequest(target: Target, query?: Record<string, string | number | undefined>, tags?: Tags): import("k6/http").BatchRequest;
/**
 * setup()'s first request: stops the run at once, with the reason, when the target is down, the
 * key is refused, or the answer is not the contract's, instead of producing minutes of errors.
 * @param {Target} target
 * @returns {import('k6/http').RefinedResponse<'text'>}
 */
export function probe(target: Target): import("k6/http").RefinedResponse<"text">;
export type Target = {
    baseUrl: string;
    apiKey: string;
};
export type Tags = Record<string, string>;
import http from 'k6/http';
