// The window rules against recorded header sequences: a correct fixed-window limiter breaks none,
// each flawed one breaks exactly the rules it names; batches, lost requests, clocks and bans.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CORRECT, SEQUENCES, T0, W1, W2, httpDate, lost, no, ok } from '../../spec/rules/testing/recorded.ts';
import { readSnapshot, type RecordedResponse } from '../../spec/rules/snapshot.js';
import { RULES } from './rules.js';
import { createWindowRules } from './window-rules.js';

/** Plays responses through the rules; an array in the list is one batch. */
function play(sequence: Array<RecordedResponse | RecordedResponse[]>, opts: { expectedLimit?: number; dateHeader?: boolean } = {}) {
  const rules = createWindowRules({ expectedLimit: opts.expectedLimit ?? null });
  const broken: string[] = [];
  const events: Record<string, number> = {};
  const notes: string[] = [];
  for (const step of sequence) {
    const batch = (Array.isArray(step) ? step : [step]).map((r) => readSnapshot(r, { dateHeader: opts.dateHeader !== false }));
    const out = rules.observe(batch);
    for (const v of out.violations) broken.push(v.kind);
    for (const e of out.events) events[e] = (events[e] ?? 0) + 1;
    notes.push(...out.notes);
  }
  return { broken, events, notes, report: rules.report(), rules };
}

const unique = (kinds: string[]) => [...new Set(kinds)].sort();

for (const sequence of SEQUENCES) {
  test(`${sequence.name}: breaks ${sequence.broken.join(', ') || 'nothing'}`, () => {
    assert.equal(unique(play(sequence.responses).broken), [...sequence.broken].sort());
  });
}

test('a correct limiter: every window crossing seen, and the window seen from start to end verified', () => {
  const r = play(CORRECT);
  assert.is(r.events.window_crossed, 2);
  assert.is(r.events.window_saturated, 3);
  assert.is(r.events.readmitted, 2);
  assert.is(r.events.window_verified, 1, 'the first window was joined part-way, the second seen whole');
  assert.is(r.events.admitted, 9);
  assert.is(r.events.rejected, 3);
  assert.ok(
    r.notes.some((n) => /window boundary crossed: Reset 1800000060 -> 1800000120/.test(n)),
    r.notes.join('\n'),
  );
});

