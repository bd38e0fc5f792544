// The faults a client under test asks for with Prism's convention, `Prefer: code=<status>` or
// `delay=<ms>` (they combine: `Prefer: code=503, delay=2000`). Read the same way by the reference
// server (--faults) and the judging proxy (--faults); the statuses are the contract's x-fault-injection.
import { HEADERS, INJECTABLE_CODES } from '../spec/rules/contract.js';
import { headerValue, type HeaderMap } from '../spec/rules/fields.js';

export type InjectableCode = (typeof INJECTABLE_CODES)[number];

export interface Fault {
  /** Answer with this status instead. */
  code?: InjectableCode;
  /** Hold the answer this long first. */
  delayMs?: number;
}

export { INJECTABLE_CODES };

const injectable = (code: number): code is InjectableCode => (INJECTABLE_CODES as readonly number[]).includes(code);

/**
 * The faults a `Prefer` value asks for (RFC 7240 preferences, Prism's names). Preferences that are
 * not faults are left alone, as RFC 7240 lets a server do; an out-of-range value is the message of
 * a 400 (a string).
 */
export function parsePrefer(header: string | undefined, maxDelayMs: number): Fault | string {
  const fault: Fault = {};
  for (const part of (header ?? '').split(',')) {
    const [name = '', value = ''] = part.split('=').map((s) => s.trim().replace(/^"|"$/g, ''));
    if (name.toLowerCase() === 'code') {
      const code = Number(value);
      if (!injectable(code)) return `${HEADERS.prefer}: code=${value} is not a fault this server injects (it injects ${INJECTABLE_CODES.join(', ')}).`;
      fault.code = code;
    } else if (name.toLowerCase() === 'delay') {
      if (!/^\d+$/.test(value) || Number(value) > maxDelayMs) return `${HEADERS.prefer}: delay=${value} must be whole milliseconds from 0 to ${maxDelayMs}.`;
      fault.delayMs = Number(value);
    }
  }
  return fault;
}

/** The faults a request's headers ask for (Node's, hapi's or a plain object), whatever the casing of their names. */
export function requestedFault(headers: Readonly<Record<string, unknown>>, maxDelayMs: number): Fault | string {
  return parsePrefer(headerValue(headers as HeaderMap, HEADERS.prefer), maxDelayMs);
}
