// What follows a 429, reading by reading (readings.js): a history each reading explains breaks none of
// the refusal rules; one no reading explains breaks the rule named. Only the rules of refusal-rules.js
// and a 429's Retry-After are compared here; window-rules.test.ts holds the counting.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { T0, W1, W2, forbidden, no, ok } from '../../spec/rules/testing/recorded.ts';
import { retryAfterRounding } from './field-rules.js';
import { readingById } from './readings.js';
import { RULES } from './rules.js';
import { readSnapshot, type RecordedResponse } from '../../spec/rules/snapshot.js';
import { createWindowRules } from './window-rules.js';

/** The kinds this file judges: what follows a 429, and Retry-After itself. */
const REFUSAL_KINDS = new Set([
  'retry_after_missing',
  'retry_after_invalid',
  'retry_after_form',
  'retry_after_early',
  'retry_after_late',
  'refusal_without_retry_after',
  'not_readmitted',
  'served_before_retry_after',
  'ban_not_enforced',
  'ban_not_lifted',
]);

function play(sequence: RecordedResponse[]) {
  const rules = createWindowRules();
  const broken = new Set<string>();
  const events: Record<string, number> = {};
  for (const r of sequence) {
    const out = rules.observe([readSnapshot(r)]);
    for (const v of out.violations) if (REFUSAL_KINDS.has(v.kind)) broken.add(v.kind);
    for (const e of out.events) events[e] = (events[e] ?? 0) + 1;
  }
  return { broken: [...broken].sort(), events, banned: rules.report().banned };
}

const saturate = [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1)];
/** A ban's refusals: a 429 without Retry-After. */
const bare = (at: number, reset: number) => no(at, reset, undefined);
/** A 403 of a ban without Retry-After. */
const bareForbidden = (at: number, reset: number) => forbidden(at, reset, '', { headers: { 'Retry-After': undefined } });

interface Row {
  name: string;
  /** The readings (readings.js) that explain it; none for a counter-example. */
  readings: string[];
  responses: RecordedResponse[];
  broken: string[];
  banned?: boolean;
}

const ROWS: Row[] = [
  // Retry-After's rounding: the 429 at T0 + 4.25 s has 55.75 s to Reset.
  {
    name: 'Retry-After rounded up: the retry at its end is admitted',
    readings: ['retry_after.rounded-up'],
    responses: [...saturate, no(4, W1, '56'), ok(60, 2, W2)],
    broken: [],
  },
  {
    name: 'Retry-After truncated (int(Reset − now)): the retry at its end is refused within the second, the next admitted',
    readings: ['retry_after.truncated'],
    responses: [...saturate, no(4, W1, '55'), no(59, W1, '1'), ok(60, 2, W2)],
    broken: [],
  },
  {
    name: 'Retry-After rounded to the nearest second: a retry half a second after it is refused, the next admitted',
    readings: ['retry_after.nearest'],
    responses: [...saturate, no(4, W1, '55'), no(59.5, W1, '0'), ok(60, 2, W2)],
    broken: ['retry_after_form'],
  },
  {
    name: 'counter-example: Retry-After 2 s short, the retry at its end refused for longer than a second',
    readings: [],
    responses: [...saturate, no(4, W1, '54'), no(58, W1, '2')],
    broken: ['not_readmitted'],
  },
  {
    name: 'counter-example: Retry-After 2 s short, refused twice a second apart (the second counts from the wait announced)',
    readings: [],
    responses: [...saturate, no(4, W1, '54'), no(58, W1, '1'), no(59, W1, '1')],
    broken: ['not_readmitted'],
  },
  {
    name: 'counter-example: readmission refused long after Retry-After',
    readings: [],
    responses: [...saturate, no(4, W1, '56'), no(70, W2, '50')],
    broken: ['not_readmitted'],
  },
  // A ban: its status, threshold and length.
  {
    name: 'a ban answered 429, announced by a Retry-After past the window, lifted when it said',
    readings: ['ban.status-429', 'ban.length'],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), no(6, T0 + 606, '600'), no(7, T0 + 606, '599'), ok(606, 2, T0 + 666)],
    broken: [],
    banned: true,
  },
  {
    name: 'a ban answered 403, lifted when it said',
    readings: ['ban.status-403', 'ban.length'],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), forbidden(6, T0 + 606, '600'), forbidden(7, T0 + 606, '599'), ok(606, 2, T0 + 666)],
    broken: [],
    banned: true,
  },
  {
    name: 'a ban answered 403 shorter than the window (Retry-After 30), Reset naming its end, lifted when it said',
    readings: ['ban.status-403', 'ban.length', 'ban.reset-ban-end'],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), forbidden(6, T0 + 36, '30'), forbidden(20, T0 + 36, '16'), ok(36, 2, T0 + 96)],
    broken: [],
    banned: true,
  },
  {
    name: 'a ban answered 403 shorter than the window, Reset naming the window’s end',
    readings: ['ban.status-403', 'ban.length', 'ban.reset-window-end'],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), forbidden(6, W1, '30'), forbidden(20, W1, '16'), ok(36, 2, T0 + 96)],
    broken: [],
    banned: true,
  },
  {
    name: 'a ban after ten refusals',
    readings: ['ban.threshold', 'ban.status-429'],
    responses: [
      ...saturate,
      no(4, W1, '56'),
      ...Array.from({ length: 9 }, (_, i) => no(5 + i, W1, String(55 - i))),
      no(14, T0 + 614, '600'),
      ok(614, 2, T0 + 674),
    ],
    broken: [],
    banned: true,
  },
  {
    // The library server's ban (express-rate-limit, conformance/testing/library-server): the fifth refusal
    // bans the key but answers with the window's wait; the next request, sent once it has passed, hears of the ban.
    name: 'a ban earned by refusals of concurrent requests, first announced to the request sent once the window’s Retry-After had passed',
    readings: ['ban.threshold', 'ban.status-429'],
    responses: [...saturate, no(4, W1, '56'), no(4, W1, '56'), no(60, T0 + 124, '64'), no(70, T0 + 124, '54'), ok(124, 2, T0 + 184)],
    broken: [],
    banned: true,
  },
  {
    name: 'counter-example: after a single 429 waited out, a refusal asking for longer (no ban was earned)',
    readings: [],
    responses: [...saturate, no(4, W1, '56'), no(60, T0 + 124, '64')],
    broken: ['not_readmitted'],
  },
  {
    name: 'a ban lifted within the second after its truncated Retry-After',
    readings: ['ban.status-429', 'retry_after.truncated'],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), no(6, T0 + 606, '599'), no(605, T0 + 606, '1'), ok(606, 2, T0 + 666)],
    broken: [],
    banned: true,
  },
  {
    name: 'counter-example: a ban that does not lift',
    readings: [],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), no(6, T0 + 606, '600'), no(606, T0 + 1206, '600')],
    broken: ['ban_not_lifted', 'not_readmitted'],
    banned: true,
  },
  {
    name: 'counter-example: a ban answered 403 that is not enforced',
    readings: [],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), forbidden(6, T0 + 606, '600'), ok(70, 2, T0 + 130)],
    broken: ['ban_not_enforced'],
    banned: true,
  },
  // A refusal without Retry-After breaks the promise of a Retry-After on every refusal; no reading allows it.
  {
    name: 'counter-example: a ban of 403s without Retry-After (its end never named, so readmission is not judged)',
    readings: [],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), bareForbidden(6, W1), bareForbidden(62, W2), ok(200, 2, T0 + 260)],
    broken: ['refusal_without_retry_after'],
    banned: true,
  },
  {
    name: 'counter-example: a ban of 403s without Retry-After, then one naming its end, which it keeps',
    readings: [],
    responses: [...saturate, no(4, W1, '56'), no(5, W1, '55'), bareForbidden(6, W1), forbidden(62, W2, '20'), forbidden(70, W2, '12'), ok(83, 2, T0 + 143)],
    broken: ['refusal_without_retry_after'],
    banned: true,
  },
  {
    name: 'counter-example: 429s repeated after a 429 without Retry-After',
    readings: [],
    responses: [...saturate, no(4, W1, '56'), bare(5, W1), bare(6, W1)],
    broken: ['refusal_without_retry_after', 'retry_after_missing'],
  },
];

