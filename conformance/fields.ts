// Parsers for the HTTP fields the checks read, each accepting exactly what its RFC allows, so a check
// never demands one implementation's spelling of a field.

/** RFC 9110 §5.6.7 HTTP-date: IMF-fixdate, or the obsolete RFC 850 and asctime forms recipients must accept. */
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const DAY_LONG = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${DAY_LONG}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | undefined {
  const monthIndex = MONTHS.indexOf(month);
  if (h > 23 || m > 59 || s > 60) return undefined;
  const ms = Date.UTC(year, monthIndex, day, h, m, Math.min(s, 59));
  const check = new Date(ms);
  return check.getUTCDate() === day && check.getUTCMonth() === monthIndex ? ms : undefined;
}

/** Epoch milliseconds of an HTTP-date, or undefined when the value is not one. */
export function parseHttpDate(value: string): number | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC850_DATE.exec(value);
  if (m) {
    // RFC 9110: a two-digit year more than 50 years in the future means the most recent past year.
    const yy = Number(m[3]);
    const thisYear = new Date().getUTCFullYear();
    let year = 2000 + yy;
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = ASCTIME_DATE.exec(value);
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), Number(m[3]), Number(m[4]), Number(m[5]));
  return undefined;
}

export type RetryAfter =
  | { kind: 'delay-seconds'; seconds: number }
  | { kind: 'http-date'; at: number }
  | { kind: 'invalid'; reason: string };

/** RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`, `delay-seconds = 1*DIGIT`. */
export function parseRetryAfter(value: string | undefined): RetryAfter {
  if (value === undefined) return { kind: 'invalid', reason: 'missing' };
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return { kind: 'delay-seconds', seconds: Number(trimmed) };
  const at = parseHttpDate(trimmed);
  if (at !== undefined) return { kind: 'http-date', at };
  return { kind: 'invalid', reason: `${JSON.stringify(value)} is neither delay-seconds (1*DIGIT) nor an HTTP-date` };
}

/** When the client may retry, in epoch ms, given the moment the response arrived. */
export function retryAt(parsed: RetryAfter, receivedAt: number): number | undefined {
  if (parsed.kind === 'delay-seconds') return receivedAt + parsed.seconds * 1000;
  if (parsed.kind === 'http-date') return parsed.at;
  return undefined;
}

export type BareItem = string | number | boolean;
export interface Item {
  value: BareItem;
  params: Record<string, BareItem>;
}

/**
 * A Structured Field List (RFC 8941 §3.1) of items with parameters, enough for the RateLimit and
 * RateLimit-Policy fields of draft-ietf-httpapi-ratelimit-headers and for RFC 9745's Date item.
 * Returns undefined on anything malformed.
 */
export function parseStructuredList(input: string): Item[] | undefined {
  let i = 0;
  const s = input;
  const ws = () => {
    while (s[i] === ' ' || s[i] === '\t') i++;
  };
  const bare = (): BareItem | undefined => {
    const c = s[i];
    if (c === '"') {
      let out = '';
      i++;
      while (i < s.length) {
        const ch = s[i++]!;
        if (ch === '\\') {
          const next = s[i++];
          if (next !== '"' && next !== '\\') return undefined;
          out += next;
        } else if (ch === '"') return out;
        else if (ch < ' ' || ch > '~') return undefined;
        else out += ch;
      }
      return undefined;
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      const m = /^-?\d{1,15}(\.\d{1,3})?/.exec(s.slice(i));
      if (!m) return undefined;
      i += m[0].length;
      return Number(m[0]);
    }
    if (c === '@') {
      const m = /^@(-?\d{1,15})/.exec(s.slice(i));
      if (!m) return undefined;
      i += m[0].length;
      return Number(m[1]);
    }
    if (c === '?') {
      const b = s[i + 1];
      if (b !== '0' && b !== '1') return undefined;
      i += 2;
      return b === '1';
    }
    const m = /^[A-Za-z*][A-Za-z0-9_\-.:%*/]*/.exec(s.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  const items: Item[] = [];
  ws();
  if (i >= s.length) return undefined;
  while (i < s.length) {
    const value = bare();
    if (value === undefined) return undefined;
    const params: Record<string, BareItem> = {};
    while (s[i] === ';') {
      i++;
      ws();
      const key = /^[a-z*][a-z0-9_\-.*]*/.exec(s.slice(i));
      if (!key) return undefined;
      i += key[0].length;
      let v: BareItem | undefined = true;
      if (s[i] === '=') {
        i++;
        v = bare();
        if (v === undefined) return undefined;
      }
      params[key[0]] = v;
    }
    items.push({ value, params });
    ws();
    if (i >= s.length) break;
    if (s[i] !== ',') return undefined;
    i++;
    ws();
    if (i >= s.length) return undefined;
  }
  return items;
}

/** RFC 9745 §2.1: `Deprecation` is a Structured Date item, `@<epoch seconds>`. */
export function parseDeprecation(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*@(-?\d{1,15})\s*$/.exec(value);
  return m ? Number(m[1]) * 1000 : undefined;
}

export interface Link {
  target: string;
  params: Record<string, string>;
}

/** RFC 8288 §3 Link field values. */
export function parseLinks(value: string | undefined): Link[] {
  if (!value) return [];
  const links: Link[] = [];
  const re = /<([^>]*)>((?:\s*;\s*[^;,=\s]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
  for (const m of value.matchAll(re)) {
    const params: Record<string, string> = {};
    for (const p of m[2]!.matchAll(/;\s*([^;,=\s]+)(?:\s*=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*))?/g)) {
      const raw = p[2] ?? '';
      params[p[1]!.toLowerCase()] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    }
    links.push({ target: m[1]!, params });
  }
  return links;
}

export function linkWithRel(links: Link[], rel: string): Link | undefined {
  return links.find((l) => (l.params.rel ?? '').toLowerCase().split(/\s+/).includes(rel));
}
