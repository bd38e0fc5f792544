// capacity.js's `next:` line (next-run.js): every option the run was given, then the one it changes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Knee, NextPass, StepVerdict } from './knee.js';
import { CAPACITY_VARIABLES, nextLine, rerunCommand, scriptPathFrom, type Run, type Search } from './next-run.js';
import { parseSegment } from './segments.js';

const step = (rate: number): StepVerdict => ({
  name: `step-${rate}`,
  rate,
  offered: rate,
  achieved: rate,
  errorRate: 0,
  p95: 1,
  p99: 1,
  requestMs: 1,
  slowdown: null,
  dropped: 0,
  ok: true,
  why: '',
  afterKnee: false,
  skipped: false,
  bound: null,
  cause: null,
  k6: '',
});
const knee = (held: number | null, broke: number | null, bound: Knee['bound'] = 'server'): Knee => ({
  rows: [],
  held: held === null ? null : step(held),
  broke: broke === null ? null : step(broke),
  bound: broke === null ? null : bound,
});
const search: Search = {
  mode: 'search',
  rates: [50, 100, 200, 400, 800, 1600],
  startRate: 50,
  steps: 4,
  resolution: 0.1,
  maxVUs: 200,
  loadKey: 'test-load-key',
};
// The issue's run: BASE_URL and MAX_VUS given, and a key that must not be printed.
const ISSUE = { BASE_URL: 'http://10.0.0.5:3000/v1', MAX_VUS: '200', API_KEY: 'sk-live-7f3a', PATH: '/usr/bin', HOME: '/root' };
const run = (env: Record<string, string>, segment: Run['segment'] = null): Run => ({ script: 'load/capacity.js', env, segment });

const lines: Array<[string, NextPass, Knee, Search, Run, string]> = [
  [
    "the issue's run: BASE_URL and MAX_VUS repeated, the key by reference, BETWEEN added",
    { kind: 'refine', between: [800, 1600] },
    knee(800, 1600),
    search,
    run(ISSUE),
    'next: k6 run --no-usage-report -e BASE_URL=http://10.0.0.5:3000/v1 -e API_KEY="$API_KEY" -e MAX_VUS=200 -e BETWEEN=800,1600 load/capacity.js   (narrows the knee in 4 steps)   (API_KEY: the value you gave, not printed)',
  ],
  [
    'a BETWEEN run replaces its BETWEEN and keeps the rest in order',
    { kind: 'refine', between: [1000, 1200] },
    knee(1000, 1200),
    { ...search, mode: 'refine', rates: [50, 800, 1000, 1200, 1400, 1600] },
    run({ HOLD: '30s', BETWEEN: '800,1600', STEPS: '4', MAX_VUS: '1000' }),
    'next: k6 run --no-usage-report -e STEPS=4 -e HOLD=30s -e MAX_VUS=1000 -e BETWEEN=1000,1200 load/capacity.js   (narrows the knee in 4 steps)',
  ],
  [
    'fixed RATES give way to BETWEEN (RATES would win over it)',
    { kind: 'refine', between: [200, 400] },
    knee(200, 400),
    { ...search, mode: 'rates', rates: [100, 200, 400] },
    run({ RATES: '100,200,400' }),
    'next: k6 run --no-usage-report -e BETWEEN=200,400 load/capacity.js   (narrows the knee in 4 steps)',
  ],
  ['a narrow enough gap: the knee, no command', { kind: 'found' }, knee(2500, 2600), search, run(ISSUE), 'knee: between 2500 and 2600 requests/s, within 10%'],
  [
    'nothing broke in a search: MAX_RATE four times the highest rate',
    { kind: 'raise-max' },
    knee(12800, null),
    { ...search, rates: [50, 12800] },
    run({ MAX_VUS: '1000' }),
    'next: nothing broke up to 12800/s; search higher: k6 run --no-usage-report -e MAX_VUS=1000 -e MAX_RATE=51200 load/capacity.js',
  ],
  [
    'nothing broke at fixed rates: one more, twice the highest',
    { kind: 'raise-max' },
    knee(400, null),
    { ...search, mode: 'rates', rates: [100, 200, 400] },
    run({ RATES: '100,200,400', HOLD: '30s' }),
    'next: nothing broke; add a higher rate: k6 run --no-usage-report -e HOLD=30s -e RATES=100,200,400,800 load/capacity.js',
  ],
  [
    'the first step broke: START_RATE a quarter',
    { kind: 'lower-start' },
    knee(null, 50),
    search,
    run({ BASE_URL: 'http://10.0.0.5:3000/v1' }),
    'next: the first step broke on the server; lower START_RATE: k6 run --no-usage-report -e BASE_URL=http://10.0.0.5:3000/v1 -e START_RATE=12 load/capacity.js',
  ],
  [
    'the key bound: the load key instead of the one given, the rest repeated',
    { kind: 'key' },
    knee(null, 400, 'key'),
    search,
    run(ISSUE),
    'next: the key, not the server, was measured; run again with a key whose limits do not bind (test-load-key on the reference server): k6 run --no-usage-report -e BASE_URL=http://10.0.0.5:3000/v1 -e MAX_VUS=200 -e API_KEY=test-load-key load/capacity.js',
  ],
  [
    'the generator ran out of VUs: MAX_VUS doubled',
    { kind: 'generator', cause: 'vus' },
    knee(800, 1600, 'generator'),
    search,
    run({ BASE_URL: 'http://10.0.0.5:3000/v1', MAX_VUS: '200' }),
    'next: the generator ran out of VUs, not the server; give it more: k6 run --no-usage-report -e BASE_URL=http://10.0.0.5:3000/v1 -e MAX_VUS=400 load/capacity.js',
  ],
  [
    "the generator's CPU: the same run split over two processes",
    { kind: 'generator', cause: 'cpu' },
    knee(800, 1600, 'generator'),
    search,
    run({ BASE_URL: 'http://10.0.0.5:3000/v1' }),
    'next: the generator, not the server, was measured; split the run over two k6 processes, started together (load/README.md, "Many generators"): k6 run --no-usage-report --execution-segment 0:1/2 --execution-segment-sequence 0,1/2,1 -e BASE_URL=http://10.0.0.5:3000/v1 load/capacity.js   and the same with --execution-segment 1/2:1 on the other, then npm run load:merge',
  ],
  [
    'a generator of a split run repeats its segment',
    { kind: 'refine', between: [800, 1600] },
    knee(800, 1600),
    search,
    run({ SUMMARY_DIR: 'out dir' }, parseSegment('1/2:1', '0,1/2,1')),
    "next: k6 run --no-usage-report --execution-segment 1/2:1 --execution-segment-sequence 0,1/2,1 -e SUMMARY_DIR='out dir' -e BETWEEN=800,1600 load/capacity.js   (narrows the knee in 4 steps)",
  ],
];
for (const [name, next, k, s, r, expected] of lines) {
  test(`nextLine: ${name}`, () => {
    const line = nextLine(next, k, s, r);
    assert.is(line, expected);
    assert.not.match(line, /sk-live|PATH=|HOME=/, 'no secret and no variable the script does not read');
  });
}

