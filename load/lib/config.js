// @ts-check
// Configuration from the environment (k6's __ENV), validated once in the init context so a typo
// stops the run before any request instead of producing a misleading result.
import { BASE_PATH, CUSTOM_PLANS, PLAN_LIMITS } from '../../spec/rules/contract.js';
import { originOf } from './origin.js';

/** The reference server started with `npm start`. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000' + BASE_PATH;

/** @typedef {Record<string, string | undefined>} Env */

/**
 * @param {Env} env
 * @param {string} name
 * @returns {string | undefined} the trimmed value, or undefined when unset or blank
 */
function raw(env, name) {
  const value = env[name];
  if (value === undefined || value === null) return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

/**
 * @param {Env} env
 * @param {string} name
 * @param {string} fallback
 */
export function stringEnv(env, name, fallback) {
  const value = raw(env, name);
  return value === undefined ? fallback : value;
}

/**
 * @param {Env} env
 * @param {string} name
 * @param {number} fallback
 * @param {{ min?: number, max?: number, integer?: boolean }} [rules]
 */
export function numberEnv(env, name, fallback, rules) {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  const r = rules || {};
  if (!isFinite(n) || (r.integer && Math.floor(n) !== n)) {
    throw new Error(name + '=' + value + ' is not ' + (r.integer ? 'an integer' : 'a number'));
  }
  if (r.min !== undefined && n < r.min) throw new Error(name + '=' + value + ' is below ' + r.min);
  if (r.max !== undefined && n > r.max) throw new Error(name + '=' + value + ' is above ' + r.max);
  return n;
}

/**
 * "1", "true", "yes", "on" are true; "0", "false", "no", "off" false.
 * @param {Env} env
 * @param {string} name
 * @param {boolean} fallback
 */
export function boolEnv(env, name, fallback) {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const v = value.toLowerCase();
  if (v === '1' || v === 'true' || v === 'yes' || v === 'on') return true;
  if (v === '0' || v === 'false' || v === 'no' || v === 'off') return false;
  throw new Error(name + '=' + value + ' is not a boolean (use 1 or 0)');
}

/**
 * A k6-style duration ("90s", "2m30s", "1h", or plain seconds) in whole seconds.
 * @param {string} text
 * @returns {number}
 */
export function parseDuration(text) {
  const t = String(text).trim();
  if (/^\d+$/.test(t)) return Number(t);
  const re = /(\d+)(h|m|s)/g;
  let total = 0;
  let consumed = 0;
  let m;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
    consumed += m[0].length;
  }
  if (consumed === 0 || consumed !== t.length) throw new Error('"' + text + '" is not a duration such as 90s or 2m30s');
  return total;
}

/**
 * @param {Env} env
 * @param {string} name
 * @param {string} fallback
 * @returns {number} seconds
 */
export function durationEnv(env, name, fallback) {
  const value = stringEnv(env, name, fallback);
  try {
    return parseDuration(value);
  } catch (e) {
    throw new Error(name + ': ' + (e instanceof Error ? e.message : String(e)));
  }
}

/** The most requests rate-limit.js sends at once: what its tests drive through the window rules. */
export const MAX_CLIENTS = 128;

/**
 * How many requests rate-limit.js sends at once, as that many concurrent clients sharing the key
 * would: CLIENTS, or BATCH, its older name (both must agree when both are set); 1 when neither is.
 * @param {Env} env
 * @returns {number}
 */
export function clientsEnv(env) {
  const rules = { integer: true, min: 1, max: MAX_CLIENTS };
  const clients = numberEnv(env, 'CLIENTS', 0, rules);
  const batch = numberEnv(env, 'BATCH', 0, rules);
  if (clients > 0 && batch > 0 && clients !== batch) {
    throw new Error('CLIENTS=' + clients + ' and BATCH=' + batch + ' disagree; BATCH is the older name of CLIENTS: set one');
  }
  return clients > 0 ? clients : batch > 0 ? batch : 1;
}

/**
 * The base address, without a trailing slash; it already ends with the version segment.
 * @param {Env} env
 */
export function baseUrl(env) {
  const url = stringEnv(env, 'BASE_URL', DEFAULT_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(url)) throw new Error('BASE_URL=' + url + ' is not an http(s) URL');
  // Every request is checked against this origin (lib/origin.js): one it cannot read would refuse them all, later.
  if (originOf(url) === null) {
    throw new Error('BASE_URL names no origin the key can be kept to: no user:password@, no space or backslash, a host that is a name or an address');
  }
  return url;
}

/**
 * The per-minute limit the caller expects: LIMIT wins, then PLAN's row of the contract's plan
 * table; null when it is to be learned from X-RateLimit-Limit (or the plan's limits are per key).
 * @param {Env} env
 * @returns {{ plan: string | null, limit: number | null }}
 */
export function expectedLimit(env) {
  const limit = numberEnv(env, 'LIMIT', 0, { integer: true, min: 1 });
  const planName = raw(env, 'PLAN');
  const plan = planName === undefined ? null : planName.toLowerCase();
  /** @type {string[]} */
  const custom = CUSTOM_PLANS.slice();
  const fixed = plan !== null && Object.prototype.hasOwnProperty.call(PLAN_LIMITS, plan);
  if (plan !== null && !fixed && custom.indexOf(plan) < 0) {
    throw new Error('PLAN=' + planName + ' is not one of ' + Object.keys(PLAN_LIMITS).concat(custom).join(', '));
  }
  if (limit > 0) return { plan: plan, limit: limit };
  if (plan === null || !fixed) return { plan: plan, limit: null };
  return { plan: plan, limit: PLAN_LIMITS[/** @type {keyof typeof PLAN_LIMITS} */ (plan)].perMinute };
}

/**
 * Where handleSummary writes its JSON: SUMMARY_JSON, else <script>-summary.json in SUMMARY_DIR or
 * the working directory, the execution segment in the name so that generators sharing a folder keep
 * apart (load/README.md, Decisions).
 * @param {Env} env
 * @param {string} script
 * @param {string | null} [segment] the execution segment, null or "0:1" for the whole run
 */
export function summaryPath(env, script, segment) {
  const part =
    segment && segment !== '0:1'
      ? '-' +
        segment
          .replace(/\//g, '_')
          .replace(/:/g, '-')
          .replace(/[^0-9._%-]/g, '')
      : '';
  const dir = stringEnv(env, 'SUMMARY_DIR', '').replace(/\/+$/, '');
  return stringEnv(env, 'SUMMARY_JSON', (dir === '' ? '' : dir + '/') + script + '-summary' + part + '.json');
}
