import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CASE_IDS, DEFAULT_CASES, OPTIONAL_CASES } from './cases.ts';
import { DEFAULTS, HELP, parseOptions } from './options.ts';

test('no arguments: the defaults, every case but the optional store-size ones, 32 connections', () => {
  const options = parseOptions([]);
  assert.equal(options, { ...DEFAULTS, cases: [...DEFAULT_CASES], referenceFlags: [], referenceNodeFlags: [] });
  assert.is(options.connections, 32);
  assert.is(options.generator, 'auto');
  assert.ok(options.pin);
  for (const id of OPTIONAL_CASES) assert.not.ok(options.cases.includes(id), id);
  for (const id of ['null', 'ref-list', 'ref-get', 'json-list', 'ref-post', 'pg-post', 'workers-list', 'list-100k'] as const)
    assert.ok(options.cases.includes(id), id);
});

const accepted: Array<[string[], Partial<ReturnType<typeof parseOptions>>]> = [
  [['--duration', '2'], { duration: 2 }],
  [['--duration=7'], { duration: 7 }],
  [['--warmup', '0'], { warmup: 0 }],
  [['--connections', '8'], { connections: 8 }],
  [['--rounds', '5'], { rounds: 5 }],
  [['--cases', 'node-list,ref-list'], { cases: ['ref-list', 'node-list'] }],
  [['--cases', ' hapi-get , prism-get '], { cases: ['hapi-get', 'prism-get'] }],
  [['--cases', 'all'], { cases: [...CASE_IDS] }],
  [['--generator', 'autocannon'], { generator: 'autocannon' }],
  [['--generator=wrk'], { generator: 'wrk' }],
  [['--json', 'out/bench.json'], { json: 'out/bench.json' }],
  [['--results', 'bench/RESULTS.md'], { results: 'bench/RESULTS.md' }],
  [['--redis', 'redis://127.0.0.1:6380'], { redisUrl: 'redis://127.0.0.1:6380' }],
  [['--database', 'postgres://u@db:5432/postgres'], { databaseUrl: 'postgres://u@db:5432/postgres' }],
  [['--cpu-prof', 'prof'], { cpuProf: 'prof' }],
  [['--no-pin'], { pin: false }],
  [['--keep'], { keep: true }],
  [['--help'], { help: true }],
  [['-h'], { help: true }],
  [['--reference-flags', '--quiet --no-cors'], { referenceFlags: ['--quiet', '--no-cors'] }],
  [['--reference-node-flags', '--max-semi-space-size=4  --no-opt'], { referenceNodeFlags: ['--max-semi-space-size=4', '--no-opt'] }],
];
for (const [argv, expected] of accepted) {
  test(`accepts ${argv.join(' ')}`, () => {
    const options = parseOptions(argv);
    for (const [key, value] of Object.entries(expected)) assert.equal(options[key as keyof typeof options], value, key);
  });
}

const refused: Array<[string[], RegExp]> = [
  [['--duration'], /--duration needs a value/],
  [['--duration', '--rounds'], /--duration needs a value/],
  [['--duration', '0'], /--duration must be a whole number > 0/],
  // wrk runs whole seconds only.
  [['--duration', '2.5'], /--duration must be a whole number > 0/],
  [['--warmup', '-1'], /--warmup must be a whole number >= 0/],
  [['--connections', '1.5'], /--connections must be a whole number > 0/],
  [['--rounds', '0'], /--rounds must be a whole number > 0/],
  [['--cases', 'ref-list,bogus'], /unknown case\(s\): bogus/],
  [['--cases', ','], /at least one case/],
  [['--generator', 'ab'], /--generator must be wrk, autocannon or auto/],
  [['--json'], /--json needs a value/],
  [['--results'], /--results needs a value/],
  [['--reference-flags'], /--reference-flags needs a value/],
  [['--frobnicate'], /unknown option "--frobnicate"/],
];
for (const [argv, message] of refused) {
  test(`refuses ${argv.join(' ')}`, () => {
    assert.throws(() => parseOptions(argv), message);
  });
}

test('the help text names every option and every case', () => {
  for (const flag of [
    '--duration',
    '--warmup',
    '--connections',
    '--rounds',
    '--cases',
    '--generator',
    '--json',
    '--results',
    '--redis',
    '--database',
    '--cpu-prof',
    '--no-pin',
    '--keep',
    '--reference-flags',
    '--reference-node-flags',
  ])
    assert.ok(HELP.includes(flag), flag);
  for (const id of CASE_IDS) assert.ok(HELP.includes(id), id);
});

test.run();
