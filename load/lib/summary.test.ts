import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summaryOutputs, textSummary, thresholdResults, thresholdStat } from './summary.js';

const data = {
  state: { testRunDurationMs: 10_000 },
  root_group: {
    checks: [{ name: 'listPets 200', passes: 9, fails: 1 }],
    groups: [{ checks: [{ name: 'nested', passes: 2, fails: 0 }] }],
  },
  metrics: {
    http_reqs: { type: 'counter', values: { count: 100, rate: 10 } },
    iterations: { type: 'counter', values: { count: 50, rate: 5 } },
    http_req_failed: { type: 'rate', values: { rate: 0.02 }, thresholds: { 'rate<0.01': { ok: false } } },
    http_req_duration: { type: 'trend', contains: 'time', values: { 'p(95)': 12.3456, 'p(99)': 20 }, thresholds: { 'p(95)<500': { ok: true } } },
    'ratelimit_violations{kind:over_admitted}': { type: 'counter', values: { count: 3 }, thresholds: { 'count==0': { ok: false } } },
    'http_reqs{phase:hold-10}': { type: 'counter', values: { count: 5 }, thresholds: { 'count>=0': { ok: true } } },
  },
};

test('thresholdStat finds the statistic an expression reads', () => {
  assert.is(thresholdStat('p(95)<500'), 'p(95)');
  assert.is(thresholdStat('p(99.9) < 1'), 'p(99.9)');
  assert.is(thresholdStat('count==0'), 'count');
  assert.is(thresholdStat('rate>=0.5'), 'rate');
  assert.is(thresholdStat('nonsense'), null);
});

test('thresholdResults lists failures first with what was observed', () => {
  const rows = thresholdResults(data);
  assert.equal(
    rows.slice(0, 2).map((r) => [r.metric, r.ok, r.observed]),
    [
      ['http_req_failed', false, '2.00%'],
      ['ratelimit_violations{kind:over_admitted}', false, '3'],
    ],
  );
  assert.is(rows.find((r) => r.metric === 'http_req_duration')!.observed, '12.35 ms');
});

test('the text summary says FAIL, names failing checks and thresholds, and hides what it is told to', () => {
  const text = textSummary(data, { title: 'demo', report: ['crossed 1 window boundary'], jsonPath: 'x.json', hide: (m) => m.includes('{phase:') });
  assert.match(text, /== demo ==/);
  assert.match(text, /ran 10.0 s: 50 iterations, 100 requests \(10.0\/s\)/);
  assert.match(text, /checks: 11 passed, 1 failed/);
  assert.match(text, /FAIL listPets 200: 1 of 10/);
  assert.match(text, /FAIL ratelimit_violations\{kind:over_admitted\} count==0 {2}\(observed 3\)/);
  assert.match(text, /crossed 1 window boundary/);
  assert.match(text, /result: FAIL \(k6 exits 99\): 2 of 4 thresholds failed/);
  assert.not.match(text, /hold-10/);
  assert.match(text, /JSON summary: x.json/);
});

test('summaryOutputs writes stdout and the JSON with the verdict beside the raw data', () => {
  const out = summaryOutputs(data, { title: 't', script: 'smoke', jsonPath: 'smoke-summary.json', report: ['r'] });
  assert.equal(Object.keys(out).sort(), ['smoke-summary.json', 'stdout']);
  const json = JSON.parse(out['smoke-summary.json']!);
  assert.is(json.passed, false);
  assert.is(json.failedThresholds.length, 2);
  assert.equal(json.report, ['r']);
  assert.is(json.k6.metrics.http_reqs.values.count, 100);
  const passing = summaryOutputs(
    { metrics: { http_reqs: { values: { count: 1 }, thresholds: { 'count>0': { ok: true } } } } },
    { title: 't', script: 's', jsonPath: 'p' },
  );
  assert.match(passing.stdout!, /result: PASS/);
});

test.run();
