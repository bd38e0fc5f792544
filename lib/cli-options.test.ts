import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  checkOptions,
  helpText,
  markdownTable,
  parseOptions,
  readOptions,
  replaceGenerated,
  type OptionSpec,
  type OptionsChecked,
  type OptionsInput,
} from './cli-options.ts';
import { KitError, UsageError } from './errors.ts';

const SPECS: OptionSpec[] = [
  { key: 'port', flag: 'port', env: 'PORT', type: 'integer', value: '<n>', default: 3000, min: 0, max: 65535, help: 'Port to listen on.' },
  { key: 'quiet', flag: 'quiet', type: 'boolean', default: false, help: 'No request lines.' },
  { key: 'token', flag: 'admin-token', env: 'ADMIN_TOKEN', type: 'string', value: '<t>', secret: true, help: 'Admin token.' },
  { key: 'mode', flag: 'mode', type: 'string', choices: ['a', 'b'], default: 'a', help: 'Mode.' },
  { key: 'checks', flag: 'checks', type: 'list', value: '<ids>', help: 'Checks to run.' },
  { key: 'ratio', flag: 'ratio', type: 'number', value: '<x>', min: 0, max: 1, help: 'A ratio.' },
];

const parsed: Array<[string, string[], NodeJS.ProcessEnv, Record<string, unknown>]> = [
  ['defaults', [], {}, { port: 3000, quiet: false, mode: 'a' }],
  ['a flag wins over the environment', ['--port', '8080'], { PORT: '9090' }, { port: 8080, quiet: false, mode: 'a' }],
  ['the environment fills what flags leave', [], { PORT: '9090', ADMIN_TOKEN: 'secret-token' }, { port: 9090, quiet: false, mode: 'a', token: 'secret-token' }],
  ['an empty variable counts as unset', [], { PORT: '' }, { port: 3000, quiet: false, mode: 'a' }],
  ['lists split on commas and repeat', ['--checks', 'a.b,c.d', '--checks', 'e.f'], {}, { port: 3000, quiet: false, mode: 'a', checks: ['a.b', 'c.d', 'e.f'] }],
  ['booleans and numbers', ['--quiet', '--ratio', '0.25'], {}, { port: 3000, quiet: true, mode: 'a', ratio: 0.25 }],
];
for (const [name, argv, env, expected] of parsed) {
  test(`parseOptions: ${name}`, () => {
    assert.equal(parseOptions(SPECS, argv, env), expected);
  });
}

const refused: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
  ['an unknown flag', ['--nope'], {}, /nope/],
  ['a non-integer port', ['--port', '80a'], {}, /--port must be an integer, not "80a"/],
  ['a port out of range', ['--port', '70000'], {}, /--port must be at most 65535/],
  ['a negative number, by its range', ['--port', '-1'], {}, /--port must be at least 0, not -1/],
  ['a bad variable, named as the variable', [], { PORT: 'x' }, /PORT must be an integer/],
  ['a value outside the choices', ['--mode', 'c'], {}, /--mode must be one of a, b/],
  ['a number that is not one', ['--ratio', 'half'], {}, /--ratio must be a number/],
  ['a positional argument', ['serve'], {}, /serve/],
];
for (const [name, argv, env, message] of refused) {
  test(`parseOptions refuses ${name} with a UsageError`, () => {
    try {
      parseOptions(SPECS, argv, env);
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.instance(error, UsageError);
      assert.instance(error, KitError);
      assert.is((error as UsageError).code, 'usage');
      assert.match((error as Error).message, message);
    }
  });
}

test('a secret value is never echoed in an error', () => {
  const specs: OptionSpec[] = [{ key: 'n', flag: 'n', type: 'integer', secret: true, help: 'x' }];
  assert.throws(
    () => parseOptions(specs, ['--n', 'hunter2']),
    (e: Error) => !e.message.includes('hunter2'),
  );
});

test('help lists every flag with its environment variable and default', () => {
  const text = helpText('Usage: thing [options]', SPECS);
  assert.match(text, /--port <n>\s+Port to listen on\. \(env PORT; default 3000\)/);
  assert.match(text, /--quiet\s+No request lines\.\n/);
  for (const spec of SPECS) assert.ok(text.includes(`--${spec.flag}`), spec.flag);
});

test('the Markdown table has one row per option and escapes pipes', () => {
  const table = markdownTable([...SPECS, { key: 'x', flag: 'x', type: 'string', help: 'a | b' }]);
  assert.is(table.split('\n').length, SPECS.length + 3);
  assert.match(table, /\| `--port <n>` \| `PORT` \| `3000` \| Port to listen on\. \|/);
  assert.match(table, /a \\\| b/);
});

