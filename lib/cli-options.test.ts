import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { helpText, markdownTable, parseOptions, replaceGenerated, type OptionSpec } from './cli-options.ts';
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

test.run();
