// The exchange: one request and its answer (or its failure) as the judge reads it, whoever sent it (the
// conformance kit, a client behind the proxy, a k6 run). The drivers make exchanges; the judge's checks
// read them; reports show them (formatExchange, with secrets redacted).
import type { OperationId } from '../spec/contract-types.ts';
import { redactExchange } from '../spec/rules/redact.js';

export interface Clock {
  now(): number;
}

/** A body the transport stopped reading at its limit. */
export interface BodyTooLarge {
  /** The limit (--max-body), in bytes. */
  limit: number;
  /** Bytes read before the transport stopped. */
  read: number;
  /** The size Content-Length announced, if any. */
  declared?: number;
}

/** How every report names a body past --max-body (Dredd's worker, plain CommonJS, spells it too). */
export const TOO_LARGE = 'body too large to judge';

/** What a body past the limit is, in words (the reports and the ledger use it). */
export function tooLargeText(tooLarge: BodyTooLarge): string {
  const size = tooLarge.declared !== undefined ? `Content-Length ${tooLarge.declared}` : `more than ${tooLarge.read} bytes read`;
  return `${TOO_LARGE}: ${size}, past --max-body ${tooLarge.limit}; not read further`;
}

export interface ExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body as text; bytes that are not UTF-8 shown as \xNN. */
  body?: string;
  /** The body's bytes, when they are not UTF-8 text (a replay must send exactly these). */
  bytes?: Buffer;
  /** The body's full size in bytes when `body` holds only its first part (a proxy's bounded capture). */
  truncatedFrom?: number;
}

export interface ExchangeResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body's full size in bytes when `body` holds only its first part (a proxy's bounded capture). */
  truncatedFrom?: number;
  /** The kit stopped reading the body at --max-body: `body` is its first bytes, and it cannot be judged. */
  tooLarge?: BodyTooLarge;
}

export interface Exchange {
  seq: number;
  operationId: OperationId;
  /** What the kit meant to do, in words: "list with limit=1". */
  purpose: string;
  request: ExchangeRequest;
  response?: ExchangeResponse;
  /** Network failure: refused, reset, timed out, TLS. */
  error?: string;
  /** The network failure was TLS's. */
  tlsError?: boolean;
  /**
   * Why the request is outside what the description describes (another method, media type or a body
   * that is not JSON): its answer is judged only by the checks that sent it and by errors.no-server-error.
   */
  outside?: string;
  /** The generated phase that sent it (examples, coverage, fuzzing, stateful). */
  phase?: string;
  /** This answer was a 429 the kit attributed and waited out; the same request was sent again. */
  retried?: string;
  /** The request as a curl command, keys replaced by the environment variables that hold them. */
  replay?: string;
  /** A failing input that shrinking replaced by a smaller one: the smaller one is reported. */
  superseded?: boolean;
  /** The clock's time when the request left (epoch ms). */
  sentAt: number;
  /** The clock's time when the response arrived (epoch ms). */
  receivedAt: number;
  /** Real milliseconds from the request sent to the answer read whole (or its failure), whatever clock the run reads. */
  elapsedMs?: number;
  /** The connection the kit's transport first sent the request on (unknown for Dredd's requests and a proxied client's). */
  connection?: {
    /** A kept-alive connection an earlier request had used. */
    reused: boolean;
    /**
     * That connection closed before any byte of an answer, without Connection: close on the answer
     * before (RFC 9112 §9.6). An idempotent request was sent again, once, on a new connection
     * (`resent`: `response` is that answer); any other was not (RFC 9110 §9.2.2).
     */
    closedBeforeAnswer?: {
      /** The last request answered on the connection: the close came after it. */
      after?: { seq?: number; method: string; url: string };
      /** How the connection failed: ECONNRESET, EPIPE. */
      error: string;
      resent: boolean;
    };
  };
}

/** Text of a body for reports; bytes that are not UTF-8 as \xNN. */
export function bodyText(bytes: Buffer): { text: string; utf8: boolean } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), utf8: true };
  } catch {
    let text = '';
    for (const byte of bytes) text += byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
    return { text, utf8: false };
  }
}

/**
 * Why a response's body cannot be judged, or undefined when it was read whole: the kit stopped
 * reading at --max-body, or the proxy captured only its first --capture bytes. Checks of status and
 * headers alone still judge such an answer; what rests on its body is "could not judge".
 */
export function unreadReason(response: ExchangeResponse): string | undefined {
  if (response.tooLarge) return tooLargeText(response.tooLarge);
  if (response.truncatedFrom !== undefined) return `${TOO_LARGE}: a body of ${response.truncatedFrom} bytes, captured only in part (--capture)`;
  return undefined;
}

/** Each response's body as JSON, read once however many checks and validations (must, should) need it. */
const parsedBodies = new WeakMap<{ body: string }, { text: string; json: { value: unknown } | undefined }>();

/**
 * The JSON value a response's body holds, undefined when it is not JSON. Parsed once per response
 * (again only if its body text was replaced): the value is shared, so no caller may change it.
 */
export function responseJson(response: ExchangeResponse): { value: unknown } | undefined {
  // Only the first part of the body was kept: it is no JSON value of the answer.
  if (unreadReason(response) !== undefined) return undefined;
  const known = parsedBodies.get(response);
  if (known && known.text === response.body) return known.json;
  let json: { value: unknown } | undefined;
  try {
    json = { value: JSON.parse(response.body) as unknown };
  } catch {
    json = undefined;
  }
  parsedBodies.set(response, { text: response.body, json });
  return json;
}

/** The response's body as JSON (shared: see responseJson), undefined without a response or JSON. */
export function jsonBody(exchange: Exchange): unknown {
  return exchange.response ? responseJson(exchange.response)?.value : undefined;
}

/**
 * An exchange as text, the way a failed check shows it: secret-named headers, query parameters and
 * JSON members redacted (a report's known keys were replaced where the report was made).
 */
export function formatExchange(given: Exchange, maxBody = 600): string {
  const lines: string[] = [];
  const exchange = redactExchange(given);
  const { request } = exchange;
  lines.push(`> ${request.method} ${request.url}`);
  for (const [name, value] of Object.entries(request.headers)) lines.push(`> ${name}: ${value}`);
  const captured = (size: number | undefined) => (size === undefined ? '' : ` (the first part of a body of ${size} bytes)`);
  if (request.body !== undefined) lines.push(`> ${truncate(request.body, maxBody)}${captured(request.truncatedFrom)}`);
  if (exchange.error && !exchange.response) {
    lines.push(`< (no response: ${exchange.error})`);
  } else if (exchange.response) {
    lines.push(`< ${exchange.response.status}`);
    for (const [name, value] of Object.entries(exchange.response.headers)) lines.push(`< ${name}: ${value}`);
    if (exchange.response.body) lines.push(`< ${truncate(exchange.response.body, maxBody)}${captured(exchange.response.truncatedFrom)}`);
    if (exchange.response.tooLarge) lines.push(`< (${tooLargeText(exchange.response.tooLarge)})`);
    if (exchange.error) lines.push(`< (cut short: ${exchange.error})`);
  }
  return lines.join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} bytes)` : text;
}