const more: Array<[string, Array<RecordedResponse | RecordedResponse[]>, string[], number?]> = [
  [
    'over-admits under concurrency: the same Remaining twice in one batch',
    [ok(1, 2, W1), [ok(2, 1, W1), ok(2, 1, W1), ok(2, 0, W1)], no(3, W1, '57')],
    ['over_admitted', 'remaining_not_decremented'],
  ],
  [
    'a fresh window that starts where the old one ended',
    [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'), no(60, W2, '60')],
    ['not_readmitted', 'under_admitted'],
  ],
  ['Reset goes back', [ok(1, 2, W2), ok(2, 1, W1)], ['reset_moved']],
  [
    // The library server's minute-then-day build (conformance/testing/library-server): admissions show the
    // day window, refusals and the ban the minute's. An admission within the rounding second before the
    // ban's end ends it, and counts in the day window.
    'the headers describe the day window, a ban the minute window; admitted within the second before the ban ends (readings scope.day, retry_after.rounded-up)',
    [
      ok(1, 998, T0 + 86400, { limit: 1000 }),
      ok(2, 997, T0 + 86400, { limit: 1000 }),
      no(3, W1, '57', 0, { limit: 60 }),
      no(4, W1, '56', 0, { limit: 60 }),
      no(5, T0 + 90, '85', 0, { limit: 60 }),
      ok(89.5, 996, T0 + 86400, { limit: 1000 }),
      ok(90, 995, T0 + 86400, { limit: 1000 }),
      ok(91, 994, T0 + 86400, { limit: 1000 }),
    ],
    [],
  ],
  ['Retry-After far shorter than the time to Reset', [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '5')], ['retry_after_early']],
  [
    'Retry-After as an HTTP-date before Reset',
    [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, httpDate(T0 + 20))],
    ['retry_after_early', 'retry_after_form'],
  ],
  ['a Limit other than the plan says', [ok(1, 2, W1)], ['limit_mismatch'], 60],
  [
    'a batch answered concurrently, judged in the order a correct limiter served it',
    [
      [ok(1, 0, W1), ok(1, 2, W1), no(1, W1, '59'), ok(1, 1, W1)],
      [ok(60, 1, W2), ok(60, 2, W2)],
    ],
    [],
  ],
  [
    'a sliding window: each slot frees 60 s after its request, Reset names the oldest',
    [
      ok(1, 2, T0 + 61),
      ok(11, 1, T0 + 61),
      ok(21, 0, T0 + 61),
      no(31, T0 + 61, '30'),
      ok(61, 0, T0 + 71),
      no(62, T0 + 71, '9'),
      ok(71, 0, T0 + 81),
      ok(81, 0, T0 + 121),
      ok(200, 2, T0 + 260),
    ],
    [],
  ],
  [
    'a sliding window that forgets the requests still counting in it',
    [ok(1, 2, T0 + 61), ok(11, 1, T0 + 61), ok(21, 0, T0 + 61), no(31, T0 + 61, '30'), ok(61, 2, T0 + 71)],
    ['remaining_not_reset'],
  ],
  ['answers of a batch arriving in any order', [[no(2, W1, '58'), ok(2, 0, W1), ok(2, 2, W1), no(2, W1, '58'), ok(2, 1, W1)]], []],
  ['a batch that straddles the boundary is split by Reset', [ok(55, 2, W1), ok(56, 1, W1), [ok(59, 0, W1), ok(60, 2, W2)]], []],
  ['Reset moving by a rounding second is not moving', [ok(1, 2, W1), ok(2, 1, W1 + 1), ok(3, 0, W1), no(4, W1 + 1, '57')], []],
  [
    'ordinary 429s across a window reset are no ban',
    [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'), no(30, W1, '30'), ok(60, 2, W2), ok(61, 1, W2), ok(62, 0, W2), no(63, W2, '57')],
    [],
  ],
];
for (const [name, sequence, broken, expectedLimit] of more) {
  test(`${name}: breaks ${broken.join(', ') || 'nothing'}`, () => {
    assert.equal(unique(play(sequence, { expectedLimit }).broken), [...broken].sort());
  });
}

test('without a Date header the client clock judges, within the clock skew', () => {
  assert.equal(
    play(
      CORRECT.map((r) => ({ ...r, headers: { ...r.headers, Date: undefined } })),
      { dateHeader: true },
    ).broken,
    [],
  );
  assert.equal(play(CORRECT, { dateHeader: false }).broken, [], 'a Date header the caller does not trust is ignored');
  assert.equal(unique(play([ok(1, 2, T0 + 61, { noDate: true }), ok(2, 1, T0 + 64, { noDate: true })]).broken), ['reset_moved']);
});

test('a request that got no response makes the window uncertain instead of accusing the limiter', () => {
  const r = play([ok(1, 2, W1), ok(2, 1, W1), lost(3), no(4, W1, '56')]);
  assert.equal(r.broken, []);
  assert.is(r.report.events.transport_error, 1);
});

