// What a check reads of an exchange on its own, without the run's context, and the id it asks for
// when no pet may exist. Kept apart from support.ts (which needs the area's context) so that the
// rate-limit verdict and the Dredd run, which the area's context names, can read them too.
import type { Exchange } from './exchange.ts';

/** An id no implementation has handed out: the largest safe integer, well inside int64. */
export const UNKNOWN_PET_ID = Number.MAX_SAFE_INTEGER;

export function header(exchange: Exchange, name: string): string | undefined {
  return exchange.response?.headers[name.toLowerCase()];
}

export function status(exchange: Exchange): number | undefined {
  return exchange.response?.status;
}

export function describeStatus(exchange: Exchange): string {
  if (exchange.error) return `no response (${exchange.error})`;
  return `status ${exchange.response?.status}`;
}

export function isPetArray(value: unknown): value is Array<Record<string, unknown>> {
  return Array.isArray(value) && value.every((v) => v !== null && typeof v === 'object');
}
