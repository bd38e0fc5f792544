// The contract's facts are read from it (or from spec/rules/contract.js, generated from it), never
// written again in code: a restated copy is how the parts came to disagree. Tests may state the
// facts they check; code may not.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEPRECATIONS, PET_STATUSES, PLAN_LIMITS } from '../spec/rules/contract.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const code = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.js', '*.cjs', '*.mjs'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !/\.test\.ts$|\.d\.ts$|^spec\/rules\/contract\.js$|^spec\/rules\/recorded\.ts$|^node_modules\//.test(f));

/** Literal spellings of the facts: the status list, each plan's numbers, the sunset day. */
const FACTS: Array<[string, RegExp]> = [
  ['the PetStatus list', new RegExp(PET_STATUSES.map((s) => `['"]${s}['"]`).join('\\s*,\\s*'))],
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

test('the check can fail: it finds a restated status list', () => {
  assert.ok(FACTS[0]![1].test("const STATUSES = ['available', 'pending', 'sold'];"));
});

test.run();
