import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CASE_IDS, DEFAULT_CASES, OPTIONAL_CASES } from './cases.ts';
import { UsageError } from '../lib/errors.ts';
import { BENCH_OPTIONS, HELP, parseBenchOptions as parseOptions } from './options.ts';

test('no arguments: the defaults, every case but the optional store-size ones, 32 connections', () => {
  const options = parseOptions([]);
  const defaults = Object.fromEntries(BENCH_OPTIONS.filter((o) => o.default !== undefined).map((o) => [o.key, o.default]));
  assert.equal(options, { ...defaults, cases: [...DEFAULT_CASES], referenceFlags: [], referenceNodeFlags: [] });
  assert.equal([options.duration, options.warmup, options.rounds, options.keep, options.help], [10, 3, 3, false, false]);
  assert.is(options.json, undefined);
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
  // The proxy case runs after the others whatever its place in the list.
  [['--cases', 'proxy,ref-list'], { cases: ['ref-list', 'proxy'] }],
  [['--cases', 'proxy'], { cases: ['proxy'], proxyRounds: 4, proxyDuration: 15, proxyConnections: ['32', '128'] }],
  [['--proxy-rounds', '2', '--proxy-duration', '1', '--proxy-connections', '4,64'], { proxyRounds: 2, proxyDuration: 1, proxyConnections: ['4', '64'] }],
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
  [['--reference-flags=--quiet', '--rounds', '2'], { referenceFlags: ['--quiet'], rounds: 2 }],
  [['--reference-flags', '--no-rate-limit', '--keep'], { referenceFlags: ['--no-rate-limit'], keep: true }],
];
for (const [argv, expected] of accepted) {
  test(`accepts ${argv.join(' ')}`, () => {
    const options = parseOptions(argv);
    for (const [key, value] of Object.entries(expected)) assert.equal(options[key as keyof typeof options], value, key);
  });
}

// Messages come from the one table (lib/cli-options), as for every command of the kit.
const refused: Array<[string[], RegExp]> = [
  [['--duration'], /'--duration <value>' argument missing/],
  [['--duration', '--rounds'], /--duration.*ambiguous/s],
  [['--duration', '0'], /--duration must be at least 1, not 0/],
  // wrk runs whole seconds only.
  [['--duration', '2.5'], /--duration must be an integer, not "2\.5"/],
  [['--warmup', '-1'], /--warmup must be at least 0, not -1/],
  [['--connections', '1.5'], /--connections must be an integer/],
  [['--rounds', '0'], /--rounds must be at least 1/],
  [['--cases', 'ref-list,bogus'], /unknown case\(s\): bogus/],
  [['--cases', ','], /at least one case/],
  [['--proxy-connections', '32,0'], /--proxy-connections needs whole numbers of at least 1, not 32,0/],
  [['--proxy-connections', '1.5'], /--proxy-connections needs whole numbers/],
  [['--proxy-duration', '0'], /--proxy-duration must be at least 1/],
  [['--generator', 'ab'], /--generator must be one of auto, wrk, autocannon/],
  [['--json'], /'--json <value>' argument missing/],
  [['--results'], /'--results <value>' argument missing/],
  [['--reference-flags'], /'--reference-flags <value>' argument missing/],
  [['--reference-flags', ' '], /--reference-flags needs a value/],
  [['--frobnicate'], /Unknown option '--frobnicate'/],
  [['extra'], /extra/],
];
for (const [argv, message] of refused) {
  test(`refuses ${argv.join(' ')} with a UsageError`, () => {
    assert.throws(
      () => parseOptions(argv),
      (e: Error) => e instanceof UsageError && message.test(e.message),
    );
  });
}

test('the help says how to pass a value that begins with dashes', () => {
  assert.match(HELP, /--reference-flags=--quiet/);
});

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
    '--proxy-rounds',
    '--proxy-duration',
    '--proxy-connections',
  ])
    assert.ok(HELP.includes(flag), flag);
  for (const id of [...CASE_IDS, 'proxy']) assert.ok(HELP.includes(id), id);
});

test.run();
