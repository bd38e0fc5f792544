// Keys out of what the judge reports: an exchange as a report keeps it, and check results with every
// message, note, reason and exchange redacted. The rules are spec/rules/redact.js's; every driver's
// report (conform's, the proxy's) applies them here, once, where the report is made.
import { KnownKeys, redactExchange, redactText } from '../spec/rules/redact.js';
import type { Exchange } from './exchange.ts';
import type { CheckResult } from './ledger.ts';

/** Bytes of a body that is not UTF-8, the keys in them replaced as in its text (read byte for byte). */
function redactBytes(bytes: Buffer, keys: KnownKeys): Buffer {
  const asBytes = new KnownKeys(keys.keys().map((key) => Buffer.from(key, 'utf8').toString('latin1')));
  const text = bytes.toString('latin1');
  const redacted = redactText(text, asBytes);
  if (redacted === text) return bytes;
  // A label's characters beyond Latin-1 (…) go back as their UTF-8 bytes.
  return Buffer.from(
    redacted.replace(/[^\x00-\xff]/g, (c) => Buffer.from(c, 'utf8').toString('latin1')),
    'latin1',
  );
}

/** An exchange as a report keeps it: spec/rules/redact.js's redactExchange, and its raw bytes too. */
export function redactedExchange(exchange: Exchange, keys: KnownKeys): Exchange {
  const shown = redactExchange(exchange, keys);
  if (exchange.request.bytes) shown.request.bytes = redactBytes(exchange.request.bytes, keys);
  for (const field of ['retried', 'outside'] as const) {
    const text = exchange[field];
    if (text !== undefined) shown[field] = redactText(text, keys);
  }
  return shown;
}

/** Check results with every message, note, reason and exchange redacted (the proxy's too). */
export function redactResults(results: readonly CheckResult[], keys: KnownKeys): CheckResult[] {
  // One exchange is often the evidence of several failures: redacted once.
  const done = new Map<Exchange, Exchange>();
  const exchange = (ex: Exchange) => done.get(ex) ?? done.set(ex, redactedExchange(ex, keys)).get(ex)!;
  const text = (t: string) => redactText(t, keys);
  return results.map((r) => ({
    ...r,
    failures: r.failures.map((f) => ({
      ...f,
      message: text(f.message),
      evidence: f.evidence.map(exchange),
      ...(f.sameCause ? { sameCause: f.sameCause.map(text) } : {}),
    })),
    notes: r.notes.map(text),
    ...(r.reason !== undefined ? { reason: text(r.reason) } : {}),
  }));
}
