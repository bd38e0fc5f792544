// @ts-check
// Keys and secrets out of everything the kit keeps or shows: one rule for secret names, one label for
// a key, every known key replaced wherever it appears. Each function is idempotent (what it redacted
// passes through again unchanged). Plain ES2015 on spec/rules only: k6 loads it by relative path.
import { fold, KnownKeys } from './known-keys.js';

export { KnownKeys };

/** What stands for the value of a header, query parameter or JSON field named like a secret. */
export const REDACTED = '<redacted>';
/** What stands for the password of a URL (postgres://user:***@host). */
export const HIDDEN_PASSWORD = '***';

const SECRET_WORDS = 'token|key|secret|passw|auth|cookie|session|credential';
// One rule for header, query and JSON field names. A challenge (WWW-Authenticate, Proxy-Authenticate)
// holds no secret and is what a 401 is judged by.
const SECRET_NAME = new RegExp('^(?!(?:www|proxy)-authenticate$).*(?:' + SECRET_WORDS + ')', 'i');
const MAY_NAME_SECRET = new RegExp(SECRET_WORDS, 'i');

/**
 * Whether a header, query parameter or JSON field of this name holds a secret: Authorization,
 * X-Auth, Proxy-Authorization, Cookie, api_key, access_token, password, session ids, credentials.
 * @param {string} name
 * @returns {boolean}
 */
export function isSecretName(name) {
  return SECRET_NAME.test(name);
}

/** Keys at least this long show their first SHOWN characters; a shorter one shows none of its own. */
const SHOWN_FROM = 12;
const SHOWN = 4;

/**
 * A key as every report, log and page names it: `test…(13 chars)` for a key of 12 or more characters
 * (its first four and its length), `…(6 chars)` for a shorter one, which would be too easy to guess
 * from any of its characters.
 * @param {string} key
 * @returns {string}
 */
export function keyLabel(key) {
  const chars = Array.from(key);
  const n = chars.length;
  return (n >= SHOWN_FROM ? chars.slice(0, SHOWN).join('') : '') + '\u2026(' + n + (n === 1 ? ' char)' : ' chars)');
}

/**
 * The key's label, with ` #2`, ` #3`... when another key already holds it: two keys of the same length
 * and first characters read alike, and a page that lists keys by label must tell them apart.
 * @param {string} key
 * @param {(label: string) => boolean} taken whether another key holds this label
 * @returns {string}
 */
export function distinctKeyLabel(key, taken) {
  const label = keyLabel(key);
  if (!taken(label)) return label;
  for (let n = 2; ; n++) if (!taken(label + ' #' + n)) return label + ' #' + n;
}

/**
 * Each key's label, distinct from the others' (distinctKeyLabel), in the order given.
 * @param {ReadonlyArray<string>} keys
 * @returns {string[]}
 */
export function keyLabels(keys) {
  /** @type {Set<string>} */
  const taken = new Set();
  return keys.map((key) => {
    const label = distinctKeyLabel(key, (l) => taken.has(l));
    taken.add(label);
    return label;
  });
}