for (const row of ROWS) {
  test(`${row.name}: breaks ${row.broken.join(', ') || 'nothing'}`, () => {
    for (const id of row.readings) assert.ok(readingById(id), `${id} is a reading of readings.js`);
    const r = play(row.responses);
    assert.equal(r.broken, [...row.broken].sort());
    assert.is(r.banned, row.banned ?? false, 'a ban seen');
    if (row.banned) assert.is(r.events.ban_detected, 1, 'one ban detected');
  });
}

test('every rule judged here is a rule of rules.js, and a refusal without Retry-After reports under the check that promises one', () => {
  for (const kind of REFUSAL_KINDS) assert.ok(kind in RULES, kind);
  assert.is(RULES.refusal_without_retry_after.check, 'ratelimit.refused-until-retry');
  assert.is(RULES.refusal_without_retry_after.level, 'must');
});

test('each repeated refusal without Retry-After is one violation naming the 429 that began the wait', () => {
  const rules = createWindowRules();
  const first = { ...no(4, W1, '56'), ref: 'the first 429' };
  for (const r of saturate) rules.observe([readSnapshot(r)]);
  rules.observe([readSnapshot(first)]);
  const seen = [5, 6, 7].map((at) => rules.observe([readSnapshot({ ...bareForbidden(at, W1), ref: `request at ${at}` })]));
  const found = seen.flatMap((out) => out.violations.filter((v) => v.kind === 'refusal_without_retry_after'));
  assert.is(found.length, 3);
  assert.equal(found[0]!.refs, ['the first 429', 'request at 5']);
  assert.match(found[0]!.detail, /403 repeated after a 429: it carries no Retry-After/);
});

const ROUNDING: Array<[string, RecordedResponse, string[] | null]> = [
  ['Retry-After equal to Reset − Date', no(4, W1, '56'), ['retry_after.rounded-up', 'retry_after.nearest', 'retry_after.truncated']],
  ['Retry-After one second short of Reset − Date', no(4, W1, '55'), ['retry_after.nearest', 'retry_after.truncated']],
  ['Retry-After two seconds short', no(4, W1, '54'), []],
  ['Retry-After of a ban, past Reset', no(6, T0 + 606, '600'), ['retry_after.rounded-up', 'retry_after.nearest', 'retry_after.truncated']],
  ['Retry-After of a ban, Reset naming the window', no(6, W1, '600'), []],
  ['an HTTP-date', no(4, W1, new Date(W1 * 1000).toUTCString()), null],
  ['no Date header', no(4, W1, '56', 0, { noDate: true }), null],
];
for (const [name, response, readings] of ROUNDING) {
  test(`retryAfterRounding: ${name}`, () => {
    assert.equal(retryAfterRounding(readSnapshot(response)), readings);
    for (const id of readings ?? []) assert.ok(readingById(id), id);
  });
}

test.run();
