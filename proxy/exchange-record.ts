// The Exchange the judge reads, built from what the forwarding thread kept of it (raw-exchange.ts):
// the request as recorded when it arrived (every key its headers carry learnt first), then its answer
// and each body's first --capture bytes once it finished. Built where the judge runs: in its worker
// from what the proxy's thread posts, or in the proxy's thread for an inline judge (and for the HAR).
import { bodyText, type Contract, type Exchange } from '../judge/index.ts';
import { flatRawHeaders } from '../lib/http-message.ts';
import { isSecretName, redactHeaders, redactUrl, secretsOf, type KnownKeys } from '../spec/rules/redact.js';
import { OperationIndex } from './operations.ts';
import { keyOf } from './request.ts';
import type { RawExchange } from './raw-exchange.ts';

/** A captured body as text; a cut one may end inside a character, which is left out rather than shown as bytes. */
export function capturedText(bytes: Buffer, truncated: boolean): string {
  if (truncated) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    } catch {
      // Not UTF-8 before the cut either: shown as bytes, below.
    }
  }
  return bodyText(bytes).text;
}

/** Headers of which Node keeps only the first value, though the proxy forwards every one (forward.ts). */
const FIRST_ONLY_SECRETS = new Set(['authorization', 'proxy-authorization']);

/**
 * The request's headers as forwarded: the raw ones flat (each name once, as Node keeps them) with every
 * value of a credentials header sent more than once joined with ", "; and every secret they carry learnt as a key.
 */
function learnForwarded(raw: readonly string[], flat: Record<string, string>, keys: KnownKeys): Record<string, string> {
  let repeated: Map<string, string[]> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    if (isSecretName(name)) for (const secret of secretsOf({ [name]: value })) keys.add(secret);
    if (!FIRST_ONLY_SECRETS.has(name)) continue;
    repeated ??= new Map();
    const values = repeated.get(name);
    if (values) values.push(value);
    else repeated.set(name, [value]);
  }
  for (const [name, values] of repeated ?? []) if (values.length > 1) flat[name] = values.join(', ');
  return flat;
}

/** A body as the forwarding thread captured it: its kept bytes, every byte it counted, and whether it ended before its end. */
export interface CapturedBody {
  bytes: Buffer;
  total: number;
  /** The answer was cut before it ended (not only past the capture). */
  cut?: boolean;
}

/** How an exchange ended, as the judge reads it: its answer, if one came, and each body as captured. */
export interface Finished {
  receivedAt: number;
  error: string | undefined;
  tlsError: boolean;
  /** 0 when no answer came. */
  status: number;
  responseRaw: readonly string[] | undefined;
  response: CapturedBody | undefined;
  /** The request body, when one came and ended. */
  request: CapturedBody | undefined;
}

/** What a RawExchange of this thread says of its end. */
export function finishedOf(raw: RawExchange): Finished {
  const req = raw.requestKept;
  const res = raw.responseBody;
  return {
    receivedAt: raw.receivedAt,
    error: raw.error,
    tlsError: raw.tlsError,
    status: raw.status,
    responseRaw: raw.responseRaw,
    response: res ? { bytes: res.bytes(), total: res.total, cut: raw.responseCut } : undefined,
    request: req ? { bytes: req.bytes(), total: req.total } : undefined,
  };
}

/**
 * Builds each Exchange as the judge reads it: numbered in arrival order, its operation found, every key
 * it carries learnt, and (for a judge in this thread) its URL and headers redacted as it arrives.
 */
export class ExchangeRecorder {
  readonly #operations: OperationIndex;
  readonly #origin: string;
  readonly #keys: KnownKeys;
  readonly #redacted: boolean;

  /** `redacted` false: the URL and headers stay as they came (a worker redacts them when it judges: recordedShown). */
  constructor(contract: Contract, origin: string, keys: KnownKeys, redacted = true) {
    this.#operations = new OperationIndex(contract);
    this.#origin = origin;
    this.#keys = keys;
    this.#redacted = redacted;
  }

  /** The exchange as its request arrived (`path` follows the origin: the target's prefix, the client's path and query), and its key. */
  arrived(seq: number, sentAt: number, method: string, path: string, raw: readonly string[]): { exchange: Exchange; key: string | undefined } {
    const url = `${this.#origin}${path}`;
    const bare = path.split('?', 1)[0]!;
    const operationId = this.#operations.of(method, bare);
    const flat = flatRawHeaders(raw);
    // Node keeps the first Authorization: its key names the request's window.
    const key = keyOf(flat.authorization);
    const forwarded = learnForwarded(raw, flat, this.#keys);
    const request = this.#redacted
      ? { method, url: redactUrl(url, this.#keys), headers: redactHeaders(forwarded, this.#keys) }
      : { method, url, headers: forwarded };
    const exchange: Exchange = {
      seq,
      // Exchange wants an operation; one outside the description is marked `outside`, which every check reads first.
      operationId: operationId ?? 'listPets',
      purpose: `${method} ${bare}`,
      request,
      sentAt,
      receivedAt: sentAt,
      ...(operationId ? {} : { outside: 'not an operation of the description' }),
    };
    return { exchange, key };
  }

  /** The exchange once it finished: its bodies as captured, its answer if one came, why it ended short. */
  finished(exchange: Exchange, f: Finished): Exchange {
    if (f.request) {
      exchange.request.body = capturedText(f.request.bytes, f.request.total > f.request.bytes.length);
      if (f.request.total > f.request.bytes.length) exchange.request.truncatedFrom = f.request.total;
    }
    exchange.receivedAt = f.receivedAt;
    if (f.responseRaw) {
      const body = f.response;
      const truncated = body !== undefined && body.total > body.bytes.length;
      exchange.response = { status: f.status, headers: flatRawHeaders(f.responseRaw), body: body ? capturedText(body.bytes, truncated) : '' };
      if (truncated || body?.cut) exchange.response.truncatedFrom = body?.total ?? 0;
    }
    if (f.error !== undefined) exchange.error = f.error;
    if (f.tlsError) exchange.tlsError = true;
    return exchange;
  }
}

/** A request recorded with `redacted` false, as the recorder would have shown it: its URL and headers redacted (in place). */
export function recordedShown(exchange: Exchange, keys: KnownKeys): Exchange {
  exchange.request.url = redactUrl(exchange.request.url, keys);
  exchange.request.headers = redactHeaders(exchange.request.headers, keys);
  return exchange;
}