// A label (or a placeholder) already written: text that is never read as a key, so that redacting
// twice changes nothing (a one-character key "3" must not eat the "3" of "…(13 chars)"). A label's
// first four characters are protected only when the label says they are there (12 chars or more).
const WRITTEN = /(?:[^\s\u2026]{4}(?=\u2026\((?:1[2-9]|[2-9]\d|\d{3,}) chars\)))?\u2026\(\d+ chars?\)(?: #\d+)?|<redacted>/g;
const WHOLE_LABEL = /^(?:[^\s\u2026]{4})?\u2026\(\d+ chars?\)(?: #\d+)?$/;
/** @typedef {KnownKeys | ReadonlyArray<string | undefined | null> | undefined | null} Keys the keys to redact: KnownKeys, or a list of them */

const NO_KEYS = new KnownKeys();

/** @param {Keys} keys @returns {KnownKeys} */
function ringOf(keys) {
  if (keys instanceof KnownKeys) return keys;
  return keys && keys.length > 0 ? new KnownKeys(keys) : NO_KEYS;
}

/**
 * `text` with every occurrence of every known key replaced by its label, the longest key first. A key
 * of fewer than 8 characters is replaced only where it stands alone (no letter, digit or `_` glued to
 * it), so that a short key does not rewrite every word it is a part of; a longer one wherever it is.
 * @param {string} text
 * @param {Keys} keys
 * @returns {string}
 */
export function redactText(text, keys) {
  const ring = ringOf(keys);
  if (!text || ring.size === 0) return text;
  const folded = fold(text);
  const starts = ring._starts(folded);
  if (starts && starts.length === 0) return text;
  /** @type {number[]} where each label or placeholder already written starts and ends, in turn */
  const written = [];
  WRITTEN.lastIndex = 0;
  for (let m = WRITTEN.exec(text); m !== null; m = WRITTEN.exec(text)) written.push(m.index, m.index + m[0].length);
  written.push(Infinity, Infinity);
  let out = '';
  let last = 0;
  let next = 0;
  let start = 0;
  for (let i = 0; i < text.length;) {
    if (starts) {
      while (start < starts.length && Number(starts[start]) < i) start++;
      if (start === starts.length) break;
      i = Number(starts[start]);
    }
    while (Number(written[next + 1]) <= i) next += 2;
    if (Number(written[next]) <= i) {
      i = Number(written[next + 1]);
      continue;
    }
    const length = ring._match(folded, i);
    if (length === 0) {
      i++;
      continue;
    }
    out += text.slice(last, i) + keyLabel(text.slice(i, i + length));
    i += length;
    last = i;
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * A body cut short (a proxy's capture, a kept body's first part, marked by a final …) may end inside
 * a key: a first part of one, 4 characters or more, is replaced by its label too.
 * @param {string} body already redacted
 * @param {KnownKeys} ring
 */
function redactCutEnd(body, ring) {
  const end = body.charAt(body.length - 1) === '\u2026' ? body.length - 1 : body.length;
  const cut = ring._cut(fold(body), end);
  return cut === end ? body : body.slice(0, cut) + keyLabel(body.slice(cut, end)) + body.slice(end);
}

/**
 * @param {string} raw a part of a URL, percent-encoded
 * @param {KnownKeys} ring
 * @param {boolean} plusIsSpace in a query, `+` is a space
 */
function redactComponent(raw, ring, plusIsSpace) {
  if (ring.size === 0 || raw === '') return raw;
  let decoded;
  try {
    decoded = decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, ' ') : raw);
  } catch (e) {
    return redactText(raw, ring);
  }
  const redacted = redactText(decoded, ring);
  if (redacted !== decoded) return encodeURIComponent(redacted);
  // A key that holds % or + is found only as it was written.
  return raw === decoded ? raw : redactText(raw, ring);
}

/** @param {string} query without its `?` @param {KnownKeys} ring */
function redactQuery(query, ring) {
  if (ring.size === 0 && !MAY_NAME_SECRET.test(query)) return query;
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decodedName = name;
      try {
        decodedName = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch (e) {
        // Not percent-encoded as it should be: judged as it is written.
      }
      if (eq < 0) return redactComponent(name, ring, true);
      const value = isSecretName(decodedName) ? encodeURIComponent(REDACTED) : redactComponent(pair.slice(eq + 1), ring, true);
      return redactComponent(name, ring, true) + '=' + value;
    })
    .join('&');
}

/**
 * A URL without its secrets: the password of its user information (***), the values of query
 * parameters named like a secret (<redacted>, percent-encoded) and every known key anywhere in it
 * (its label, percent-encoded), `?k=<key>` included. Text that is no URL is redacted as text.
 * @param {string} url
 * @param {Keys} [keys]
 * @returns {string}
 */
export function redactUrl(url, keys) {
  const ring = ringOf(keys);
  if (ring.size === 0 && url.indexOf('?') < 0 && url.indexOf('#') < 0 && url.indexOf('@') < 0) return url;
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt < 0 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  let head = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const user = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\/?#]*)@/.exec(head);
  if (user) {
    const info = String(user[2]);
    const colon = info.indexOf(':');
    const userinfo = colon < 0 ? redactComponent(info, ring, false) : redactComponent(info.slice(0, colon), ring, false) + ':' + HIDDEN_PASSWORD;
    head = user[1] + userinfo + '@' + head.slice(user[0].length);
  }
  head = head
    .split('/')
    .map((part) => redactComponent(part, ring, false))
    .join('/');
  const query = queryAt < 0 ? '' : '?' + redactQuery(beforeHash.slice(queryAt + 1), ring);
  const fragment = hashAt < 0 ? '' : '#' + redactQuery(url.slice(hashAt + 1), ring);
  return head + query + fragment;
}

/** Authorization schemes (the IANA registry's usual ones): a value that is only one of these carries no key. */
const SCHEME = /^(?:basic|bearer|digest|dpop|negotiate|token)$/i;

/** @param {string} value one Authorization value: the scheme is kept, the credentials labelled */
function redactOneCredential(value) {
  if (SCHEME.test(value) || value === REDACTED || WHOLE_LABEL.test(value)) return value;
  const m = /^(\S+)\s+([\s\S]*)$/.exec(value);
  const credentials = m ? String(m[2]) : value;
  const shown = credentials === REDACTED || WHOLE_LABEL.test(credentials) ? credentials : keyLabel(credentials);
  return m ? m[1] + ' ' + shown : shown;
}

// Where a header sent twice was joined (`Bearer a, Bearer b`): a comma before the next scheme and its credentials.
const NEXT_CREDENTIALS = /,\s*(?=(?:basic|bearer|digest|dpop|negotiate|token)\s+\S)/i;

/** @param {string} value an Authorization value, or several joined with ", " as forwarded: each labelled */
function redactCredentials(value) {
  return value.split(NEXT_CREDENTIALS).map(redactOneCredential).join(', ');
}

/**
 * A header's value as reports show it: Authorization (and Proxy-Authorization) keep their scheme and
 * show the key's label; any other header named like a secret shows <redacted>; any other header has
 * every known key in its value replaced by the key's label.
 * @param {string} name
 * @param {string} value
 * @param {Keys} [keys]
 * @returns {string}
 */
export function redactHeader(name, value, keys) {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') return redactCredentials(value);
  if (isSecretName(name)) return REDACTED;
  return redactText(value, keys);
}

/**
 * Every header of a message as reports show it (redactHeader), in a new object.
 * @param {Record<string, string>} headers
 * @param {Keys} [keys]
 * @returns {Record<string, string>}
 */
export function redactHeaders(headers, keys) {
  const ring = ringOf(keys);
  /** @type {Record<string, string>} */
  const shown = {};
  for (const name of Object.keys(headers)) shown[name] = redactHeader(name, String(headers[name]), ring);
  return shown;
}

// Session cookies whose names say so only in their own way: PHPSESSID, connect.sid, sid.
const SESSION_COOKIE = /sess|(?:^|[._-])sid$/i;

/**
 * The values of a Cookie header's cookies named like a secret (or like a session id) (`apikey=<key>; theme=dark` gives the
 * key alone); a cookie without a name is taken whole. Quotes around a value are not part of it.
 * @param {string} header
 * @returns {string[]}
 */
function secretCookies(header) {
  /** @type {string[]} */
  const found = [];
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? '' : pair.slice(0, eq).trim();
    const raw = (eq < 0 ? pair : pair.slice(eq + 1)).trim();
    const value = raw.length >= 2 && raw.charAt(0) === '"' && raw.charAt(raw.length - 1) === '"' ? raw.slice(1, -1) : raw;
    if (value !== '' && (eq < 0 || isSecretName(name) || SESSION_COOKIE.test(name))) found.push(value);
  }
  return found;
}

