// A request as one curl command that sends it again, exact body bytes included. Keys never appear:
// wherever a known key stands the command names the environment variable that holds it, so the
// replay still sends the same request.
import { isSecretName, KnownKeys, REDACTED, redactBody, redactText, redactUrl } from '../spec/rules/redact.js';

/** A request as an exchange keeps it (http.ts's ExchangeRequest). */
export interface ReplayedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The body's bytes when they are not UTF-8 text. */
  bytes?: Buffer;
}

/** Environment variable name → its value, for the keys a replay must not print. */
export type Secrets = Readonly<Record<string, string | undefined>>;

interface Secret {
  name: string;
  value: string;
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

/** The first secret in `text` from `from` on (the longer one where two start together). */
function nextSecret(text: string, secrets: readonly Secret[], from: number): { at: number; secret: Secret } | undefined {
  let found: { at: number; secret: Secret } | undefined;
  for (const secret of secrets) {
    const at = text.indexOf(secret.value, from);
    if (at >= 0 && (!found || at < found.at || (at === found.at && secret.value.length > found.secret.value.length))) found = { at, secret };
  }
  return found;
}

/** `text` as one shell word: each secret as "$NAME", the rest quoted, with other spellings of a key labelled. */
function word(text: string, secrets: readonly Secret[], keys: KnownKeys): string {
  const parts: string[] = [];
  let from = 0;
  for (let next = nextSecret(text, secrets, from); next; next = nextSecret(text, secrets, from)) {
    if (next.at > from) parts.push(quote(redactText(text.slice(from, next.at), keys)));
    parts.push(`"$${next.secret.name}"`);
    from = next.at + next.secret.value.length;
  }
  if (from < text.length || parts.length === 0) parts.push(quote(redactText(text.slice(from), keys)));
  return parts.join('');
}

function authorization(value: string, secrets: readonly Secret[], keys: KnownKeys): string {
  for (const { name, value: secret } of secrets) {
    if (value === `Bearer ${secret}`) return `"authorization: Bearer $${name}"`;
    if (value === `Basic ${Buffer.from(`${secret}:`).toString('base64')}`) return `"authorization: Basic $(printf '%s:' "$${name}" | base64)"`;
  }
  return word(`authorization: ${value}`, secrets, keys);
}

export function curlLine(request: ReplayedRequest, given: Secrets = {}): string {
  const secrets = Object.entries(given).flatMap(([name, value]) => (value ? [{ name, value }] : []));
  const keys = new KnownKeys(secrets.map((s) => s.value));
  const url = word(redactUrl(request.url), secrets, keys);
  // `-X HEAD` makes curl wait for the body Content-Length announces, which a HEAD answer never has (exit 18).
  const parts = request.method === 'HEAD' ? ['curl', '-I', url] : ['curl', '-i', '-X', request.method, url];
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'authorization') parts.push('-H', authorization(value, secrets, keys));
    else if (isSecretName(name) && !nextSecret(value, secrets, 0)) parts.push('-H', quote(`${name}: ${REDACTED}`));
    else parts.push('-H', word(`${name}: ${value}`, secrets, keys));
  }
  if (request.bytes) parts.push('--data-binary', redactText(bytesQuoted(request.bytes), keys));
  else if (request.body !== undefined) parts.push('--data-binary', word(redactBody(request.body, undefined, request.headers['content-type']), secrets, keys));
  return parts.join(' ');
}
