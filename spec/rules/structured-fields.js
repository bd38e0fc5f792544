// @ts-check
// The RateLimit and RateLimit-Policy fields of draft-ietf-httpapi-ratelimit-headers (-11): Lists of
// Structured Field Items (RFC 8941 §3.1, Dates from RFC 9651), serialised as the reference server
// sends them. Inner lists and byte sequences, outside the subset the draft uses, are refused.

/**
 * @typedef {{ token: string }} Token a Token, told apart from a String, which is a plain string
 * @typedef {{ date: number }} SfDate a Date (RFC 9651), in epoch seconds
 * @typedef {number | string | boolean | Token | SfDate} BareItem
 * @typedef {{ value: BareItem, params: Record<string, BareItem> }} Item
 */

/**
 * A Structured Field List of Items with parameters; null on anything malformed.
 * @param {string | undefined | null} input
 * @returns {Item[] | null}
 */
export function parseList(input) {
  if (input === undefined || input === null) return null;
  const s = String(input);
  let i = 0;
  const sp = () => {
    while (s[i] === ' ') i++;
  };
  /** @returns {BareItem | null} */
  const bare = () => {
    const rest = s.slice(i);
    const c = s[i];
    let m;
    if (c === '"') {
      let out = '';
      for (i++; i < s.length; i++) {
        const ch = s.charAt(i);
        if (ch === '"') {
          i++;
          return out;
        }
        if (ch === '\\') {
          const next = s[++i];
          if (next !== '"' && next !== '\\') return null;
          out += next;
        } else if (ch < ' ' || ch > '~') return null;
        else out += ch;
      }
      return null;
    }
    if ((m = /^-?[0-9]{1,12}\.[0-9]{1,3}/.exec(rest)) || (m = /^-?[0-9]{1,15}/.exec(rest))) {
      if (/^[0-9.]/.test(s.slice(i + m[0].length))) return null;
      i += m[0].length;
      return Number(m[0]);
    }
    if ((m = /^@(-?[0-9]{1,15})/.exec(rest))) {
      i += m[0].length;
      return { date: Number(m[1]) };
    }
    if ((m = /^\?([01])/.exec(rest))) {
      i += 2;
      return m[1] === '1';
    }
    if ((m = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(rest))) {
      i += m[0].length;
      return { token: m[0] };
    }
    return null;
  };
  /** @type {Item[]} */
  const items = [];
  sp();
  if (i >= s.length) return null;
  for (;;) {
    const value = bare();
    if (value === null) return null;
    /** @type {Record<string, BareItem>} */
    const params = {};
    while (s[i] === ';') {
      i++;
      sp();
      const key = /^[a-z*][a-z0-9_\-.*]*/.exec(s.slice(i));
      if (!key) return null;
      i += key[0].length;
      /** @type {BareItem | null} */
      let v = true;
      if (s[i] === '=') {
        i++;
        v = bare();
        if (v === null) return null;
      }
      params[key[0]] = v;
    }
    items.push({ value: value, params: params });
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (i >= s.length) return items;
    if (s[i] !== ',') return null;
    i++;
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (i >= s.length) return null;
  }
}

/** @param {BareItem} v @returns {string} */
function serializeBare(v) {
  if (typeof v === 'string') return '"' + (/["\\]/.test(v) ? v.replace(/(["\\])/g, '\\$1') : v) + '"';
  if (typeof v === 'boolean') return v ? '?1' : '?0';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  if ('token' in v) return v.token;
  return '@' + v.date;
}

/**
 * A Structured Field List from items, members joined by ", ".
 * @param {ReadonlyArray<{ value: BareItem, params?: Readonly<Record<string, BareItem | undefined>> }>} items
 * @returns {string}
 */
export function serializeList(items) {
  // Loops rather than map/join: the server writes two of these on every response (npm run bench).
  let out = '';
  let first = true;
  for (const item of items) {
    const params = item.params || {};
    out += (first ? '' : ', ') + serializeBare(item.value);
    first = false;
    for (const key in params) {
      if (!Object.prototype.hasOwnProperty.call(params, key)) continue;
      const v = /** @type {BareItem} */ (params[key]);
      out += v === true ? ';' + key : ';' + key + '=' + serializeBare(v);
    }
  }
  return out;
}

/** @param {BareItem | undefined} v @returns {v is number} */
function isCount(v) {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** @param {BareItem} v @returns {string | null} */
function nameOf(v) {
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && 'token' in v) return v.token;
  return null;
}

/**
 * @typedef {{ name: string, quota: number, window?: number }} RateLimitPolicy
 * @typedef {{ name: string, remaining: number, reset?: number }} RateLimitState
 */

/**
 * RateLimit-Policy: one item per policy, named by a String (or Token), with an integer quota `q`
 * and optionally an integer window `w` in seconds; null when malformed or a number is missing.
 * @param {string | undefined | null} value
 * @returns {RateLimitPolicy[] | null}
 */
export function parseRateLimitPolicy(value) {
  const items = parseList(value);
  if (!items) return null;
  /** @type {RateLimitPolicy[]} */
  const policies = [];
  for (const item of items) {
    const name = nameOf(item.value);
    const q = item.params.q;
    const w = item.params.w;
    if (name === null || !isCount(q) || (w !== undefined && !isCount(w))) return null;
    policies.push(w === undefined ? { name: name, quota: q } : { name: name, quota: q, window: w });
  }
  return policies;
}

/**
 * RateLimit: one item per policy with the requests remaining `r` and optionally `t`, the seconds
 * until it resets; null when malformed or a number is missing.
 * @param {string | undefined | null} value
 * @returns {RateLimitState[] | null}
 */
export function parseRateLimit(value) {
  const items = parseList(value);
  if (!items) return null;
  /** @type {RateLimitState[]} */
  const states = [];
  for (const item of items) {
    const name = nameOf(item.value);
    const r = item.params.r;
    const t = item.params.t;
    if (name === null || !isCount(r) || (t !== undefined && !isCount(t))) return null;
    states.push(t === undefined ? { name: name, remaining: r } : { name: name, remaining: r, reset: t });
  }
  return states;
}

/**
 * `"minute";q=60;w=60, "day";q=1000;w=86400`
 * @param {RateLimitPolicy[]} policies
 * @returns {string}
 */
export function formatRateLimitPolicy(policies) {
  return serializeList(policies.map((p) => ({ value: p.name, params: p.window === undefined ? { q: p.quota } : { q: p.quota, w: p.window } })));
}

/**
 * `"minute";r=12;t=41, "day";r=940;t=80012`
 * @param {RateLimitState[]} states
 * @returns {string}
 */
export function formatRateLimit(states) {
  // What serializeList writes for these items, without building them: the server formats this on
  // every response (npm run bench); structured-fields.test.ts holds the two to the same text.
  let out = '';
  let first = true;
  for (const st of states) {
    out += (first ? '' : ', ') + serializeBare(st.name) + ';r=' + serializeBare(st.remaining) + (st.reset === undefined ? '' : ';t=' + serializeBare(st.reset));
    first = false;
  }
  return out;
}
