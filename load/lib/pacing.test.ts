import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { banProbeTimes, createPacer } from './pacing.js';

const ok = { status: 200, waitMs: null };
const refused = (seconds: number | null) => ({ status: 429, waitMs: seconds === null ? null : seconds * 1000 });

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
  assert.is(q.allowance(1000, 5), 5);
});

test('honours Retry-After, restarts the schedule after the hold, and backs off when the retry is refused again', () => {
  const p = createPacer({ perSecond: 10, honourRetryAfter: true, startMs: 0 });
  p.sent(p.allowance(0, 1));
  assert.is(p.after([refused(30)], 100), 30);
  assert.is(p.allowance(29_000, 50), 0);
  assert.ok(p.holding(29_000));
  assert.is(p.allowance(30_200, 50), 2, 'no catching up on the 30 s it held');
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

test('a 429 without a usable Retry-After, or with 0, waits one second', () => {
  const p = createPacer({ perSecond: 1, honourRetryAfter: true, startMs: 0 });
  assert.is(p.after([refused(null)], 0), 1);
  const q = createPacer({ perSecond: 1, honourRetryAfter: true, startMs: 0 });
  assert.is(q.after([refused(0)], 0), 1);
});

test('the ban scenario ignores Retry-After and can be stopped', () => {
  const p = createPacer({ perSecond: 1, honourRetryAfter: false, startMs: 0 });
  assert.is(p.after([refused(60)], 0), 0);
  assert.is(p.allowance(0, 1), 1);
  p.stop();
  assert.is(p.allowance(10_000, 1), 0);
});

test('setRate changes the schedule', () => {
  const p = createPacer({ perSecond: 1, honourRetryAfter: true, startMs: 0 });
  p.setRate(10);
  assert.is(p.allowance(1000, 100), 11);
});

test('a ban is probed after the window it began in, at two thirds, and after it lifts: three requests', () => {
  const p = banProbeTimes({ detectedMs: 0, banDueMs: 600_000, windowEndMs: 40_000, slackMs: 2_000 });
  assert.equal(p, { times: [200_000, 400_000, 603_000], pastReset: true });
  // A short ban whose window ends late: the first probe waits for the boundary.
  assert.equal(banProbeTimes({ detectedMs: 0, banDueMs: 90_000, windowEndMs: 50_000, slackMs: 2_000 }).times, [53_000, 60_000, 93_000]);
  // A ban that ends with its window cannot be seen past a boundary.
  assert.equal(banProbeTimes({ detectedMs: 0, banDueMs: 30_000, windowEndMs: 29_000, slackMs: 2_000 }), { times: [10_000, 20_000, 33_000], pastReset: false });
});

test.run();
