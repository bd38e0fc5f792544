// The contract's facts are read from it (or from spec/rules/contract.js and spec/contract-types.ts,
// generated from it), never written again in code: a restated copy is how the parts came to
// disagree. Tests may state the facts they check; code may not.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BASE_PATH, DEPRECATIONS, INJECTABLE_CODES, INJECTED_ANSWERS, OPERATIONS, PET_STATUSES, PLAN_LIMITS, REFUSAL_CODES } from '../spec/rules/contract.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const code = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.js', '*.cjs', '*.mjs'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  // load/lib/bundle.cjs is spec/rules and load/lib bundled for k6 (load/bundle.ts): a copy, not a restatement.
  .filter(
    (f) =>
      f &&
      !/\.test\.ts$|\.d\.ts$|^spec\/rules\/contract\.js$|^spec\/contract-types\.ts$|^spec\/rules\/recorded\.ts$|^load\/lib\/bundle\.cjs$|^node_modules\//.test(
        f,
      ),
  )
  // A file deleted from the work tree but not yet from the index holds no code, nor does a hidden
  // folder (a build's scratch copy of the checkout).
  .filter((f) => !f.startsWith('.') && existsSync(join(root, f)));

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `count` quoted values of `values` in a row, in any order, as an array or Set lists them (`,`) or a
 * union type does (`|`).
 */
function literals(values: readonly string[], count: number): RegExp {
  const one = `['"\`](?:${values.map(escape).join('|')})['"\`]`;
  return new RegExp(`${one}(?:\\s*[,|]\\s*${one}){${count - 1}}`);
}

/** The fields of a plan's limits, each typed as a number, in any order: an interface or a type literal restating PlanLimits. */
function limitsType(): RegExp {
  const names = Object.keys(Object.values(PLAN_LIMITS)[0]!);
  const field = `(?:readonly\\s+)?(?:${names.join('|')})\\??:\\s*number`;
  return new RegExp(`${field}(?:[\\s;,]+${field}){${names.length - 1}}`);
}

/**
 * Literal spellings of the facts: the statuses (a list or a union, any order), each plan's numbers
 * and the type of a plan's limits, the sunset day, the operation ids and the refusal codes listed
 * together (two or more in a row: one code alone is a value the code sends or tests for).
 */
const FACTS: Array<[string, RegExp]> = [
  ['the PetStatus list', literals(PET_STATUSES, PET_STATUSES.length)],
  ["the type of a plan's limits (PlanLimits)", limitsType()],
  ['the operation ids (OperationId, OPERATIONS)', literals(Object.keys(OPERATIONS), 2)],
  ['the refusal codes (RefusalCode, REFUSAL_CODES)', literals(Object.keys(REFUSAL_CODES), 2)],
  // As a list: code=429|500|503 in prose says what a user may ask for.
  ['the injectable codes (INJECTABLE_CODES)', new RegExp(`\\b${INJECTABLE_CODES.join(',\\s*')}\\b`)],
  ...Object.entries(PLAN_LIMITS).map(([plan, l]): [string, RegExp] => [
    `the ${plan} plan's limits`,
    new RegExp(`perMinute:\\s*${l.perMinute}\\b[^\\n]*perDay:\\s*${l.perDay}\\b`),
  ]),
  ...Object.values(DEPRECATIONS).map((d): [string, RegExp] => [`the sunset of ${d.method} ${d.path}`, new RegExp(d.sunset.slice(0, 10))]),
];

test('no code restates a fact of the contract', () => {
  const found: string[] = [];
  for (const file of code) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const [fact, pattern] of FACTS) if (pattern.test(text)) found.push(`${file}: ${fact}`);
  }
  assert.equal(found, []);
});

/**
 * Hand-made spellings of the HTTP fields spec/rules formats and parses: a Link or RateLimit field
 * written by template, Deprecation's "@" date by template, an HTTP-date from toUTCString, a Link
 * parsed by regular expression. Comment lines are not code.
 */
