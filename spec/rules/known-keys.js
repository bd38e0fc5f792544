// @ts-check
// The keys a redaction knows and where they appear in a text, whatever the case of their letters:
// a few keys are found with indexOf, many through an index of their first two characters. Used by
// redact.js, which is what the rest of the kit imports.

/** Keys shorter than this are replaced only where they stand alone: "pro" is a key, not a part of "production". */
const ALONE_BELOW = 8;
const WORD = /[A-Za-z0-9_]/;
/** The first characters of a key that a text cut short may end with before they are taken for it. */
const CUT_SHOWN = 4;
/** Keys learned with add() that are kept by default, the most recently seen. */
const DEFAULT_LEARNED = 10000;

const PAIR_SLOTS = 4096;
/** Up to this many keys, the places they start are found with indexOf rather than by reading every character. */
const FEW_KEYS = 32;

/** @param {string} text @param {number} at a slot for the two characters at `at` (six bits of each) */
function pairSlot(text, at) {
  return ((text.charCodeAt(at) & 0x3f) << 6) | (text.charCodeAt(at + 1) & 0x3f);
}

/** @param {string} text ASCII letters in lower case; every other character as it is, so that indexes stay. */
export function fold(text) {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** @param {string} folded @param {number} at @param {number} length */
function standsAlone(folded, at, length) {
  const before = at > 0 && WORD.test(folded.charAt(at)) && WORD.test(folded.charAt(at - 1));
  const after = WORD.test(folded.charAt(at + length - 1)) && WORD.test(folded.charAt(at + length));
  return !before && !after;
}

/**
 * The keys to redact: some given once (the run's keys, a --header value) and never forgotten, and those
 * learned as they pass (a proxy's), of which the most recently seen `limit` are kept. Keys are found
 * whatever the case of their ASCII letters (a key upper-cased is still the key).
 */
export class KnownKeys {
  /**
   * @param {Iterable<string | undefined | null>} [keys] known from the start; empty ones are ignored
   * @param {number} [limit] keys learned with add() that are kept
   */
  constructor(keys, limit) {
    /** @type {Set<string>} */
    this._fixed = new Set();
    /** @type {Map<string, true>} learned keys, the one seen longest ago first */
    this._learned = new Map();
    /** @type {Map<string, number>} each key folded, with how many known keys fold to it */
    this._folded = new Map();
    /** @type {Map<number, string[]>} folded keys of two or more characters by their first two, longest first */
    this._byTwo = new Map();
    /** @type {Map<number, string[]>} folded one-character keys by their character */
    this._byOne = new Map();
    /** How many folded keys of two or more characters start with each pair's slot: most places in a text start none, and are passed over without a lookup. */
    this._pairs = new Uint32Array(PAIR_SLOTS);
    this._limit = limit === undefined ? DEFAULT_LEARNED : limit;
    /** The longest key known so far (forgotten ones included): how far back a cut key can start. */
    this._longest = 0;
    if (keys) {
      for (const key of keys) {
        if (typeof key !== 'string' || key === '' || this._fixed.has(key)) continue;
        this._fixed.add(key);
        this._insert(key);
      }
    }
  }

  /** How many keys are known. */
  get size() {
    return this._fixed.size + this._learned.size;
  }

  /**
   * Learns a key seen passing; the one seen longest ago is forgotten past the limit.
   * @param {string | undefined | null} key
   */
  add(key) {
    if (typeof key !== 'string' || key === '' || this._fixed.has(key)) return;
    if (this._learned.has(key)) {
      this._learned.delete(key);
      this._learned.set(key, true);
      return;
    }
    this._learned.set(key, true);
    this._insert(key);
    if (this._learned.size > this._limit) {
      const oldest = this._learned.keys().next().value;
      if (oldest !== undefined) {
        this._learned.delete(oldest);
        this._remove(oldest);
      }
    }
  }

  /** @returns {string[]} every key known */
  keys() {
    return Array.from(this._fixed).concat(Array.from(this._learned.keys()));
  }

  /** @param {number} slot @param {number} by */
  _count(slot, by) {
    this._pairs[slot] = Number(this._pairs[slot]) + by;
  }

  /** @param {string} key */
  _insert(key) {
    const folded = fold(key);
    const count = this._folded.get(folded);
    this._folded.set(folded, (count === undefined ? 0 : count) + 1);
    if (folded.length > this._longest) this._longest = folded.length;
    if (count !== undefined) return;
    if (folded.length > 1) this._count(pairSlot(folded, 0), 1);
    const index = folded.length === 1 ? this._byOne : this._byTwo;
    const at = folded.length === 1 ? folded.charCodeAt(0) : folded.charCodeAt(0) * 0x10000 + folded.charCodeAt(1);
    const bucket = index.get(at);
    if (!bucket) {
      index.set(at, [folded]);
      return;
    }
    let i = 0;
    while (i < bucket.length && String(bucket[i]).length >= folded.length) i++;
    bucket.splice(i, 0, folded);
  }

  /** @param {string} key */
  _remove(key) {
    const folded = fold(key);
    const count = this._folded.get(folded);
    if (count === undefined) return;
    if (count > 1) {
      this._folded.set(folded, count - 1);
      return;
    }
    this._folded.delete(folded);
    if (folded.length > 1) this._count(pairSlot(folded, 0), -1);
    const index = folded.length === 1 ? this._byOne : this._byTwo;
    const at = folded.length === 1 ? folded.charCodeAt(0) : folded.charCodeAt(0) * 0x10000 + folded.charCodeAt(1);
    const bucket = index.get(at);
    if (!bucket) return;
    bucket.splice(bucket.indexOf(folded), 1);
    if (bucket.length === 0) index.delete(at);
  }

  /**
   * Where the first part of a known key (CUT_SHOWN characters or more, not all of it) ends the folded
   * text at `end`; `end` when none does.
   * @param {string} folded
   * @param {number} end
   * @returns {number}
   */
  _cut(folded, end) {
    for (let at = Math.max(0, end - this._longest + 1); at <= end - CUT_SHOWN; at++) {
      const two = this._byTwo.get(folded.charCodeAt(at) * 0x10000 + folded.charCodeAt(at + 1));
      if (!two || (at > 0 && WORD.test(folded.charAt(at - 1)) && WORD.test(folded.charAt(at)))) continue;
      for (const key of two) if (key.length > end - at && key.startsWith(folded.slice(at, end))) return at;
    }
    return end;
  }

  /**
   * Where a known key may start in the folded text, in order, when few keys are known (found by
   * indexOf, much faster than reading every character); null when many are.
   * @param {string} folded
   * @returns {number[] | null}
   */
  _starts(folded) {
    if (this._folded.size > FEW_KEYS) return null;
    /** @type {number[]} */
    const at = [];
    this._folded.forEach((_, key) => {
      for (let i = folded.indexOf(key); i >= 0; i = folded.indexOf(key, i + 1)) at.push(i);
    });
    return at.sort((a, b) => a - b);
  }

  /**
   * The length of the longest known key at `at` of the folded text, 0 when none is there.
   * @param {string} folded
   * @param {number} at
   * @returns {number}
   */
  _match(folded, at) {
    if (this._pairs[pairSlot(folded, at)] !== 0) {
      const two = this._byTwo.get(folded.charCodeAt(at) * 0x10000 + folded.charCodeAt(at + 1));
      if (two) {
        for (const key of two) if (folded.startsWith(key, at) && (key.length >= ALONE_BELOW || standsAlone(folded, at, key.length))) return key.length;
      }
    }
    if (this._byOne.size === 0) return 0;
    const one = this._byOne.get(folded.charCodeAt(at));
    return one && standsAlone(folded, at, 1) ? 1 : 0;
  }
}
