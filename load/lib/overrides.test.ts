import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { k6Override, optionSeconds, overrideFlags, overrideReport, rateLimitOverrideRefusal, runLength } from './overrides.js';

const SECONDS: Array<[unknown, number | null]> = [
  ['5s', 5],
  ['1m30s', 90],
  ['1h0m0s', 3600],
  ['500ms', 0.5],
  ['1.5s', 1.5],
  [2500, 2.5],
  ['', null],
  ['5 s', null],
  ['soon', null],
  [null, null],
];
for (const [value, seconds] of SECONDS) test(`optionSeconds(${JSON.stringify(value)}) is ${seconds}`, () => assert.is(optionSeconds(value), seconds));

// exec.test.options.scenarios as k6 v0.47 gives them (recorded with --vus 2 --iterations 2).
const CASES: Array<[string, Record<string, unknown> | null, ReturnType<typeof k6Override>]> = [
  ['the script’s own scenarios', { smoke: { executor: 'constant-arrival-rate', rate: 30 } }, null],
  ['no scenarios at all', null, null],
  [
    '--vus 2 --iterations 2',
    {
      default: {
        executor: 'shared-iterations',
        startTime: null,
        gracefulStop: null,
        env: null,
        exec: null,
        tags: null,
        vus: 2,
        iterations: 2,
        maxDuration: null,
      },
    },
    { executor: 'shared-iterations', vus: 2, durationS: null, iterations: 2 },
  ],
  [
    '--vus 1 --duration 5s',
    { default: { executor: 'constant-vus', vus: 1, duration: '5s' } },
    { executor: 'constant-vus', vus: 1, durationS: 5, iterations: null },
  ],
  [
    '--duration 10s alone (one VU)',
    { default: { executor: 'constant-vus', vus: null, duration: '10s' } },
    { executor: 'constant-vus', vus: 1, durationS: 10, iterations: null },
  ],
  [
    '--stages 5s:3,10s:1',
    {
      default: {
        executor: 'ramping-vus',
        startVUs: 1,
        stages: [
          { duration: '5s', target: 3 },
          { duration: '10s', target: 1 },
        ],
      },
    },
    { executor: 'ramping-vus', vus: 3, durationS: 15, iterations: null },
  ],
];
for (const [what, scenarios, expected] of CASES) test(`k6Override: ${what}`, () => assert.equal(k6Override({ scenarios }), expected));

test('overrideFlags names the options as typed', () => {
  assert.is(overrideFlags({ executor: 'constant-vus', vus: 1, durationS: 5, iterations: null }), '--vus 1 --duration 5s');
  assert.is(overrideFlags({ executor: 'shared-iterations', vus: 2, durationS: null, iterations: 3 }), '--vus 2 --iterations 3');
});

const OBJECTIVE = { p95Ms: 250, p99Ms: 500, maxErrorRate: 0.01 };
const TWO = { executor: 'constant-vus', vus: 2, durationS: 5, iterations: null };
const REPORTS: Array<[string, { ratePerS: number; errorRate: number; p95Ms: number; p99Ms: number }, RegExp]> = [
  [
    'a run within the objective',
    { ratePerS: 812.34, errorRate: 0, p95Ms: 3.1, p99Ms: 5.2 },
    /achieved 812\.3 requests\/s, errors 0\.00%, p95 3\.1 ms, p99 5\.2 ms: within the objective/,
  ],
  ['a slow run', { ratePerS: 40, errorRate: 0, p95Ms: 300, p99Ms: 400 }, /a step would break: p95 300\.0 ms over 250 ms$/],
  ['a failing run', { ratePerS: 40, errorRate: 0.5, p95Ms: 1, p99Ms: 900 }, /a step would break: errors 50\.00% over 1\.00%, p99 900\.0 ms over 500 ms$/],
];
for (const [what, run, line] of REPORTS) {
  test(`overrideReport: ${what}`, () => {
    const report = overrideReport(TWO, run, OBJECTIVE);
    assert.match(report[0]!, /^k6's --vus 2 --duration 5s replaced the search: no steps, no knee; 2 VUs sent requests back to back$/);
    assert.match(report[1]!, line);
    assert.match(report[2]!, /^next: .*without --vus, --duration and --iterations/);
  });
}

const one = { executor: 'constant-vus', vus: 1, durationS: 20, iterations: null };
const REFUSALS: Array<[string, NonNullable<ReturnType<typeof k6Override>>, boolean, RegExp | null]> = [
  ['one VU for a duration', one, false, null],
  ['more than one VU', { ...one, vus: 200 }, false, /split them between 200 VUs.*CLIENTS=128 for that many/],
  ['BAN=1', one, true, /^BAN=1 runs a second scenario.*--vus 1 --duration 20s/],
];
for (const [what, o, ban, message] of REFUSALS) {
  test(`rate-limit.js under k6's own options, ${what}: ${message ? 'refused' : 'runs'}`, () => {
    const refused = rateLimitOverrideRefusal(o, { ban, maxClients: 128 });
    if (message === null) assert.is(refused, null);
    else assert.match(String(refused), message);
  });
}

const LENGTHS: Array<[string, ReturnType<typeof k6Override>, ReturnType<typeof runLength>]> = [
  ['its own DURATION', null, { durationS: 150, said: undefined }],
  ['--duration', one, { durationS: 20, said: { option: '--duration' } }],
  [
    '--iterations: 90 wake-ups of 2 clients at 360 a minute',
    { ...one, durationS: null, iterations: 90 },
    { durationS: 30, said: { option: '--iterations', iterations: 90 } },
  ],
];
for (const [what, o, expected] of LENGTHS)
  test(`rate-limit.js's run length with ${what}`, () => assert.equal(runLength(o, { durationS: 150, clients: 2, offeredPerMinute: 360 }), expected));

test.run();