// A request the server may have counted unheard (no answer; in the model phase a 400 or 404) was decided
// at some place in its batch that nothing tells; arrange() puts it first. Every window the batch reaches
// may hold it: the key's first window, not yet opened when it was heard, and the one a crossing opens.
const unheard: Array<[string, Array<RecordedResponse | RecordedResponse[]>, string[]]> = [
  ["in the key's first batch, decided after its admission", [[ok(31, 8, W1, { limit: 10 }), lost(31)], ok(32, 6, W1, { limit: 10 })], []],
  [
    'in a batch that straddles the boundary, decided in the new window',
    [ok(55, 5, W1, { limit: 10 }), [lost(60), ok(59, 4, W1, { limit: 10 }), ok(60, 9, W2, { limit: 10 })], ok(61, 7, W2, { limit: 10 })],
    [],
  ],
  [
    // Read as the minute's or the day's window (scope either): the day's is first seen after it, in its batch.
    'in the batch where a window of the other scope is first seen',
    [ok(1, 58, W1, { limit: 60 }), [ok(2, 998, T0 + 86400, { limit: 1000 }), lost(2)], ok(3, 996, T0 + 86400, { limit: 1000 })],
    [],
  ],
  [
    'a skip in the first batch with no such request is still one',
    [[ok(31, 8, W1, { limit: 10 }), ok(31, 7, W1, { limit: 10 })], ok(32, 5, W1, { limit: 10 })],
    ['remaining_skipped'],
  ],
  [
    'a skip in a later window, the batch with such a request long settled, is still one',
    [[ok(31, 8, W1, { limit: 10 }), lost(31)], ok(32, 6, W1, { limit: 10 }), ok(60, 9, W2, { limit: 10 }), ok(61, 7, W2, { limit: 10 })],
    ['remaining_skipped'],
  ],
];
for (const [name, sequence, broken] of unheard) {
  test(`a request the server may have counted unheard, ${name}: breaks ${broken.join(', ') || 'nothing'}`, () => {
    assert.equal(unique(play(sequence).broken), [...broken].sort());
  });
}

test('a ban a burst runs into: the server refused concurrent requests one after the other, before the client saw any 429', () => {
  const sent = { sentBefore: 0.1 };
  const banEnd = T0 + 601;
  const burst = [
    ok(1, 2, W1, sent),
    ok(1, 1, W1, sent),
    ok(1, 0, W1, sent),
    no(1, W1, '59', 0, sent),
    no(1, W1, '59', 0, sent),
    no(1, banEnd, '600', 0, sent),
    no(1, banEnd, '600', 0, sent),
  ];
  const r = play([burst.slice().reverse(), no(300, banEnd, '301'), ok(601, 2, banEnd + 60)]);
  assert.equal(r.broken, []);
  assert.is(r.events.ban_detected, 1);
  assert.is(r.events.ban_lifted, 1);
});

test('a ban: found when a retry before Retry-After is answered with a wait past the window, confirmed, and lifted', () => {
  const ban = SEQUENCES.find((s) => s.name === 'a ban that lifts when it said')!;
  const r = play(ban.responses);
  assert.is(r.events.ban_detected, 1);
  assert.is(r.events.ban_confirmed, 1);
  assert.is(r.events.readmitted, 1);
  assert.ok(r.report.banned);
  assert.ok(r.notes.some((n) => /temporary ban detected/.test(n)));
});

test('retryDueMs is when every Retry-After of the current refusals has passed, and null once admitted', () => {
  const rules = createWindowRules();
  for (const r of [ok(1, 0, W1), no(2, W1, '58'), no(3, W1, '57')]) rules.observe([readSnapshot(r)]);
  assert.is(rules.retryDueMs(), (T0 + 2) * 1000 + 250 + 58_000);
  rules.observe([readSnapshot(ok(60, 2, W2))]);
  assert.is(rules.retryDueMs(), null);
});

test('every violation names its rule and level, and carries the reference of the response that broke it', () => {
  const rules = createWindowRules();
  const out = rules.observe([readSnapshot({ ...no(4, W1, '0'), ref: 'the 429' })]);
  const early = out.violations.find((v) => v.kind === 'retry_after_early')!;
  assert.is(early.level, 'must');
  assert.is(early.rule, RULES.retry_after_early.rule);
  assert.equal(early.refs, ['the 429']);
  assert.ok(out.judged.some((j) => j.kind === 'retry_after_form' && j.ref === 'the 429'));
});

test('every rule has a level and says what it demands', () => {
  for (const [kind, { level, rule }] of Object.entries(RULES)) {
    assert.match(kind, /^[a-z0-9_]+$/);
    assert.ok(level === 'must' || level === 'should', kind);
    assert.ok(rule.length > 20, kind);
  }
});

test.run();
