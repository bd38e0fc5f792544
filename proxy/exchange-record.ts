// What the proxy keeps of one exchange: the request as recorded when it arrives (every key its headers
// carry learnt first, then redacted), and each body's first --capture bytes as they stream through.
import type { IncomingMessage } from 'node:http';
import { bodyText, type Contract, type Exchange } from '../judge/index.ts';
import { BodyCapture } from '../lib/http-message.ts';
import { isSecretName, redactHeaders, redactUrl, secretsOf, type KnownKeys } from '../spec/rules/redact.js';
import { OperationIndex } from './operations.ts';

/** A captured body as text; a cut one may end inside a character, which is left out rather than shown as bytes. */
export function capturedText(capture: BodyCapture): string {
  const bytes = capture.bytes();
  if (capture.truncated) {
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
 * The request's headers as forwarded: `flat` (Node's, each once) with every value of a credentials header
 * sent more than once, joined with ", "; and every secret they carry learnt as a key.
 */
function learnForwarded(req: IncomingMessage, flat: Record<string, string>, keys: KnownKeys): Record<string, string> {
  const raw = req.rawHeaders;
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
  let shown = flat;
  for (const [name, values] of repeated ?? []) if (values.length > 1) shown = { ...shown, [name]: values.join(', ') };
  return shown;
}

/**
 * Records each arriving request as an Exchange, numbered in arrival order, every key it carries learnt.
 * Its URL and headers are redacted here, unless `redacted` is false: a judge in a worker thread redacts
 * them there (recordedShown), off the forwarding thread.
 */
export function exchangeRecorder(contract: Contract, origin: string, keys: KnownKeys, redacted = true) {
  const operations = new OperationIndex(contract);
  let seq = 0;
  return (req: IncomingMessage, url: string, headers: Record<string, string>, sentAt: number): Exchange => {
    const path = url.slice(origin.length).split('?', 1)[0]!;
    const operationId = operations.of(req.method ?? 'GET', path);
    const forwarded = learnForwarded(req, headers, keys);
    const request = redacted
      ? { method: req.method ?? 'GET', url: redactUrl(url, keys), headers: redactHeaders(forwarded, keys) }
      : { method: req.method ?? 'GET', url, headers: forwarded };
    return {
      // Taken last: a request that could not be recorded takes no turn in the judge's order.
      seq: ++seq,
      // Exchange wants an operation; one outside the description is marked `outside`, which every check reads first.
      operationId: operationId ?? 'listPets',
      purpose: `${req.method} ${path}`,
      request,
      sentAt,
      receivedAt: sentAt,
      ...(operationId ? {} : { outside: 'not an operation of the description' }),
    };
  };
}

/** A request recorded with `redacted` false, as the recorder would have shown it: its URL and headers redacted (in place). */
export function recordedShown(exchange: Exchange, keys: KnownKeys): Exchange {
  exchange.request.url = redactUrl(exchange.request.url, keys);
  exchange.request.headers = redactHeaders(exchange.request.headers, keys);
  return exchange;
}

const NO_BODY = { ended: Promise.resolve() };

/**
 * The request body as it streams in: captured up to `captureBytes`, the capture put on the exchange
 * when it ends. A request that names no body (neither Content-Length nor Transfer-Encoding: RFC 9112
 * §6.3) has none to capture.
 */
export function captureRequestBody(req: IncomingMessage, exchange: Exchange, captureBytes: number): { ended: Promise<void> } {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return NO_BODY;
  const capture = new BodyCapture(captureBytes);
  req.on('data', (chunk: Buffer) => capture.add(chunk));
  // Held until it is forwarded (pipe resumes it) or dropped (resume): flowing now, the body would
  // stream into the capture alone while Prefer: delay holds the request, and never reach the target.
  req.pause();
  const ended = new Promise<void>((resolve) => {
    let finished = false;
    // 'close' follows 'end' on every request that ends: the capture is decoded once.
    const finish = () => {
      if (finished) return;
      finished = true;
      if (capture.total > 0) {
        exchange.request.body = capturedText(capture);
        if (capture.truncated) exchange.request.truncatedFrom = capture.total;
      }
      resolve();
    };
    req.once('end', finish);
    req.once('close', finish);
  });
  return { ended };
}