/**
 * The secrets a set of headers carries: the credentials of Authorization and Proxy-Authorization
 * (after the scheme; each of several joined with ", "), the values of a Cookie's cookies named like a
 * secret, and the value of every other header named like a secret. What a proxy learns from a
 * request, and what a --header option makes known.
 * @param {Record<string, string | undefined>} headers
 * @returns {string[]}
 */
export function secretsOf(headers) {
  /** @type {string[]} */
  const found = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined || !isSecretName(name)) continue;
    const lower = name.toLowerCase();
    if (lower === 'cookie') {
      found.push.apply(found, secretCookies(value));
      continue;
    }
    const credentials = lower === 'authorization' || lower === 'proxy-authorization';
    for (const one of credentials ? value.split(NEXT_CREDENTIALS) : [value]) {
      const m = credentials ? /^\S+\s+(\S[\s\S]*)$/.exec(one.trim()) : null;
      const secret = m ? String(m[1]) : one.trim();
      // "Authorization: Bearer" alone names a scheme, not a key: taken for one, every "Bearer" would go.
      if (secret !== '' && !(credentials && SCHEME.test(secret))) found.push(secret);
    }
  }
  return found;
}

// A JSON member whose value is a string or a number, read from the text so that a body cut short
// (a proxy's capture) or formatted its own way is redacted in place, as it is.
const JSON_MEMBER = /"((?:[^"\\\n]|\\.)*)"(\s*:\s*)("(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*)/g;

