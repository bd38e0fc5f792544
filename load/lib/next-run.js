// @ts-check
// capacity.js's advice on what to run next, as a command to paste: every option the run was given,
// then the one it changes, so that the next run measures the same target under the same conditions.

import { isSecretName } from '../../spec/rules/redact.js';

/**
 * @typedef {import('./knee.js').Knee} Knee
 * @typedef {import('./knee.js').NextPass} NextPass
 * @typedef {import('./segments.js').Segment} Segment
 * @typedef {Record<string, string | undefined>} Env
 * @typedef {{ script: string, env: Env, segment: Segment | null }} Run what a run was given: the script's path, its environment, its execution segment
 * @typedef {{ mode: 'rates' | 'refine' | 'search', rates: number[], startRate: number, steps: number, resolution: number, maxVUs: number, loadKey: string }} Search
 *   what the run searched: its mode and rates, and the settings the advice changes
 */

/** Every variable capacity.js reads, in the order a command repeats them. */
export const CAPACITY_VARIABLES = [
  'BASE_URL',
  'API_KEY',
  'RATES',
  'BETWEEN',
  'START_RATE',
  'MAX_RATE',
  'FACTOR',
  'STEPS',
  'RESOLUTION',
  'HOLD',
  'MAX_VUS',
  'P95_MS',
  'P99_MS',
  'MAX_ERROR_RATE',
  'MAX_DROPPED',
  'CREATE_RATIO',
  'SUMMARY_DIR',
  'SUMMARY_JSON',
];

/** Variables named like a secret are repeated by reference to the shell's variable of that name, never printed: the run's output lands in CI logs. */
const SECRETS = CAPACITY_VARIABLES.filter(isSecretName);

/**
 * A value as one shell word: as it is when nothing in it is special to a shell, else single-quoted.
 * @param {string} value
 */
