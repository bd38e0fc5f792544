import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CASE_IDS } from './cases.ts';
import { DEFAULTS, HELP, parseOptions } from './options.ts';

test('no arguments: the defaults, every case', () => {
  const options = parseOptions([]);
  assert.equal(options, { ...DEFAULTS, cases: [...CASE_IDS], referenceOptions: {}, referenceNodeFlags: [] });
  assert.is(options.connections, 64);
  assert.ok(options.pin);
});

const accepted: Array<[string[], Partial<ReturnType<typeof parseOptions>>]> = [
  [['--duration', '2.5'], { duration: 2.5 }],
  [['--duration=7'], { duration: 7 }],
  [['--warmup', '0'], { warmup: 0 }],
  [['--connections', '8'], { connections: 8 }],
  [['--rounds', '5'], { rounds: 5 }],
  [['--cases', 'node,ref-get'], { cases: ['ref-get', 'node'] }],
  [['--cases', ' hapi , prism '], { cases: ['hapi', 'prism'] }],
  [['--json', 'out/bench.json'], { json: 'out/bench.json' }],
  [['--redis', 'redis://127.0.0.1:6380'], { redisUrl: 'redis://127.0.0.1:6380' }],
  [['--cpu-prof', 'prof'], { cpuProf: 'prof' }],
  [['--no-pin'], { pin: false }],
  [['--keep'], { keep: true }],
  [['--help'], { help: true }],
  [['-h'], { help: true }],
  [['--reference-options', '{"logger":false}'], { referenceOptions: { logger: false } }],
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
  [['--duration', '0'], /--duration must be a number > 0/],
  [['--duration', 'ten'], /--duration must be a number > 0/],
  [['--warmup', '-1'], /--warmup must be a number >= 0/],
  [['--connections', '1.5'], /--connections must be a whole number > 0/],
  [['--rounds', '0'], /--rounds must be a whole number > 0/],
  [['--cases', 'ref-get,bogus'], /unknown case\(s\): bogus/],
  [['--cases', ','], /at least one case/],
  [['--json'], /--json needs a value/],
  [['--reference-options', '[1]'], /must be a JSON object/],
  [['--reference-options', '{nope'], /must be a JSON object/],
  [['--frobnicate'], /unknown option "--frobnicate"/],
];
for (const [argv, message] of refused) {
  test(`refuses ${argv.join(' ')}`, () => {
    assert.throws(() => parseOptions(argv), message);
  });
}

test('the help text names every option and every case', () => {
  for (const flag of ['--duration', '--warmup', '--connections', '--rounds', '--cases', '--json', '--redis', '--cpu-prof', '--no-pin', '--keep'])
    assert.ok(HELP.includes(flag), flag);
  for (const id of CASE_IDS) assert.ok(HELP.includes(id), id);
});

test.run();
