// The answers a client under test asks for with Prism's convention: `Prefer: code=<status>`,
// `example=<name>` and `delay=<ms>` (they combine: `Prefer: code=404, delay=2000`). Read the same way
// by the reference server (--faults) and the judging proxy (--faults). Which statuses an operation can
// be asked for is its documented responses' business (server/plugins/faults.ts); the three with an
// answer of their own everywhere are the contract's x-fault-injection codes.
import { HEADERS, INJECTABLE_CODES } from '../spec/rules/contract.js';
import { headerValue, type HeaderMap } from '../spec/rules/fields.js';

export type InjectableCode = (typeof INJECTABLE_CODES)[number];

export interface Fault {
  /** Answer with this status instead. */
  code?: number;
  /** Answer with the documented example of this name (RFC 7240 token, Prism's `example=`). */
  example?: string;
  /** Hold the answer this long first. */
  delayMs?: number;
}

export { INJECTABLE_CODES };

/** The codes whose answer is the contract's own (x-fault-injection), whatever the operation. */
export const isInjectable = (code: number | undefined): code is InjectableCode => (INJECTABLE_CODES as readonly number[]).includes(code as number);

/** An example's name as RFC 7240 lets a preference value be written: a token (quoted or not). */
const EXAMPLE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The answers a `Prefer` value asks for (RFC 7240 preferences, Prism's names). Preferences that are
 * not ours are left alone, as RFC 7240 lets a server do; a value that cannot be one is the message of
 * a 400 (a string).
 */
export function parsePrefer(header: string | undefined, maxDelayMs: number): Fault | string {
  const fault: Fault = {};
  for (const part of (header ?? '').split(',')) {
    const [name = '', value = ''] = part.split('=').map((s) => s.trim().replace(/^"|"$/g, ''));
    const preference = name.toLowerCase();
    if (preference === 'code') {
      if (!/^[1-5]\d\d$/.test(value)) return `${HEADERS.prefer}: code=${value} is not an HTTP status (100 to 599).`;
      fault.code = Number(value);
    } else if (preference === 'example') {
      if (!EXAMPLE_NAME.test(value)) return `${HEADERS.prefer}: example=${value} is not an example's name (letters, digits, "_", "-", ".").`;
      fault.example = value;
    } else if (preference === 'delay') {
      if (!/^\d+$/.test(value) || Number(value) > maxDelayMs) return `${HEADERS.prefer}: delay=${value} must be whole milliseconds from 0 to ${maxDelayMs}.`;
      fault.delayMs = Number(value);
    }
  }
  return fault;
}

/** The answers a request's headers ask for (Node's, hapi's or a plain object), whatever the casing of their names. */
export function requestedFault(headers: Readonly<Record<string, unknown>>, maxDelayMs: number): Fault | string {
  return parsePrefer(headerValue(headers as HeaderMap, HEADERS.prefer), maxDelayMs);
}