test('replaceGenerated swaps only the marked block, and refuses a document without one', () => {
  const doc = 'before\n<!-- t:start -->\nold\n<!-- t:end -->\nafter\n';
  assert.is(replaceGenerated(doc, 't', 'new'), 'before\n<!-- t:start -->\nnew\n<!-- t:end -->\nafter\n');
  assert.throws(() => replaceGenerated('nothing', 't', 'x'), /no <!-- t:start -->/);
});

const RICH = [
  {
    key: 'url',
    flag: 'url',
    type: 'string',
    required: true,
    env: 'URL',
    help: 'u',
    check: (v: string) => (v.startsWith('http') ? undefined : '--url must be http'),
  },
  { key: 'dredd', flag: 'no-dredd', type: 'boolean', negated: true, default: true, help: 'd' },
  {
    key: 'headers',
    flag: 'header',
    type: 'list',
    whole: true,
    default: {},
    help: 'h',
    convert: (list: readonly string[]) => Object.fromEntries(list.map((h) => h.split(': '))) as Record<string, string>,
  },
  { key: 'ca', flag: 'ca', type: 'string', help: 'c', convert: (file: string, from: string) => `read ${file} for ${from}` },
  { key: 'insecure', flag: 'insecure', type: 'boolean', default: false, help: 'i', excludes: { ca: 'one or the other' } },
] as const satisfies readonly OptionSpec[];

test('read then check: negated flags, whole list values, conversions, required options and their defaults', () => {
  const read = readOptions(RICH, ['--url', 'http://h', '--no-dredd', '--header', 'X-A: 1, 2', '--ca', 'ca.pem'], {});
  assert.equal(read, { url: 'http://h', dredd: false, headers: { 'X-A': '1, 2' }, ca: 'read ca.pem for --ca' });
  assert.equal(checkOptions(RICH, read), { ...read, insecure: false });
  assert.equal(checkOptions(RICH, { url: 'http://h' }), { url: 'http://h', dredd: true, headers: {}, insecure: false });
});

test('the type derived from the table: required keys, defaulted keys, converted values', () => {
  const input: OptionsInput<(typeof RICH)[number]> = { url: 'http://h', headers: { a: 'b' } };
  const checked = checkOptions(RICH, input) as OptionsChecked<(typeof RICH)[number]>;
  const dredd: boolean = checked.dredd;
  const headers: Record<string, string> = checked.headers;
  const ca: string | undefined = checked.ca;
  assert.equal([dredd, headers, ca], [true, { a: 'b' }, undefined]);
});

const refusedByCheck: Array<[string, Record<string, unknown>, RegExp]> = [
  ['a missing required option, naming its variable', {}, /--url is required \(or set URL\)/],
  ["an option's own rule", { url: 'ftp://h' }, /--url must be http/],
  ['a value of the wrong type from code', { url: 'http://h', dredd: 'yes' }, /--no-dredd must be true or false/],
  ['two options that exclude each other', { url: 'http://h', insecure: true, ca: 'x' }, /--insecure and --ca exclude each other: one or the other/],
];
for (const [name, values, message] of refusedByCheck) {
  test(`checkOptions refuses ${name}`, () => {
    assert.throws(
      () => checkOptions(RICH, values),
      (e: Error) => e instanceof UsageError && message.test(e.message),
    );
  });
}

test('options that exclude each other are refused before a conversion runs (it may read a file)', () => {
  let converted = false;
  const specs: OptionSpec[] = [
    { key: 'ca', flag: 'ca', type: 'string', help: 'c', convert: () => (converted = true) },
    { key: 'insecure', flag: 'insecure', type: 'boolean', help: 'i', excludes: { ca: 'no' } },
  ];
  assert.throws(() => readOptions(specs, ['--insecure', '--ca', 'x'], {}), /exclude each other/);
  assert.is(converted, false);
});

test('a value from the environment is refused under its name; a negated flag shows no default', () => {
  assert.throws(() => parseOptions(SPECS, [], { PORT: '70000' }), /PORT must be at most 65535/);
  assert.not.match(helpText('u', RICH), /default true/);
});

test('a value that begins with dashes: taken whole after its flag, or after =', () => {
  const specs: OptionSpec[] = [
    { key: 'extra', flag: 'extra', type: 'string', dashes: true, help: 'e' },
    { key: 'n', flag: 'n', type: 'integer', help: 'n' },
  ];
  assert.equal(readOptions(specs, ['--extra', '--quiet --no-cors', '--n', '2'], {}), { extra: '--quiet --no-cors', n: 2 });
  assert.equal(readOptions(specs, ['--extra=--quiet'], {}), { extra: '--quiet' });
  // Other options keep node's rule: a value that looks like a flag is a missing value.
  assert.throws(() => readOptions(specs, ['--n', '--extra'], {}), /--n/);
});

test.run();
