// rate-limit.js's window rules and pacing, driven exactly as the script drives them, against the
// reference server itself (in-process, server.inject, on a ManualClock): the real implementation
// must break none of the rules the load test enforces, should-level ones included, across several
// windows, in batches, and the temporary ban must be found. No k6 and no sleeping: the clock moves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock, createServer } from '../server/index.ts';
import { DEFAULT_TOLERANCES, readSnapshot, type Snapshot } from '../spec/rules/snapshot.js';
import { createWindowRules } from '../judge/rules/window-rules.js';
import { answerOf, createPacer } from './lib/pacing.js';

const START = Date.UTC(2026, 10, 22, 10, 0, 17, 300);

interface Drive {
  key: string;
  perMinute: number;
  seconds: number;
  batch?: number;
  mode?: 'window' | 'ban';
  expectedLimit?: number | null;
}

async function drive(server: Awaited<ReturnType<typeof createServer>>, clock: ManualClock, d: Drive) {
  const mode = d.mode ?? 'window';
  const rules = createWindowRules({ expectedLimit: d.expectedLimit ?? null });
  const pacer = createPacer({ perSecond: d.perMinute / 60, honourRetryAfter: mode === 'window', startMs: clock.now() });
  const violations: string[] = [];
  const start = clock.now();
  const stepMs = 60_000 / d.perMinute;
  let sent = 0;
  const batches: number[] = [];
  for (let t = 0; t < d.seconds * 1000; t += stepMs) {
    clock.set(start + t);
    const n = pacer.allowance(clock.now(), d.batch ?? 1);
    if (n === 0) continue;
    const sentAtMs = clock.now();
    const responses = await Promise.all(
      Array.from({ length: n }, () => server.inject({ method: 'GET', url: '/v1/pets?limit=1', headers: { authorization: `Bearer ${d.key}` } })),
    );
    sent += n;
    batches.push(n);
    pacer.sent(n);
    // The limiter runs on the ManualClock; the Date header Node writes is the real time, so it is not the server's clock.
    const snaps: Snapshot[] = responses.map((r) =>
      readSnapshot({ status: r.statusCode, headers: r.headers as Record<string, string>, receivedAtMs: clock.now(), sentAtMs }, { dateHeader: false }),
    );
    pacer.after(
      snaps.map((s) => answerOf(s, DEFAULT_TOLERANCES)),
      clock.now(),
    );
    for (const v of rules.observe(snaps).violations) violations.push(`${v.kind}: ${v.detail}`);
  }
  return { violations, report: rules.report(), sent, batches };
}

async function freshServer(extraKeys: Array<Record<string, unknown>> = []) {
  const clock = new ManualClock(START);
  const server = await createServer({
    clock,
    logger: false,
    apiKeys: [{ key: 'test-free-key', plan: 'free' }, { key: 'test-pro-key', plan: 'pro' }, ...extraKeys] as never,
  });
  await server.initialize();
  return { clock, server };
}

test('the reference server keeps every rule rate-limit.js checks, over three windows (free plan)', async () => {
  const { clock, server } = await freshServer();
  try {
    const r = await drive(server, clock, { key: 'test-free-key', perMinute: 90, seconds: 150, expectedLimit: 60 });
    assert.equal(r.violations, []);
    assert.ok((r.report.events.window_crossed ?? 0) >= 2, JSON.stringify(r.report.events));
    assert.ok((r.report.events.window_verified ?? 0) >= 1, JSON.stringify(r.report.events));
    assert.is(r.report.limit, 60);
  } finally {
    await server.stop();
  }
});

test('... and in concurrent batches of four (pro plan)', async () => {
  const { clock, server } = await freshServer();
  try {
    const r = await drive(server, clock, { key: 'test-pro-key', perMinute: 450, seconds: 130, batch: 4, expectedLimit: 300 });
    assert.equal(r.violations, []);
    assert.ok(r.batches.filter((n) => n === 4).length > 100, 'the bursts are of four');
    assert.ok((r.report.events.window_verified ?? 0) >= 1, JSON.stringify(r.report.events));
  } finally {
    await server.stop();
  }
});

test("the ban scenario finds the reference server's temporary ban and sees it enforced", async () => {
  const { clock, server } = await freshServer([{ key: 'k6-ban-key', plan: 'enterprise', limits: { perMinute: 10, perDay: 100_000 } }]);
  try {
    const r = await drive(server, clock, { key: 'k6-ban-key', perMinute: 180, seconds: 60, mode: 'ban' });
    assert.equal(r.violations, []);
    assert.is(r.report.events.ban_detected, 1, JSON.stringify(r.report.events));
    assert.ok((r.report.events.ban_confirmed ?? 0) >= 10, JSON.stringify(r.report.events));
    assert.ok(r.report.banned);
  } finally {
    await server.stop();
  }
});

test.run();
