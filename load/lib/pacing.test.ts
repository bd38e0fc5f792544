import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_TOLERANCES, readSnapshot } from '../../spec/rules/snapshot.js';
import { answerOf, answersOf, banProbePlan, banProbeTimes, createPacer } from './pacing.js';

const ok = { status: 200, waitMs: null };
const refused = (seconds: number | null) => ({ status: 429, waitMs: seconds === null ? null : seconds * 1000 });
/** An admitted answer that says how many remain, and when its window resets. */
const left = (remaining: number, resetInMs = 60_000) => ({ status: 200, waitMs: null, remaining, resetInMs });

test('sends on schedule at the target rate and never bursts past the batch size', () => {
  const p = createPacer({ perSecond: 2, honourRetryAfter: true, startMs: 0 });
  let sent = 0;
  for (let t = 0; t < 10_000; t += 100) {
    const n = p.allowance(t, 1);
    p.sent(n);
    sent += n;
  }
  assert.is(sent, 20);
  const q = createPacer({ perSecond: 100, honourRetryAfter: true, startMs: 0 });
  q.after([left(50)], 0);
  assert.is(q.allowance(1000, 5), 5);
});

test('a burst goes out whole, once that many requests are due', () => {
  const p = createPacer({ perSecond: 1, honourRetryAfter: true, startMs: 0 });
  p.after([left(100)], 0);
  const bursts: Array<[number, number]> = [];
  for (let t = 0; t < 20_000; t += 250) {
    const n = p.allowance(t, 8);
    if (n > 0) bursts.push([t, n]);
    p.sent(n);
  }
  // Due: 1 at 0 s, 8 at 7 s, 16 at 15 s.
  assert.equal(bursts, [
    [7000, 8],
    [15_000, 8],
  ]);
});

test('a burst stays within the Remaining last seen, plus one to see the refusal; with nothing known it sends one', () => {
  const p = createPacer({ perSecond: 100, honourRetryAfter: true, startMs: 0 });
  assert.is(p.allowance(1000, 32), 1, 'nothing known yet: one request learns Remaining');
  p.sent(1);
  p.after([left(10, 30_000)], 1000);
  assert.is(p.allowance(2000, 32), 11, 'ten remain: eleven at once, never 32');
  p.sent(11);
  p.after([left(3), left(0), left(5)], 2000);
  assert.is(p.allowance(3000, 32), 1, 'the least Remaining of a batch is what is left');
  p.after([left(20, 1000)], 3000);
  assert.is(p.allowance(3500, 32), 21);
  assert.is(p.allowance(4000, 32), 1, 'its Reset has come: the window may have reset or slid, so one request learns it again');
  p.after([{ status: 401, waitMs: null, remaining: null }], 4000);
  assert.is(p.allowance(4100, 32), 1, 'an answer without Remaining teaches nothing');
});

test('honours Retry-After, restarts the schedule after the hold, and backs off when the retry is refused again', () => {
  const p = createPacer({ perSecond: 10, honourRetryAfter: true, startMs: 0 });
  p.sent(p.allowance(0, 1));
  assert.is(p.after([refused(30)], 100), 30);
  assert.is(p.allowance(29_000, 50), 0);
  assert.ok(p.holding(29_000));
  assert.is(p.allowance(30_200, 50), 1, 'no catching up on the 30 s it held: one request first');
  p.sent(1);
  assert.is(p.after([refused(1)], 30_200), 2, 'a refused retry doubles the wait');
  p.sent(1);
  assert.is(p.after([refused(1)], 32_300), 4);
  p.sent(1);
  assert.is(p.after([refused(60)], 36_400), 60, 'Retry-After wins when it is longer');
  p.sent(1);
  assert.is(p.after([ok], 100_000), 0);
  p.sent(1);
  assert.is(p.after([refused(5)], 100_100), 5, 'admitted again: back to plain Retry-After');
});

test('a 403 (a ban) is a refusal to wait out like a 429; a 401 or a 5xx is no admission that ends the backoff', () => {
  const p = createPacer({ perSecond: 1, honourRetryAfter: true, startMs: 0 });
  assert.is(p.after([{ status: 403, waitMs: 30_000 }], 0), 30);
  assert.is(p.after([{ status: 403, waitMs: 1000 }], 30_000), 2);
  assert.is(
    p.after(
      [
        { status: 503, waitMs: null },
        { status: 429, waitMs: 1000 },
      ],
      32_000,
    ),
    4,
    'still backing off',
  );
});

test('a 429 without a usable Retry-After, or with 0, waits one second', () => {
  const p = createPacer({ perSecond: 1, honourRetryAfter: true, startMs: 0 });
  assert.is(p.after([refused(null)], 0), 1);
  const q = createPacer({ perSecond: 1, honourRetryAfter: true, startMs: 0 });
  assert.is(q.after([refused(0)], 0), 1);
});