function shellWord(value) {
  return /^[A-Za-z0-9_.,:\/@%+=-]+$/.test(value) ? value : "'" + value.replace(/'/g, "'\\''") + "'";
}

/**
 * The k6 command that runs `run` again: its segment, every variable of `names` it was given (blank
 * ones are unset), then `change`, whose values replace them (null removes one).
 * @param {Run} run
 * @param {string[]} names
 * @param {Record<string, string | null>} [change]
 * @returns {string}
 */
export function rerunCommand(run, names, change) {
  const changed = change || {};
  const words = ['k6', 'run', '--no-usage-report'];
  if (run.segment !== null && !(run.segment.from === 0 && run.segment.to === 1)) {
    words.push('--execution-segment', shellWord(run.segment.segment));
    if (run.segment.sequence !== null) words.push('--execution-segment-sequence', shellWord(run.segment.sequence));
  }
  /** @param {string} name @param {string} value @param {boolean} given */
  const variable = (name, value, given) => words.push('-e', name + '=' + (given && isSecretName(name) ? '"$' + name + '"' : shellWord(value)));
  for (const name of names) {
    const value = run.env[name];
    if (Object.prototype.hasOwnProperty.call(changed, name) || value === undefined || value === null || String(value).trim() === '') continue;
    variable(name, String(value).trim(), true);
  }
  for (const name of Object.keys(changed)) {
    const value = changed[name];
    if (value !== null) variable(name, value, false);
  }
  words.push(run.script);
  return words.join(' ');
}

/**
 * The report's last line: the knee once it is narrow enough, else what to run next, as a command.
 * @param {NextPass} next
 * @param {Knee} knee
 * @param {Search} search
 * @param {Run} run
 * @returns {string}
 */
export function nextLine(next, knee, search, run) {
  /** @param {Record<string, string | null>} change */
  const again = (change) => rerunCommand(run, CAPACITY_VARIABLES, change);
  const top = search.rates[search.rates.length - 1];
  const first = search.rates[0];
  const secret = SECRETS.some((name) => run.env[name] !== undefined && String(run.env[name]).trim() !== '')
    ? '   (' + SECRETS.join(', ') + ': the value you gave, not printed)'
    : '';
  if (next.kind === 'found') {
    return (
      'knee: between ' +
      (knee.held === null ? 0 : knee.held.rate) +
      ' and ' +
      (knee.broke === null ? 0 : knee.broke.rate) +
      ' requests/s, within ' +
      search.resolution * 100 +
      '%'
    );
  }
  if (next.kind === 'refine' && next.between) {
    return 'next: ' + again({ RATES: null, BETWEEN: next.between.join(',') }) + '   (narrows the knee in ' + search.steps + ' steps)' + secret;
  }
  if (next.kind === 'raise-max') {
    if (search.mode === 'rates') return 'next: nothing broke; add a higher rate: ' + again({ RATES: search.rates.concat([top * 2]).join(',') }) + secret;
    return 'next: nothing broke up to ' + top + '/s; search higher: ' + again({ BETWEEN: null, MAX_RATE: String(top * 4) }) + secret;
  }
  if (next.kind === 'key') {
    return (
      'next: the key, not the server, was measured; run again with a key whose limits do not bind (' +
      search.loadKey +
      ' on the reference server): ' +
      again({ API_KEY: search.loadKey })
    );
  }
  if (next.kind === 'generator' && next.cause === 'vus') {
    return 'next: the generator ran out of VUs, not the server; give it more: ' + again({ MAX_VUS: String(search.maxVUs * 2) }) + secret;
  }
  if (next.kind === 'generator') {
    if (run.segment !== null && !(run.segment.from === 0 && run.segment.to === 1)) {
      return 'next: the generator, not the server, was measured; split the run over more k6 processes (a finer --execution-segment-sequence; load/README.md, "Many generators")';
    }
    const half = { segment: '0:1/2', from: 0, to: 0.5, share: 0.5, sequence: '0,1/2,1' };
    const split = rerunCommand({ script: run.script, env: run.env, segment: half }, CAPACITY_VARIABLES);
    return (
      'next: the generator, not the server, was measured; split the run over two k6 processes, started together (load/README.md, "Many generators"): ' +
      split +
      '   and the same with --execution-segment 1/2:1 on the other, then npm run load:merge' +
      secret
    );
  }
  // The first step broke on the server.
  if (search.mode === 'rates') {
    const lower = Math.floor(first / 4);
    if (lower < 1) return 'next: the first step broke on the server at ' + first + '/s; look at its errors and latency before any load';
    return 'next: the first step broke on the server; start lower: ' + again({ RATES: [lower].concat(search.rates).join(',') }) + secret;
  }
  const start = Math.floor(search.startRate / 4);
  if (start < 1) return 'next: the first step broke on the server at ' + first + '/s; look at its errors and latency before any load';
  return 'next: the first step broke on the server; lower START_RATE: ' + again({ BETWEEN: null, START_RATE: String(start) }) + secret;
}

/**
 * The path to give k6 to run a script again, from a stack trace taken in the script (k6 v0.47 tells
 * a script nothing else of where it was loaded from: no import.meta): relative to the working
 * directory (PWD, which k6 hands scripts in __ENV) when the script is below it, else absolute; so
 * the installed package's runs name node_modules/adoption-store-kit/load/capacity.js, not a
 * load/capacity.js that is not there. `fallback` when the trace names no local file.
 * @param {string | undefined} stack `new Error().stack` in the script's init code
 * @param {string | undefined} pwd __ENV.PWD
 * @param {string} fallback
 * @returns {string}
 */
export function scriptPathFrom(stack, pwd, fallback) {
  const m = /file:\/\/(\/(?:[A-Za-z]:)?[^\s?#):]*\.js)/.exec(stack || '');
  if (m === null) return fallback;
  let path;
  try {
    path = decodeURIComponent(m[1]);
  } catch (e) {
    return fallback;
  }
  // file:///C:/x on Windows
  if (/^\/[A-Za-z]:\//.test(path)) path = path.slice(1);
  const base = (pwd || '').replace(/\/+$/, '');
  if (base !== '' && path.indexOf(base + '/') === 0) return path.slice(base.length + 1);
  return path;
}
