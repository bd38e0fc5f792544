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
export function params(target: Target, name: string, ask?: Ask): import("k6/http").RefinedParams<"text" | "none">;
/**
 * The URL, when it may carry the key: on BASE_URL's origin. A URL built from an answer that named
 * another origin is a fault of the script, never a request.
 * @param {Target} target
 * @param {string} url
 */
export function checkedUrl(target: Target, url: string): string;
/**
 * Says once per VU and kind that an answer was a redirect, which the scripts do not follow: the
 * answer is judged as it is (a failed check, an unexpected status).
 * @param {Target} target
 * @param {{ status: number, headers: Record<string, string> }} res
 */
export function noteRedirect(target: Target, res: {
    status: number;
    headers: Record<string, string>;
}): void;
/**
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query] limit, status
 */
export function listPetsUrl(target: Target, query?: Record<string, string | number | undefined>): string;
/**
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query]
 * @param {Ask} [ask]
 */
export function listPets(target: Target, query?: Record<string, string | number | undefined>, ask?: Ask): import("k6/http").RefinedResponse<"none" | "text">;
/**
 * @param {Target} target
 * @param {unknown} pet the NewPet to send (smoke.js also sends an invalid one on purpose)
 * @param {Ask} [ask]
 */
export function createPet(target: Target, pet: unknown, ask?: Ask): import("k6/http").RefinedResponse<"none" | "text">;
/**
 * @param {Target} target
 * @param {number} id taken from an answer (the created pet's), so it goes into the path encoded
 * @param {Ask} [ask]
 */
export function getPet(target: Target, id: number, ask?: Ask): import("k6/http").RefinedResponse<"none" | "text">;
/**
 * The request for http.batch that lists pets, for scripts that send several at once.
 * @param {Target} target
 * @param {Record<string, string | number | undefined>} [query]
 * @param {Ask} [ask]
 * @returns {import('k6/http').BatchRequest}
 */
export function listPetsBatchRequest(target: Target, query?: Record<string, string | number | undefined>, ask?: Ask): import("k6/http").BatchRequest;
/**
 * setup()'s first request: stops the run at once, with the reason, when the target is down, the
 * key is refused, or the answer is not the contract's, instead of producing minutes of errors.
 * @param {Target} target
 * @returns {Answer}
 */
export function probe(target: Target): Answer;
/**
 * the script's `k6/http`
 */
export type Http = Pick<typeof import("k6/http").default, "request" | "expectedStatuses">;
export type Target = {
    baseUrl: string;
    apiKey: string;
    http: Http;
};
export type Tags = Record<string, string>;
/**
 * how a request is sent: `tags`
 * besides its name; `expect`, a status it is meant to get although it is an error (a deliberate
 * 400 or 401), so that http_req_failed does not count it; `read`, whether its body is read (else
 * k6 discards it and `body` is null)
 */
export type Ask = {
    tags?: Tags;
    expect?: number;
    read?: boolean;
};
export type Answer = import("k6/http").RefinedResponse<"text" | "none">;
