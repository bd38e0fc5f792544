// rate-limit.js's verdict: must-level rules fail the run, should-level ones only with STRICT=1, and
// every broken rule and event becomes one sample of the metric its threshold reads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RULES } from '../../spec/rules/rules.js';
import { KINDS, WARNING_ONLY, createJudge, outcomeSamples, violationKey, violationLine, violationThresholds, zeroSamples } from './verdict.js';

for (const strict of [false, true]) {
  test(`violationThresholds(strict=${strict}): a threshold per kind, count==0 where the kind fails the run`, () => {
    const thresholds = violationThresholds({ strict });
    assert.equal(Object.keys(thresholds).sort(), KINDS.map(violationKey).sort());
    for (const kind of KINDS) {
      const fails = RULES[kind].level === 'must' || strict;
      assert.equal(thresholds[violationKey(kind)], [fails ? 'count==0' : WARNING_ONLY], kind);
    }
  });
}

test('every broken rule and event is one sample; zeroSamples covers every kind and event', () => {
  const samples = outcomeSamples({ violations: [{ kind: 'over_admitted' }, { kind: 'over_admitted' }], events: ['window_crossed'] });
  assert.equal(samples, [
    { metric: 'ratelimit_violations', value: 1, tags: { kind: 'over_admitted' } },
    { metric: 'ratelimit_violations', value: 1, tags: { kind: 'over_admitted' } },
    { metric: 'ratelimit_window_crossed', value: 1, tags: {} },
  ]);
  const zeros = zeroSamples();
  for (const kind of KINDS)
    assert.ok(
      zeros.some((s) => s.tags.kind === kind && s.value === 0),
      kind,
    );
});

test('the judge reads k6 responses (Go-cased headers) with the clock skew it is given', () => {
  const judge = createJudge({ expectedLimit: 3, clockSkewSeconds: 5 });
  assert.is(judge.tolerances.clockSkewSeconds, 5);
  const headers = { 'X-Ratelimit-Limit': '60', 'X-Ratelimit-Remaining': '59', 'X-Ratelimit-Reset': '1800000060' };
  const judged = judge.observe([{ status: 200, headers, receivedAtMs: 1_800_000_001_000 }]);
  assert.is(judged.snapshots[0]!.limit, 60);
  assert.equal(
    judged.outcome.violations.map((v) => v.kind),
    ['limit_mismatch'],
  );
  assert.equal(judged.samples[0], { metric: 'ratelimit_violations', value: 1, tags: { kind: 'limit_mismatch' } });
});

test('a should-level kind says in the summary whether it failed the run', () => {
  assert.match(violationLine('refusal_cacheable', 2, false), /x2 \(should: a warning; STRICT=1 fails the run\)/);
  assert.match(violationLine('refusal_cacheable', 2, true), /\(should, STRICT=1\)/);
  assert.not.match(violationLine('over_admitted', 1, false), /should/);
});

test.run();
