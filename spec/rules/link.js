// @ts-check
// The Link field (RFC 8288 §3): parsed strictly enough that a malformed field is noticed, and
// formatted exactly as the reference server sends its pagination and deprecation links.
// Plain ES2015 without imports: k6 loads it by relative path.

/**
 * @typedef {object} Link
 * @property {string} target the URI-Reference between < and >, as written
 * @property {Record<string, string>} params parameter names in lower case, values unquoted
 */

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/**
 * [] when absent or empty, null when not RFC 8288 (an unclosed <, a nameless parameter, text between
 * links). A repeated parameter's first wins, as §3.3 requires for rel; empty elements are skipped
 * (RFC 9110 §5.6.1).
 * @param {string | undefined | null} value
 * @returns {Link[] | null}
 */
export function parseLinks(value) {
  if (value === undefined || value === null) return [];
  const s = String(value);
  let i = 0;
  const ows = () => {
    while (s[i] === ' ' || s[i] === '\t') i++;
  };
  const token = () => {
    const start = i;
    while (i < s.length && TCHAR.test(s.charAt(i))) i++;
    return s.slice(start, i);
  };
  const quoted = () => {
    let out = '';
    for (i++; i < s.length; i++) {
      if (s[i] === '"') {
        i++;
        return out;
      }
      if (s[i] === '\\') i++;
      if (i < s.length) out += s[i];
    }
    return null;
  };
  /** @type {Link[]} */
  const links = [];
  for (;;) {
    ows();
    if (i >= s.length) return links;
    if (s[i] === ',') {
      i++;
      continue;
    }
    if (s[i] !== '<') return null;
    const close = s.indexOf('>', i);
    if (close < 0) return null;
    /** @type {Link} */
    const link = { target: s.slice(i + 1, close), params: {} };
    i = close + 1;
    for (ows(); s[i] === ';'; ows()) {
      i++;
      ows();
      const name = token().toLowerCase();
      if (name === '') return null;
      ows();
      let paramValue = '';
      if (s[i] === '=') {
        i++;
        ows();
        const v = s[i] === '"' ? quoted() : token();
        if (v === null) return null;
        paramValue = v;
      }
      if (!Object.prototype.hasOwnProperty.call(link.params, name)) link.params[name] = paramValue;
    }
    links.push(link);
    if (i < s.length && s[i] !== ',') return null;
  }
}

/**
 * The Link field value for these links: every parameter value quoted, links joined by ", ", in
 * the order given; the form the reference server sends.
 * @param {Array<{ target: string, params?: Record<string, string> }>} links
 * @returns {string}
 */
export function formatLinks(links) {
  // Loops, and a value is escaped only when it holds a quote or backslash: the server writes a
  // Link on most list pages (npm run bench).
  let out = '';
  for (const link of links) {
    const params = link.params || {};
    out += (out === '' ? '<' : ', <') + link.target + '>';
    for (const name in params) {
      if (!Object.prototype.hasOwnProperty.call(params, name)) continue;
      const value = String(params[name]);
      out += '; ' + name + '="' + (/["\\]/.test(value) ? value.replace(/(["\\])/g, '\\$1') : value) + '"';
    }
  }
  return out;
}

/**
 * The first link whose rel (a space-separated list, compared case-insensitively) holds `rel`.
 * @param {Link[] | null} links
 * @param {string} rel
 * @returns {Link | undefined}
 */
export function linkWithRel(links, rel) {
  if (!links) return undefined;
  const wanted = rel.toLowerCase();
  return links.find(
    (link) =>
      String(link.params.rel || '')
        .toLowerCase()
        .split(/[ \t]+/)
        .indexOf(wanted) >= 0
  );
}
