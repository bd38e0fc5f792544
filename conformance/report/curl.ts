// A request as one shell command that sends it again: curl with the method, URL, headers and the
// exact body bytes. Keys never appear: an Authorization carrying a known key names the environment
// variable that holds it, and a header named like a secret is replaced by a placeholder.
import type { ExchangeRequest } from '../http.ts';

/** Environment variable name → its value, for the keys a replay must not print. */
export type Secrets = Readonly<Record<string, string | undefined>>;

const SECRET_HEADER = /token|key|secret|cookie|authorization|password/i;

/** Whether a header's value is redacted in reports (Authorization is redacted its own way). */
export function isSecretHeader(name: string): boolean {
  return name.toLowerCase() !== 'authorization' && SECRET_HEADER.test(name);
}

function quote(text: string): string {
  // Printable text goes in single quotes; anything else in ANSI-C quoting with escapes.
  if (!/[\x00-\x1f\x7f]/.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  return `$'${text.replace(/[\\']/g, (c) => `\\${c}`).replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
}

function bytesQuoted(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) {
    if (byte >= 0x20 && byte < 0x7f) out += byte === 0x27 || byte === 0x5c ? `\\${String.fromCharCode(byte)}` : String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `$'${out}'`;
}

function authorization(value: string, secrets: Secrets): string {
  for (const [name, secret] of Object.entries(secrets)) {
    if (!secret) continue;
    if (value === `Bearer ${secret}`) return `"authorization: Bearer $${name}"`;
    if (value === `Basic ${Buffer.from(`${secret}:`).toString('base64')}`) return `"authorization: Basic $(printf '%s:' "$${name}" | base64)"`;
  }
  return quote(`authorization: ${value}`);
}

export function curlLine(request: ExchangeRequest, secrets: Secrets = {}): string {
  const parts = ['curl', '-i', '-X', request.method, quote(request.url)];
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'authorization') parts.push('-H', authorization(value, secrets));
    else parts.push('-H', quote(`${name}: ${isSecretHeader(name) ? '<redacted>' : value}`));
  }
  if (request.bytes) parts.push('--data-binary', bytesQuoted(request.bytes));
  else if (request.body !== undefined) parts.push('--data-binary', quote(request.body));
  return parts.join(' ');
}