const FIELD_WORK: Array<[string, RegExp]> = [
  ['a Link field written by hand (formatLinks)', />; rel=/],
  ['a RateLimit field written by hand (formatRateLimit, formatRateLimitPolicy)', /;[qrtw]=\$\{/],
  ['a Deprecation date written by hand (formatDeprecation)', /`@\$\{/],
  ['an HTTP-date from toUTCString (formatHttpDate)', /\.toUTCString\(/],
  ['a Link field parsed by hand (parseLinks)', /matchAll\(\/</],
];
const codeLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
    .join('\n');

test('no code formats or parses an HTTP field of the contract outside spec/rules', () => {
  const found: string[] = [];
  for (const file of code.filter((f) => !f.startsWith('spec/rules/'))) {
    const text = codeLines(readFileSync(join(root, file), 'utf8'));
    for (const [what, pattern] of FIELD_WORK) if (pattern.test(text)) found.push(`${file}: ${what}`);
  }
  assert.equal(found, []);
});

test('the field check can fail: it finds a hand-written Link and RateLimit', () => {
  const text = codeLines('// <a>; rel="next" in a comment\nconst l = `<${u}>; rel="next"`; const r = `"minute";r=${n}`;');
  assert.equal(
    FIELD_WORK.filter(([, p]) => p.test(text)).map(([w]) => w),
    [FIELD_WORK[0]![0], FIELD_WORK[1]![0]],
  );
});

const found = (text: string) => FACTS.filter(([, pattern]) => pattern.test(text)).map(([fact]) => fact);

const RESTATED: Array<[string, string, string]> = [
  ['a status list', "const STATUSES = ['available', 'pending', 'sold'];", 'the PetStatus list'],
  ['a status union in another order', "type Status = 'sold' | \"available\" | 'pending';", 'the PetStatus list'],
  ['a status Set', "new Set([\n  'pending',\n  'available',\n  'sold',\n])", 'the PetStatus list'],
  ['an interface of the plan limits', 'interface Limits {\n  perMinute: number;\n  perDay: number;\n}', "the type of a plan's limits (PlanLimits)"],
  ['a readonly type literal of the limits, reordered', '{ readonly perDay: number, readonly perMinute?: number }', "the type of a plan's limits (PlanLimits)"],
  ['the operation ids as a union', "type Op = 'listPets' | 'createPet' | 'getPet';", 'the operation ids (OperationId, OPERATIONS)'],
  ['two operation ids listed', "for (const id of ['getPet', 'listPets'])", 'the operation ids (OperationId, OPERATIONS)'],
  [
    'the refusal codes as sets',
    "const KEY = new Set(['rate_limited_minute', 'rate_limited_day', 'key_banned']);",
    'the refusal codes (RefusalCode, REFUSAL_CODES)',
  ],
  ['two address codes as a union', "type AddressCode = 'ip_blocked' | 'rate_limited_ip';", 'the refusal codes (RefusalCode, REFUSAL_CODES)'],
  ['the injectable codes', 'const CODES = [429, 500, 503] as const;', 'the injectable codes (INJECTABLE_CODES)'],
];
for (const [what, text, fact] of RESTATED) {
  test(`the check can fail: it finds ${what}`, () => assert.equal(found(text), [fact]));
}

const NOT_RESTATED: Array<[string, string]> = [
  ['one status as a value', "const DEFAULT_STATUS: PetStatus = 'available';"],
  ['two statuses', "if (status === 'sold' || status === 'pending')"],
  ['one limit field', 'ip: { perMinute: number; ban: BanOptions }'],
  ['one operation id', "operationId: 'getPet',"],
  ['one refusal code sent', "{ code: 'key_banned', message }"],
];
for (const [what, text] of NOT_RESTATED) {
  test(`the check does not flag ${what}`, () => assert.equal(found(text), []));
}

/**
 * Header names of spec/rules/contract.js (HEADERS, LOWER_HEADERS) written again: any X-RateLimit-*
 * name, RateLimit-Policy, Deprecation, Sunset or X-Fault-Injected as a whole quoted string in any
 * letter case, or read as a property of a headers object. Prose that names a field is not a name.
 */
const HEADER_NAME: Array<[string, RegExp]> = [
  ['a quoted header name', /(['"`])(?:x-ratelimit-[a-z-]*|ratelimit-policy|deprecation|sunset|x-fault-injected)\1/i],
  ['a header read as a property', /\bheaders\??\.(?:deprecation|sunset|ratelimit)\b/],
];
/** The same words that name no header field: a link relation (RFC 9745, RFC 8594), the conformance area, the server plugin. */
const NOT_A_FIELD = [/\brel:\s*(['"`])(?:deprecation|sunset)\1/g, /\b(?:area|name):\s*(['"`])deprecation\1/g, /_PLUGIN\s*=\s*(['"`])deprecation\1/g];

function headerNames(text: string): string[] {
  const found: string[] = [];
  codeLines(text)
    .split('\n')
    .forEach((line) => {
      const bare = NOT_A_FIELD.reduce((l, p) => l.replace(p, ''), line);
      for (const [what, pattern] of HEADER_NAME) if (pattern.test(bare)) found.push(`${what}: ${line.trim()}`);
    });
  return found;
}

test('no code spells a header name of the contract (HEADERS, LOWER_HEADERS)', () => {
  const found: string[] = [];
  for (const file of code) for (const hit of headerNames(readFileSync(join(root, file), 'utf8'))) found.push(`${file}: ${hit}`);
  assert.equal(found, []);
});

const NAMED: Array<[string, string]> = [
  ['a Node header key', "const reset = res.headers['x-ratelimit-reset'];"],
  ['a canonical name written', "res.setHeader('Sunset', value);"],
  ['an object key in another case', '{ "X-RATELIMIT-LIMIT": String(limit) }'],
  ['a name in a template', 'withoutHeaders(res, `deprecation`)'],
  ['the fault marker', "headers['x-fault-injected'] = 'code=503';"],
  ['RateLimit-Policy', "get('RateLimit-Policy')"],
  ['a property of a headers object', 'const when = res.headers.sunset;'],
];
for (const [what, text] of NAMED) {
  test(`the header check can fail: it finds ${what}`, () => assert.is(headerNames(text).length, 1));
}

const NOT_NAMED: Array<[string, string]> = [
  ['a name read from the facts', 'res.headers[LOWER_HEADERS.rateLimitReset]'],
  ['prose naming a field', "problems.push('X-RateLimit-Limit missing or not a non-negative integer');"],
  ['a comment', "// headers['x-ratelimit-reset'] is read once"],
  ['a link relation', "{ target: link, params: { rel: 'deprecation', type: 'text/html' } }"],
  ['the conformance area', "area: 'deprecation',"],
  ["the plugin's name", "export const DEPRECATION_PLUGIN = 'deprecation';"],
  ['a check id', "ledger.assert('deprecation.sunset', ok)"],
];
for (const [what, text] of NOT_NAMED) {
  test(`the header check does not flag ${what}`, () => assert.equal(headerNames(text), []));
}

/** The message of an injected fault (x-fault-injection) written outside the facts. */
const injectedMessages = (text: string) => Object.values(INJECTED_ANSWERS).filter((a) => text.includes(a.message));

test('no code writes an injected answer again (INJECTED_ANSWERS)', () => {
  const found: string[] = [];
  for (const file of code) for (const a of injectedMessages(readFileSync(join(root, file), 'utf8'))) found.push(`${file}: ${a.code}`);
  assert.equal(found, []);
});

test("the injected-answer check can fail: it finds the 503's message", () => {
  const text = `throw apiError('service_unavailable', ${JSON.stringify(INJECTED_ANSWERS[503].message)});`;
  assert.equal(
    injectedMessages(text).map((a) => a.code),
    ['service_unavailable'],
  );
});

/**
 * The base path written into a path: a string that starts with it, or a regular expression that
 * matches it. Shipped code only: testing/ folders hold fake targets of their own.
 */
const BASE = escape(BASE_PATH);
const BASE_PATH_WRITTEN = [new RegExp(`(['"\`])${BASE}(?=[/?'"\`])`), new RegExp(`${escape(BASE.replace(/\//g, '\\/'))}(?=\\\\/|\\$|/)`)];
const basePaths = (text: string) =>
  codeLines(text)
    .split('\n')
    .filter((line) => BASE_PATH_WRITTEN.some((p) => p.test(line)));

test('no shipped code writes the base path (BASE_PATH)', () => {
  const found: string[] = [];
  for (const file of code.filter((f) => !/(^|\/)testing\//.test(f)))
    for (const line of basePaths(readFileSync(join(root, file), 'utf8'))) found.push(`${file}: ${line.trim()}`);
  assert.equal(found, []);
});

const PATHS: Array<[string, string, number]> = [
  ['a path', "export const LIST_PATH = '/v1/pets?limit=20';", 1],
  ['a template path', 'const GET_PATH = `/v1/pets/${GET_ID}`;', 1],
  ['a route path', 'server.route({ method: \'GET\', path: "/v1/pets/{petId}" });', 1],
  ['a regular expression', 'const isGet = /^\\/v1\\/pets\\/\\d+$/.test(url);', 1],
  ['the base path alone', "url.replace(/\\/v1$/, '')", 1],
  ['the path from the facts', 'const LIST_PATH = `${BASE_PATH}/pets?limit=20`;', 0],
  ['prose that names it', "help: 'The prefix /pets is appended to: http://127.0.0.1:3000/v1 for the reference server.'", 0],
  ['a longer segment', "const other = '/v10/pets';", 0],
];
for (const [what, text, count] of PATHS) {
  test(`the base-path check ${count ? 'finds' : 'does not flag'} ${what}`, () => assert.is(basePaths(text).length, count));
}

test.run();