test('the ban scenario ignores Retry-After and Remaining, and can be stopped', () => {
  const p = createPacer({ perSecond: 1, honourRetryAfter: false, startMs: 0 });
  assert.is(p.after([refused(60)], 0), 0);
  assert.is(p.allowance(0, 1), 1);
  assert.is(p.allowance(4000, 8), 5, 'whatever is due, up to the batch');
  p.stop();
  assert.is(p.allowance(10_000, 1), 0);
});

test('setRate changes the schedule', () => {
  const p = createPacer({ perSecond: 1, honourRetryAfter: true, startMs: 0 });
  p.after([left(100)], 0);
  assert.is(p.allowance(1000, 11), 0);
  p.setRate(10);
  assert.is(p.allowance(1000, 11), 11);
});

test('answerOf reads what the pacer needs from a snapshot: Retry-After as a wait, Remaining, and how far off Reset is', () => {
  const at = Date.UTC(2026, 10, 22, 10, 0, 17);
  const s = readSnapshot({
    status: 429,
    headers: { Date: 'Sun, 22 Nov 2026 10:00:17 GMT', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(at / 1000 + 43), 'Retry-After': '43' },
    receivedAtMs: at + 400,
  });
  assert.equal(answerOf(s, DEFAULT_TOLERANCES), { status: 429, waitMs: 43_000, remaining: 0, resetInMs: 43_000 });
});

test('a ban is probed after the window it began in, at two thirds, and after it lifts: three requests', () => {
  const p = banProbeTimes({ detectedMs: 0, banDueMs: 600_000, windowEndMs: 40_000, slackMs: 2_000 });
  assert.equal(p, { times: [200_000, 400_000, 603_000], pastReset: true });
  // A short ban whose window ends late: the first probe waits for the boundary.
  assert.equal(banProbeTimes({ detectedMs: 0, banDueMs: 90_000, windowEndMs: 50_000, slackMs: 2_000 }).times, [53_000, 60_000, 93_000]);
  // A ban that ends with its window cannot be seen past a boundary.
  assert.equal(banProbeTimes({ detectedMs: 0, banDueMs: 30_000, windowEndMs: 29_000, slackMs: 2_000 }), { times: [10_000, 20_000, 33_000], pastReset: false });
});

test('answersOf reads each snapshot of a batch as answerOf does, in order', () => {
  const at = Date.UTC(2026, 10, 22, 10, 0, 0);
  const snaps = [200, 429].map((status) =>
    readSnapshot({ status, headers: { Date: new Date(at).toUTCString(), 'X-RateLimit-Reset': String(at / 1000 + 30), 'Retry-After': '30' }, receivedAtMs: at }),
  );
  assert.equal(
    answersOf(snaps, DEFAULT_TOLERANCES),
    snaps.map((s) => answerOf(s, DEFAULT_TOLERANCES)),
  );
});

const BAN = { nowMs: 100_000, slackMs: 2_000, scenarioEndMs: 1_000_000, banDurationS: 720 };

test('banProbePlan: before the ban it follows the window end; a batch announcing it plans the probes and says when', () => {
  const before = banProbePlan({ ...BAN, answered: [{ status: 200, waitMs: null, resetInMs: 40_000 }], detected: false, windowEndMs: null });
  assert.equal(before, { windowEndMs: 140_000, probes: null, said: null, warning: null });
  const announced = banProbePlan({ ...BAN, answered: [{ status: 429, waitMs: 600_000, resetInMs: 40_000 }], detected: true, windowEndMs: 140_000 });
  assert.equal(announced.probes, banProbeTimes({ detectedMs: 100_000, banDueMs: 700_000, windowEndMs: 140_000, slackMs: 2_000 }).times);
  assert.is(announced.windowEndMs, 140_000, 'the window the ban began in, not the answer announcing it');
  assert.is(announced.said, 'ban announced for 600 s; probes at +200 s, +400 s, +603 s');
  assert.is(announced.warning, null);
});

test('banProbePlan: a ban that ends with its window says so; one that outlasts the scenario warns; no wait, no plan', () => {
  const short = banProbePlan({ ...BAN, answered: [{ status: 429, waitMs: 30_000 }], detected: true, windowEndMs: 129_000 });
  assert.match(short.said!, /\(the ban ends with its window: no boundary to cross while it lasts\)$/);
  const long = banProbePlan({ ...BAN, scenarioEndMs: 500_000, answered: [{ status: 429, waitMs: 600_000 }], detected: true, windowEndMs: null });
  assert.is(long.warning, 'the ban outlasts the ban scenario (BAN_DURATION=720 s): raise BAN_DURATION to see it lift');
  const unsaid = banProbePlan({ ...BAN, answered: [{ status: 429, waitMs: null }], detected: true, windowEndMs: null });
  assert.equal(unsaid, { windowEndMs: null, probes: null, said: null, warning: null });
});

test.run();