test('rerunCommand quotes what a shell would split or expand, and leaves blank variables out', () => {
  assert.is(
    rerunCommand(run({ BASE_URL: "http://h/v1?a=1&b='x'", HOLD: ' ', P95_MS: '100' }), CAPACITY_VARIABLES),
    "k6 run --no-usage-report -e BASE_URL='http://h/v1?a=1&b='\\''x'\\''' -e P95_MS=100 load/capacity.js",
  );
  assert.is(rerunCommand(run({ MAX_VUS: '5' }), CAPACITY_VARIABLES, { MAX_VUS: null }), 'k6 run --no-usage-report load/capacity.js', 'null removes a variable');
});

// Issue 39: run from the installed package, the `next:` line named load/capacity.js, which is not
// there (k6 exited 255). The script's own path comes from a stack trace taken in it.
const PATHS: Array<[string, string | undefined, string | undefined, string]> = [
  [
    'k6 v0.47, run from the package folder',
    'Error\n\tat file:///proj/node_modules/adoption-store-kit/load/capacity.js:60:15(42)\n',
    '/proj',
    'node_modules/adoption-store-kit/load/capacity.js',
  ],
  ['k6 v0.47, run from the repository', 'Error\n\tat file:///work/kit/load/capacity.js:60:15(42)\n', '/work/kit/', 'load/capacity.js'],
  [
    'run from another folder: absolute',
    'Error\n\tat file:///proj/node_modules/adoption-store-kit/load/capacity.js:60:15(42)\n',
    '/tmp',
    '/proj/node_modules/adoption-store-kit/load/capacity.js',
  ],
  ['no PWD (k6 without the system environment): absolute', 'Error\n\tat file:///proj/load/capacity.js:60:15(42)\n', undefined, '/proj/load/capacity.js'],
  ['a folder with a space (as k6 v0.47 printed it)', 'Error\n\tat file:///tmp/k6m/sp%20ace/load/x.js:2:10(23)\n', '/tmp/k6m', 'sp ace/load/x.js'],
  ['a sibling folder sharing a prefix is not below', 'Error\n\tat file:///proj2/load/capacity.js:1:1(1)\n', '/proj', '/proj2/load/capacity.js'],
  ['Node under the shim (a query after the file)', 'Error\n    at file:///work/kit/load/capacity.js?run=3:60:15\n', '/work/kit', 'load/capacity.js'],
  ['Windows', 'Error\n\tat file:///C:/proj/load/capacity.js:60:15(42)\n', undefined, 'C:/proj/load/capacity.js'],
  ['no file in the trace', 'Error\n\tat <eval>:1:1\n', '/proj', 'load/capacity.js'],
  ['no trace', undefined, '/proj', 'load/capacity.js'],
];
for (const [what, stack, pwd, path] of PATHS) test(`scriptPathFrom: ${what}`, () => assert.is(scriptPathFrom(stack, pwd, 'load/capacity.js'), path));

test.run();
