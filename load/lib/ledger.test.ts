// The window bookkeeping against recorded header sequences: what a correct fixed-window limiter
// sends, and what the faulty ones do (over-admitting, Remaining that sticks, Reset that moves,
// and more). Headers are written as k6 hands them over (Go's canonical casing).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { snapshot, type Snapshot } from './headers.js';
import { VIOLATIONS, createLedger } from './ledger.js';

const T0 = 1_800_000_000; // a minute boundary, Unix seconds

const httpDate = (seconds: number) => new Date(seconds * 1000).toUTCString();

interface Recorded {
  at: number; // seconds after T0 the response was sent (its Date header)
  status: number;
  limit?: number | string;
  remaining: number | string;
  reset: number;
  retryAfter?: string;
  noDate?: boolean;
}

function snap(r: Recorded, limit: number): Snapshot {
  const headers: Record<string, string> = {
    'X-Ratelimit-Limit': String(r.limit ?? limit),
    'X-Ratelimit-Remaining': String(r.remaining),
    'X-Ratelimit-Reset': String(r.reset),
    'Content-Type': 'application/json',
  };
  if (!r.noDate) headers.Date = httpDate(T0 + r.at);
  if (r.retryAfter !== undefined) headers['Retry-After'] = r.retryAfter;
  return snapshot(r.status, headers, (T0 + r.at) * 1000 + 250);
}

/** Plays batches through a ledger; a number in the list is one response, an array one batch. */
function play(sequence: Array<Recorded | Recorded[]>, opts: { limit?: number; mode?: 'window' | 'ban'; expectedLimit?: number | null } = {}) {
  const limit = opts.limit ?? 3;
  const ledger = createLedger({ mode: opts.mode ?? 'window', expectedLimit: opts.expectedLimit ?? null, skewSeconds: 2 });
  const violations: string[] = [];
  const events: Record<string, number> = {};
  const notes: string[] = [];
  for (const step of sequence) {
    const batch = Array.isArray(step) ? step : [step];
    const out = ledger.observe(batch.map((r) => snap(r, limit)));
    for (const v of out.violations) violations.push(v.kind);
    for (const e of out.events) events[e] = (events[e] ?? 0) + 1;
    notes.push(...out.notes);
  }
  return { violations, events, notes, report: ledger.report() };
}

const W1 = T0 + 60;
const W2 = T0 + 120;
const W3 = T0 + 180;
const ok = (at: number, remaining: number, reset: number): Recorded => ({ at, status: 200, remaining, reset });
const no = (at: number, reset: number, retryAfter: string, remaining = 0): Recorded => ({ at, status: 429, remaining, reset, retryAfter });

// Limit 3. The client joins mid-window, saturates it, waits Retry-After, and does so twice more.
const correct: Recorded[] = [
  ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'),
  ok(60, 2, W2), ok(61, 1, W2), ok(62, 0, W2), no(63, W2, '57'),
  ok(120, 2, W3), ok(121, 1, W3), ok(122, 0, W3), no(123, W3, '57'),
];

test('a correct fixed-window limiter breaks no rule and verifies the whole window it saw begin and end', () => {
  const r = play(correct);
  assert.equal(r.violations, []);
  assert.is(r.events.window_crossed, 2);
  assert.is(r.events.window_saturated, 3);
  assert.is(r.events.readmitted, 2);
  // The first window was joined part-way (not verifiable); the second was seen whole.
  assert.is(r.events.window_verified, 1);
  assert.is(r.events.admitted, 9);
  assert.is(r.events.rejected, 3);
  assert.ok(r.notes.some((n) => /window boundary crossed: Reset 1800000060 -> 1800000120/.test(n)), r.notes.join('\n'));
});

