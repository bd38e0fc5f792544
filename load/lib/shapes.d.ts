/**
 * @param {unknown} value
 * @returns {boolean}
 */
export function isPet(value: unknown): boolean;
/**
 * A bare array of pets (no wrapping object).
 * @param {unknown} value
 */
export function isPetList(value: unknown): boolean;
/**
 * The Error body: { code, message, status }, with status equal to the HTTP status when given.
 * @param {unknown} value
 * @param {number} [httpStatus]
 */
export function isErrorBody(value: unknown, httpStatus?: number): boolean;
/**
 * @param {string | null | undefined | ArrayBuffer} body
 * @returns {unknown}
 */
export function jsonBody(body: string | null | undefined | ArrayBuffer): unknown;
