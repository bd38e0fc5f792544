// What an answer said when the target refused the kit's request, in the target's own words: the
// status, the Error body's code and message, and Retry-After. A run that cannot judge because of a
// refusal says this, never a guess at the cause.
import { headerValue } from '../spec/rules/fields.js';
import { isRefusalStatus } from '../spec/rules/snapshot.js';
import type { Exchange } from './exchange.ts';

/** The Error body's `code: message`, else what the body was. */
export function errorOf(ex: Exchange): string {
  try {
    const body = JSON.parse(ex.response?.body ?? '') as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string') return `${body.code}${typeof body.message === 'string' ? `: ${body.message}` : ''}`;
  } catch {
    // not an Error body
  }
  const type = ex.response?.headers['content-type'];
  return type ? `a ${type.split(';')[0]} body` : 'no body';
}

/** The Error body's code, when it has one. */
export function errorCode(ex: Exchange): string | undefined {
  try {
    const code = (JSON.parse(ex.response?.body ?? '') as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** "GET <url> answered 429 (key_banned: …), Retry-After 402": the answer as the target gave it. */
export function answered(ex: Exchange): string {
  const res = ex.response;
  if (!res) return `${ex.request.method} ${ex.request.url} got no answer (${ex.error ?? 'none'})`;
  const retry = headerValue(res.headers, 'Retry-After');
  return `${ex.request.method} ${ex.request.url} answered ${res.status} (${errorOf(ex)})${retry === undefined ? '' : `, Retry-After ${retry}`}`;
}

/**
 * Whether the target refused the request itself rather than answered it: 401 (the credentials), or
 * a refusal of the limiter (429, or 403 as some servers answer during a ban).
 */
export function isRefused(ex: Exchange): boolean {
  const status = ex.response?.status;
  return status !== undefined && (status === 401 || isRefusalStatus(status));
}

/** The first refusal among the exchanges, described; undefined when none was refused. */
export function refusalAmong(exchanges: readonly Exchange[]): string | undefined {
  const refused = exchanges.find(isRefused);
  return refused && answered(refused);
}