const faulty: Array<{ name: string; sequence: Array<Recorded | Recorded[]>; expect: string[]; limit?: number; expectedLimit?: number }> = [
  {
    name: 'over-admits: a fourth request admitted with Remaining stuck at 0 (off by one)',
    sequence: [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), ok(4, 0, W1), no(5, W1, '55')],
    expect: ['over_admitted', 'remaining_not_decremented'],
  },
  {
    name: 'over-admits: never refuses, Remaining goes negative',
    sequence: [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), ok(4, -1, W1), ok(5, -2, W1)],
    expect: ['remaining_negative'],
  },
  {
    name: 'over-admits under concurrency: a racing counter hands out the same Remaining twice in one batch',
    sequence: [ok(1, 2, W1), [ok(2, 1, W1), ok(2, 1, W1), ok(2, 0, W1)], no(3, W1, '57')],
    expect: ['over_admitted', 'remaining_not_decremented'],
  },
  {
    name: 'over-admits a whole window it saw begin: Limit+1 with honest-looking Remaining from Limit',
    sequence: [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'), ok(60, 3, W2), ok(61, 2, W2), ok(62, 1, W2), ok(63, 0, W2), no(64, W2, '56')],
    expect: ['over_admitted', 'remaining_above_limit', 'remaining_not_reset'],
  },
  {
    name: 'Remaining sticks: it never falls while requests are admitted',
    sequence: [ok(1, 2, W1), ok(2, 2, W1), ok(3, 2, W1), no(4, W1, '56', 2)],
    expect: ['remaining_not_decremented', 'remaining_nonzero_on_429'],
  },
  {
    name: 'Remaining sticks after the first window: a fresh window starts where the old one ended',
    sequence: [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'), no(60, W2, '60')],
    expect: ['not_readmitted', 'under_admitted'],
  },
  {
    name: 'Reset moves: a sliding reset that is always a minute away',
    sequence: [ok(1, 2, T0 + 61), ok(2, 1, T0 + 62), ok(3, 0, T0 + 63), no(4, T0 + 64, '60')],
    expect: ['reset_moved'],
  },
  {
    name: 'Reset moves backwards',
    sequence: [ok(1, 2, W2), ok(2, 1, W1)],
    expect: ['reset_moved'],
  },
  {
    name: 'Reset never moves on: the window is over but Reset stays in the past',
    sequence: [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'), no(65, W1, '1')],
    expect: ['reset_in_past', 'retry_after_late'],
  },
  {
    name: 'under-admits: 429 after two of three in a window seen from its start',
    sequence: [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'), ok(60, 2, W2), ok(61, 1, W2), no(62, W2, '58', 0)],
    expect: ['under_admitted'],
  },
  {
    name: 'Remaining falls by two for one request (the limiter counts a request twice)',
    sequence: [ok(1, 2, W1), ok(2, 0, W1), no(3, W1, '57')],
    expect: ['remaining_skipped', 'under_admitted'],
  },
  {
    name: 'Retry-After missing, zero or not a number',
    sequence: [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), { at: 4, status: 429, remaining: 0, reset: W1 }, no(5, W1, '0'), no(6, W1, 'soon')],
    expect: ['retry_after_invalid', 'retry_after_invalid', 'retry_after_invalid'],
  },
  {
    name: 'Retry-After far shorter than the time to Reset: the retry would be refused again',
    sequence: [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '5')],
    expect: ['retry_after_early'],
  },
  {
    name: 'malformed and missing rate-limit headers',
    sequence: [{ at: 1, status: 200, remaining: 'many', reset: W1 }, { at: 2, status: 200, limit: '', remaining: 1, reset: W1 }],
    expect: ['malformed_headers', 'malformed_headers'],
  },
  {
    name: 'a Limit other than the plan says',
    sequence: [ok(1, 2, W1)],
    expect: ['limit_mismatch'],
    expectedLimit: 60,
  },
  {
    name: 'the binding window changes mid-run (the daily budget takes over)',
    sequence: [ok(1, 2, W1), { at: 2, status: 200, limit: 1000, remaining: 1, reset: T0 + 86400 }],
    expect: ['limit_changed'],
  },
];

for (const c of faulty) {
  test(`fails: ${c.name}`, () => {
    const r = play(c.sequence, { limit: c.limit, expectedLimit: c.expectedLimit });
    for (const kind of c.expect) assert.ok(r.violations.includes(kind), `expected ${kind}, got ${JSON.stringify(r.violations)}`);
    assert.ok(r.violations.length >= c.expect.length);
    for (const kind of r.violations) assert.ok(kind in VIOLATIONS, `unknown kind ${kind}`);
  });
}

test('a batch answered concurrently is judged in the only order a correct limiter could have served it', () => {
  const r = play([
    [ok(1, 0, W1), ok(1, 2, W1), no(1, W1, '59'), ok(1, 1, W1)],
    [ok(60, 1, W2), ok(60, 2, W2)],
  ]);
  assert.equal(r.violations, []);
  assert.is(r.events.window_saturated, 1);
  assert.is(r.events.readmitted, 1);
});

test('a batch that straddles the boundary is split by Reset', () => {
  const r = play([ok(55, 2, W1), ok(56, 1, W1), [ok(59, 0, W1), ok(60, 2, W2)]]);
  assert.equal(r.violations, []);
  assert.is(r.events.window_crossed, 1);
  assert.is(r.events.readmitted ?? 0, 0, 'the old window never refused, so there is nothing to be readmitted after');
});

test('Retry-After as an HTTP-date is accepted and judged against Reset like delay-seconds', () => {
  const good = play([ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, httpDate(W1))]);
  assert.equal(good.violations, []);
  const early = play([ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, httpDate(T0 + 20))]);
  assert.equal(early.violations, ['retry_after_early']);
});

