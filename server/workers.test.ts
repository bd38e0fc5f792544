// The primary's restart policy, on a clock passed in: how long it waits before restarting a crashed
// worker, when the wait starts over, and when it gives up.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RESTART_POLICY, RestartBackoff } from './workers.ts';

const t = suite('RestartBackoff');

t('a streak of crashes waits 0.1 s, doubling to 5 s at most', () => {
  const backoff = new RestartBackoff({ ...RESTART_POLICY, maxCrashes: 100, windowMs: 60_000 });
  const delays = Array.from({ length: 9 }, (_, i) => backoff.crashed(i * 1_000, 500)).map((d) => (d.giveUp ? 'gave up' : d.delayMs));
  assert.equal(delays, [100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000]);
});

t('a worker that stayed up 30 s ends the streak: the next crash waits 0.1 s again', () => {
  const backoff = new RestartBackoff(RESTART_POLICY);
  for (let i = 0; i < 4; i++) backoff.crashed(i * 1_000, 500);
  const after = backoff.crashed(40_000, 30_000);
  assert.equal(after, { giveUp: false, delayMs: 100, crashes: 5 });
});

t('it gives up at the 10th crash within a minute, and crashes older than a minute are forgotten', () => {
  const backoff = new RestartBackoff(RESTART_POLICY);
  for (let i = 0; i < 9; i++) assert.is(backoff.crashed(i * 5_000, 100).giveUp, false, `crash ${i + 1}`);
  assert.equal(backoff.crashed(45_000, 100), { giveUp: true, crashes: 10 });

  const patient = new RestartBackoff(RESTART_POLICY);
  for (let i = 0; i < 20; i++) assert.is(patient.crashed(i * 7_000, 100).giveUp, false, `one crash every 7 s is at most 9 a minute (crash ${i + 1})`);
});

t.run();