/**
 * A message body as reports show it: in JSON, every member named like a secret has the value
 * "<redacted>"; in a form (application/x-www-form-urlencoded) every field named like one; and every
 * known key anywhere is replaced by its label.
 * @param {string} body
 * @param {Keys} [keys]
 * @param {string} [contentType]
 * @returns {string}
 */
export function redactBody(body, keys, contentType) {
  const ring = ringOf(keys);
  if (!body) return body;
  if (contentType !== undefined && /^\s*application\/x-www-form-urlencoded/i.test(contentType)) return redactQuery(body, ring);
  const named = MAY_NAME_SECRET.test(body)
    ? body.replace(JSON_MEMBER, (member, name, colon) => (isSecretName(name) ? '"' + name + '"' + colon + '"' + REDACTED + '"' : member))
    : body;
  return redactText(named, ring);
}

/**
 * @typedef {{ url: string, headers: Record<string, string>, body?: string, truncatedFrom?: number }} RequestLike
 * @typedef {{ headers: Record<string, string>, body: string, truncatedFrom?: number }} ResponseLike
 * @typedef {{ request: RequestLike, response?: ResponseLike, error?: string, replay?: string, purpose?: string }} ExchangeLike
 */

/** @param {RequestLike | ResponseLike} message @param {KnownKeys} ring */
function redactMessageBody(message, ring) {
  let type;
  for (const name of Object.keys(message.headers)) if (name.toLowerCase() === 'content-type') type = message.headers[name];
  const body = redactBody(message.body || '', ring, type);
  return message.truncatedFrom !== undefined || body.charAt(body.length - 1) === '\u2026' ? redactCutEnd(body, ring) : body;
}

/**
 * An exchange as it may be kept or shown, in a new object: its URL, headers and bodies redacted, and
 * every known key replaced in its error, replay line and purpose. Everything else is as it was.
 * @template {ExchangeLike} T
 * @param {T} exchange
 * @param {Keys} [keys]
 * @returns {T}
 */
export function redactExchange(exchange, keys) {
  const ring = ringOf(keys);
  const out = /** @type {T} */ (Object.assign({}, exchange));
  const shown = /** @type {ExchangeLike} */ (out);
  const request = shown.request;
  shown.request = Object.assign({}, request, { url: redactUrl(request.url, ring), headers: redactHeaders(request.headers, ring) });
  if (request.body !== undefined) shown.request.body = redactMessageBody(request, ring);
  const response = shown.response;
  if (response) {
    shown.response = Object.assign({}, response, {
      headers: redactHeaders(response.headers, ring),
      body: redactMessageBody(response, ring),
    });
  }
  if (shown.error !== undefined) shown.error = redactText(shown.error, ring);
  if (shown.replay !== undefined) shown.replay = redactText(shown.replay, ring);
  if (shown.purpose !== undefined) shown.purpose = redactText(shown.purpose, ring);
  return out;
}
