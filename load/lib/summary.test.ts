import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isBookkeeping, summaryOutputs, tableMetrics, textSummary, thresholdResults, thresholdStat, type SummaryData } from './summary.js';

/** The timeline buckets of a rate-limit.js run: a sub-metric each, kept by an always-true threshold. */
function buckets(n: number): SummaryData['metrics'] {
  const out: SummaryData['metrics'] = {};
  for (let b = 0; b < n; b++)
    out[`ratelimit_tl_admitted{tl:${b}}`] = { type: 'counter', values: { count: 1, rate: 0.1 }, thresholds: { 'count>=0': { ok: true } } };
  return out;
}

const data: SummaryData = {
  state: { testRunDurationMs: 10_000 },
  options: { summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'], summaryTimeUnit: '' },
  root_group: {
    name: '',
    checks: [{ name: 'listPets 200', passes: 9, fails: 1 }],
    groups: [{ name: 'nested', checks: [{ name: 'inner', passes: 2, fails: 0 }], groups: [] }],
  },
  metrics: {
    http_reqs: { type: 'counter', contains: 'default', values: { count: 100, rate: 10 } },
    iterations: { type: 'counter', contains: 'default', values: { count: 50, rate: 5 } },
    data_sent: { type: 'counter', contains: 'data', values: { count: 24_300, rate: 2_430 } },
    http_req_failed: { type: 'rate', contains: 'default', values: { rate: 0.02, passes: 2, fails: 98 }, thresholds: { 'rate<0.01': { ok: false } } },
    http_req_duration: {
      type: 'trend',
      contains: 'time',
      values: { avg: 5, min: 1, med: 4, max: 30, 'p(90)': 9, 'p(95)': 12.3456, 'p(99)': 20 },
      thresholds: { 'p(95)<500': { ok: true } },
    },
    ratelimit_violations: { type: 'counter', contains: 'default', values: { count: 3, rate: 0.3 } },
    'ratelimit_violations{kind:over_admitted}': {
      type: 'counter',
      contains: 'default',
      values: { count: 3, rate: 0.3 },
      thresholds: { 'count==0': { ok: false } },
    },
    'ratelimit_violations{kind:refusal_cacheable}': {
      type: 'counter',
      contains: 'default',
      values: { count: 1, rate: 0.1 },
      thresholds: { 'count>=0': { ok: true } },
    },
    ratelimit_tl_admitted: { type: 'counter', contains: 'default', values: { count: 60, rate: 6 } },
    ...buckets(340),
  },
};

test('thresholdStat finds the statistic an expression reads', () => {
  assert.is(thresholdStat('p(95)<500'), 'p(95)');
  assert.is(thresholdStat('p(99.9) < 1'), 'p(99.9)');
  assert.is(thresholdStat('count==0'), 'count');
  assert.is(thresholdStat('rate>=0.5'), 'rate');
  assert.is(thresholdStat('nonsense'), null);
});

const expressions: Array<[string, boolean]> = [
  ['count>=0', true],
  ['p(95)>=0', true],
  ['max >= 0', true],
  ['rate>=0', true],
  ['count>=1', false],
  ['count==0', false],
  ['p(95)<500', false],
  ['max>=0.5', false],
  ['rate>=-1', false],
];
for (const [expression, bookkeeping] of expressions) {
  test(`${expression} is ${bookkeeping ? 'bookkeeping (it cannot fail)' : 'a threshold that judges the run'}`, () => {
    assert.is(isBookkeeping(expression), bookkeeping);
  });
}

test('thresholdResults lists failures first with what was observed, and marks bookkeeping', () => {
  const rows = thresholdResults(data);
  assert.equal(
    rows.slice(0, 2).map((r) => [r.metric, r.ok, r.observed]),
    [
      ['http_req_failed', false, '2.00%'],
      ['ratelimit_violations{kind:over_admitted}', false, '3'],
    ],
  );
  assert.is(rows.find((r) => r.metric === 'http_req_duration')!.observed, '12.35 ms');
  assert.is(rows.filter((r) => r.bookkeeping).length, 341);
});

test("the text keeps k6's table: checks, trends with their figures, counts and rates, data sent", () => {
  const text = textSummary(data, { title: 'demo' });
  assert.match(text, /^ {5}✗ listPets 200\n {6}↳ {2}90% — ✓ 9 \/ ✗ 1$/m);
  assert.match(text, /^ {5}█ nested\n\n {7}✓ inner$/m);
  assert.match(text, /^ {3}✓ http_req_duration\.+: avg=5ms +min=1ms +med=4ms +max=30ms +p\(90\)=9ms +p\(95\)=12\.34ms *$/m);
  assert.match(text, /^ {3}✗ http_req_failed\.+: 2\.00% ✓ 2 +✗ 98 *$/m);
  assert.match(text, /^ {5}http_reqs\.+: 100 +10\/s$/m);
  assert.match(text, /^ {5}data_sent\.+: 24 kB +2\.4 kB\/s$/m);
  assert.match(text, /^ {5}✗ \{ kind:over_admitted \}\.+: 3 /m);
  assert.match(text, /ran 10\.0 s: 50 iterations, 100 requests \(10\.0\/s\)/);
});

test('thresholds that only keep figures are neither counted nor listed: "2 of 3", not "2 of 344"', () => {
  const text = textSummary(data, { title: 'demo', report: ['crossed 1 window boundary'], jsonPath: 'x.json' });
  assert.match(text, /result: FAIL \(k6 exits 99\): 2 of 3 thresholds failed$/m);
  assert.match(text, /^thresholds: 3 judge the run \(not counted: 341 bookkeeping, which only keep figures for this report\)$/m);
  assert.match(text, /FAIL ratelimit_violations\{kind:over_admitted\} count==0 {2}\(observed 3\)/);
  assert.match(text, /ok {3}http_req_duration p\(95\)<500/);
  assert.not.match(text, /count>=0/);
  assert.not.match(text, /\{ tl:\d+ \}|\{ kind:refusal_cacheable \}/, 'no table row for a sub-metric kept only for bookkeeping');
  assert.match(text, /crossed 1 window boundary/);
  assert.match(text, /JSON summary: x.json/);
});

test('hide leaves out rows and thresholds that hold, never one that failed', () => {
  const hide = (metric: string) => metric.startsWith('ratelimit_') || metric === 'http_req_failed';
  assert.equal(tableMetrics(data, hide).sort(), [
    'data_sent',
    'http_req_duration',
    'http_req_failed',
    'http_reqs',
    'iterations',
    'ratelimit_violations{kind:over_admitted}',
  ]);
  const text = textSummary(data, { title: 't', hide });
  assert.not.match(text, /ratelimit_tl_admitted/);
  assert.match(text, /FAIL http_req_failed rate<0\.01/);
});

test('a bookkeeping threshold that fails is named and said to be the script fault; k6 exits 99 for it', () => {
  const broken: SummaryData = {
    metrics: { 'capacity_vus_busy{scenario:step-50}': { type: 'gauge', values: { value: -1, min: -1, max: -1 }, thresholds: { 'max>=0': { ok: false } } } },
  };
  const text = textSummary(broken, { title: 't' });
  assert.match(text, /FAIL capacity_vus_busy\{scenario:step-50\} max>=0 {2}\(observed -1\) \[bookkeeping\]/);
  assert.match(text, /result: FAIL \(k6 exits 99\): 0 of 0 thresholds failed, and 1 of the 1 bookkeeping ones \(a fault of the script\)/);
  // A Reset before the run began made every bucket's reset negative: three are named, the rest counted.
  const many: SummaryData = { metrics: {} };
  for (let b = 0; b < 40; b++) many.metrics[`ratelimit_tl_reset{tl:${b}}`] = { type: 'trend', values: { max: -5 }, thresholds: { 'max>=0': { ok: false } } };
  const listed = textSummary(many, { title: 't' });
  assert.is(listed.match(/\[bookkeeping\]/g)!.length, 3);
  assert.match(listed, /FAIL \.\.\. and 37 more bookkeeping thresholds/);
  assert.match(listed, /0 of 0 thresholds failed, and 40 of the 40 bookkeeping ones/);
});

test('summaryOutputs writes stdout and the JSON with the verdict, the counts and the raw data', () => {
  const out = summaryOutputs(data, { title: 't', script: 'smoke', jsonPath: 'smoke-summary.json', report: ['r'] });
  assert.equal(Object.keys(out).sort(), ['smoke-summary.json', 'stdout']);
  const json = JSON.parse(out['smoke-summary.json']!);
  assert.is(json.passed, false);
  assert.is(json.failedThresholds.length, 2);
  assert.equal(json.thresholdCounts, { judging: 3, failed: 2, bookkeeping: 341 });
  assert.equal(json.report, ['r']);
  assert.is(json.k6.metrics.http_reqs.values.count, 100);
  const passing = summaryOutputs(
    { metrics: { http_reqs: { type: 'counter', values: { count: 1, rate: 1 }, thresholds: { 'count>0': { ok: true } } } } },
    { title: 't', script: 's', jsonPath: 'p' },
  );
  assert.match(passing.stdout!, /result: PASS/);
});

test.run();