test('without a Date header the client clock is used, within the allowed skew', () => {
  const seq = correct.map((r) => ({ ...r, noDate: true }));
  assert.equal(play(seq).violations, []);
  const moved = play([{ ...ok(1, 2, T0 + 61), noDate: true }, { ...ok(2, 1, T0 + 62), noDate: true }]);
  assert.equal(moved.violations, ['reset_moved']);
});

test('a request that got no response makes the window uncertain instead of accusing the limiter', () => {
  const ledger = createLedger({ skewSeconds: 2 });
  ledger.observe([snap(ok(1, 2, W1), 3)]);
  ledger.observe([snap(ok(2, 1, W1), 3)]);
  ledger.observe([snapshot(0, {}, (T0 + 3) * 1000)]);
  // The lost request was counted by the server: Remaining fell by two.
  const out = ledger.observe([snap(no(4, W1, '56'), 3)]);
  assert.equal(out.violations, []);
  assert.is(ledger.report().events.transport_error, 1);
});

test('ban mode: a 429 whose Retry-After reaches past the window reset is the ban; admitting during it is a violation', () => {
  const r = play(
    [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'), no(5, W1, '55'), no(6, W1, '600'), no(7, W1, '599'), ok(70, 2, W2)],
    { mode: 'ban' },
  );
  assert.is(r.events.ban_detected, 1);
  assert.is(r.events.ban_confirmed, 1);
  assert.equal(r.violations, ['ban_not_enforced']);
  assert.ok(r.report.banned);
});

test('ban mode: ordinary 429s across a window reset are not mistaken for a ban', () => {
  const r = play([ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), no(4, W1, '56'), no(30, W1, '30'), ok(60, 2, W2), ok(61, 1, W2), ok(62, 0, W2), no(63, W2, '57')], {
    mode: 'ban',
  });
  assert.is(r.events.ban_detected ?? 0, 0);
  assert.equal(r.violations, []);
});

test('every violation kind has a description the summary can print', () => {
  for (const [kind, text] of Object.entries(VIOLATIONS)) {
    assert.match(kind, /^[a-z0-9_]+$/);
    assert.ok(text.length > 10, kind);
  }
});

test.run();
