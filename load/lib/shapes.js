// @ts-check
// Shapes of the contract's bodies, as smoke.js checks them: deliberately only the few facts the
// specification states; the conformance kit validates against spec/openapi.yaml in full.
import { PET_STATUSES } from '../../spec/rules/contract.js';

/** @type {readonly string[]} */
const STATUSES = PET_STATUSES;

/** @param {unknown} v */
function isInteger(v) {
  return typeof v === 'number' && isFinite(v) && Math.floor(v) === v;
}

/**
 * @param {unknown} value
 * @returns {boolean}
 */
export function isPet(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const pet = /** @type {Record<string, unknown>} */ (value);
  if (!isInteger(pet.id) || typeof pet.name !== 'string' || !isInteger(pet.categoryId)) return false;
  return pet.status === undefined || STATUSES.indexOf(/** @type {string} */ (pet.status)) >= 0;
}

/**
 * A bare array of pets (no wrapping object).
 * @param {unknown} value
 */
export function isPetList(value) {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!isPet(value[i])) return false;
  return true;
}

/**
 * The Error body: { code, message, status }, with status equal to the HTTP status when given.
 * @param {unknown} value
 * @param {number} [httpStatus]
 */
export function isErrorBody(value, httpStatus) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const e = /** @type {Record<string, unknown>} */ (value);
  if (typeof e.code !== 'string' || typeof e.message !== 'string' || !isInteger(e.status)) return false;
  return httpStatus === undefined || e.status === httpStatus;
}

/**
 * @param {string | null | undefined | ArrayBuffer} body
 * @returns {unknown}
 */
export function jsonBody(body) {
  if (typeof body !== 'string') return undefined;
  try {
    return JSON.parse(body);
  } catch (e) {
    return undefined;
  }
}
