// The contract's facts are read from it (or from spec/rules/contract.js and spec/contract-types.ts,
// generated from it), never written again in code: a restated copy is how the parts came to
// disagree. Tests may state the facts they check; code may not.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEPRECATIONS, OPERATIONS, PET_STATUSES, PLAN_LIMITS, REFUSAL_CODES } from '../spec/rules/contract.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const code = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.js', '*.cjs', '*.mjs'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !/\.test\.ts$|\.d\.ts$|^spec\/rules\/contract\.js$|^spec\/contract-types\.ts$|^spec\/rules\/recorded\.ts$|^node_modules\//.test(f));

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

test.run();
