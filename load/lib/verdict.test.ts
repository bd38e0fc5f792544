// rate-limit.js's verdict: every broken rule and event becomes one sample of the metric its
// threshold reads (the thresholds themselves: thresholds.test.ts), and the report names each.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KINDS, createJudge, outcomeSamples, reportLines, violationKey, violationLine, zeroSamples } from './verdict.js';

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

test('reportLines: what was seen, rules broken, the ban, and why k6 warned about one VU', () => {
  const counts: Record<string, number> = {
    ratelimit_admitted: 120,
    ratelimit_rejected: 30,
    ratelimit_window_crossed: 2,
    ratelimit_ban_detected: 1,
    ratelimit_ban_confirmed: 2,
    ratelimit_ban_held_past_reset: 2,
    ratelimit_ban_lifted: 1,
    dropped_iterations: 4,
  };
  const lines = reportLines((m) => counts[m] ?? 0, { strict: false, ban: true });
  assert.match(lines[0]!, /^admitted 120, refused with 429 30, no response 0$/);
  assert.match(lines[1]!, /^crossed 2 window boundaries/);
  assert.ok(lines.includes('no rate-limit rule was broken'));
  assert.ok(
    lines.some((l) =>
      /ban detected 1, enforced on 2 request\(s\) while it lasted, 2 of them after the window it began in had ended; lifted when Retry-After said: yes/.test(l),
    ),
  );
  assert.ok(lines.some((l) => /"Insufficient VUs, reached 1 active VUs" is expected: .* 4 scheduled wake-ups/.test(l)));
  const broken = reportLines((m) => (m === violationKey('over_admitted') ? 3 : 0), { strict: false, ban: false });
  assert.ok(broken.some((l) => l.startsWith('violation over_admitted x3')));
  assert.not.ok(broken.some((l) => /ban scenario|Insufficient VUs|no rate-limit rule/.test(l)));
});

// Issue 39: against Prism (no limit) the note said "the saturated windows above show the limit was
// still exceeded" with 0 windows saturated.
const DROPPED: Array<[number, RegExp, RegExp | null]> = [
  [0, /no window was saturated, so this run did not show that the limit was still reached\)$/, /saturated windows? above/],
  [1, /\(the 1 saturated window above shows the limit was still reached\)$/, null],
  [3, /\(the 3 saturated windows above show the limit was still reached\)$/, null],
];
for (const [saturated, says, never] of DROPPED) {
  test(`reportLines: the note on missed wake-ups with ${saturated} saturated window(s)`, () => {
    const counts: Record<string, number> = { dropped_iterations: 5, ratelimit_window_saturated: saturated };
    const line = reportLines((m) => counts[m] ?? 0, { strict: false, ban: false }).find((l) => /Insufficient VUs/.test(l))!;
    assert.match(line, says);
    if (never) assert.not.match(line, never);
  });
}

test.run();
