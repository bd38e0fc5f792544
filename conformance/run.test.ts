// runConformance against the in-process reference server on a manual clock: waits are injected
// (the clock moves, nothing sleeps), rate-limit checks never run without a key, and the kit sends
// no more requests than the checks need.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUE } from './catalogue.ts';
import { conformOn, HAND_WRITTEN_PHASES, outcomeOf, startTarget, type Target } from './testing/flaws/harness.ts';
import { startFlawProxy } from './testing/flaws/proxy.ts';
import { freePort } from '../lib/processes.ts';
import { GENERATED_PHASES } from './options.ts';
import { runConformance, UnreachableError, type ProgressEvent } from './run.ts';

const test = suite('runConformance');
let target: Target;

test.before.each(async () => {
  target = await startTarget();
});
test.after.each(async () => {
  await target.stop();
});

test('without --rate-limit-key no rate-limit check runs, and none is reported as passed', async () => {
  const report = await conformOn(target);
  for (const def of CATALOGUE.filter((c) => c.needs?.includes('rate-limit-key'))) {
    const result = report.results.find((r) => r.id === def.id)!;
    assert.is(result.outcome, 'not-run', def.id);
    assert.match(result.reason ?? '', /--rate-limit-key/);
  }
  assert.is(report.exitCode, 0);
  // The fixed checks stay small; the generated phases send no more than --max-requests.
  const fixed = report.requests - report.generated.sent;
  assert.ok(fixed <= 40, `${fixed} requests besides the generated ones`);
  assert.ok(report.generated.sent <= report.generated.sent + report.generated.leftOut);
  const capped = await conformOn(target, { maxRequests: 50 });
  assert.is(capped.generated.sent, 50);
  assert.ok(capped.generated.leftOut > 0);
  assert.is(capped.exitCode, 0);
});

test('re-admission waits exactly what Retry-After says, on the injected clock', async () => {
  const waits: number[] = [];
  const events: ProgressEvent[] = [];
  const report = await conformOn(target, {
    rateLimitKey: 'test-free-key',
    // The model phase, after it, waits for the key's window of its own: only the rate-limit phase's wait is this test's.
    phases: HAND_WRITTEN_PHASES,
    sleep: async (ms) => {
      waits.push(ms);
      target.clock.advance(ms);
    },
    onProgress: (e) => events.push(e),
  });
  assert.is(outcomeOf(report, 'ratelimit.readmitted'), 'passed');
  assert.is(waits.length, 1);
  // The fixed minute window opened at the clock's start: the wait ends exactly at its end.
  assert.is(waits[0], 60_000);
  assert.ok(events.some((e) => e.type === 'wait' && /Retry-After/.test(e.why)));
});

test('with the free key the rate-limit phase sends exactly Limit + 3 requests on it: 60 admitted, one 429, one refused create, one after the wait', async () => {
  const seen: string[] = [];
  const proxy = await startFlawProxy(target.baseUrl.replace(/\/v1$/, ''), {
    request: (req) => {
      if (req.headers.authorization === 'Bearer test-free-key') seen.push(req.url);
      return req;
    },
  });
  try {
    const report = await runConformance({
      baseUrl: `${proxy.origin}/v1`,
      apiKey: 'test-pro-key',
      rateLimitKey: 'test-free-key',
      dredd: false,
      // The concurrency phase's burst on the key is its own to count.
      phases: [...GENERATED_PHASES],
      clock: target.clock,
      sleep: async (ms) => target.clock.advance(ms),
    });
    assert.is(report.exitCode, 0);
    assert.is(seen.length, 63);
  } finally {
    await proxy.close();
  }
});

test('--no-wait reports re-admission as not run, never as passed', async () => {
  let slept = false;
  const report = await conformOn(target, {
    rateLimitKey: 'test-free-key',
    wait: false,
    sleep: async () => {
      slept = true;
    },
  });
  assert.is(outcomeOf(report, 'ratelimit.readmitted'), 'not-run');
  assert.is(slept, false);
  assert.is(outcomeOf(report, 'ratelimit.exhaustion-exact'), 'passed');
});

test('a Retry-After longer than --max-wait is not waited for', async () => {
  const report = await conformOn(target, { rateLimitKey: 'test-free-key', maxWaitSeconds: 10 });
  const readmitted = report.results.find((r) => r.id === 'ratelimit.readmitted')!;
  assert.is(readmitted.outcome, 'not-run');
  assert.match(readmitted.reason ?? '', /--max-wait 10/);
});

test('a key too large to exhaust is refused, not hammered', async () => {
  const report = await conformOn(target, { rateLimitKey: 'test-business-key', maxRateLimitRequests: 100, phases: [] });
  const exact = report.results.find((r) => r.id === 'ratelimit.exhaustion-exact')!;
  assert.is(exact.outcome, 'not-run');
  assert.match(exact.reason ?? '', /above --max-rate-limit-requests 100/);
  assert.ok(report.requests <= 41, `${report.requests} requests`);
});

test('a rate-limit key that starts refused is waited out once, then checked', async () => {
  // Exhaust the free key first, as a previous run would have.
  for (let i = 0; i < 61; i++) await fetch(`${target.baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer test-free-key' } });
  const report = await conformOn(target, { rateLimitKey: 'test-free-key' });
  assert.is(outcomeOf(report, 'ratelimit.exhaustion-exact'), 'passed');
});

test('an address another client used up is waited out once, the 429 attributed to the address, and no check fails for it', async () => {
  // Use up the reference server's allowance for keyless requests from this address (30, then refusals).
  for (let i = 0; i < 40; i++) await fetch(`${target.baseUrl}/pets`);
  const waits: string[] = [];
  const report = await conformOn(target, { onProgress: (e) => e.type === 'wait' && waits.push(e.why) });
  assert.is(
    report.exitCode,
    0,
    report.results
      .filter((r) => r.outcome === 'failed')
      .map((r) => `${r.id}: ${r.failures[0]?.message}`)
      .join('\n'),
  );
  assert.equal(
    report.pacing.attributed.map((a) => [a.budget, a.code]),
    [['address', 'rate_limited_ip']],
  );
  assert.ok(
    waits.some((w) => /the address .*refused \(429 rate_limited_ip/.test(w)),
    waits.join('\n'),
  );
});

test('an unreachable target is an UnreachableError, not a failed check', async () => {
  const port = await freePort();
  try {
    await runConformance({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k', dredd: false });
    assert.unreachable('expected an error');
  } catch (error) {
    assert.instance(error, UnreachableError);
    assert.match((error as Error).message, /cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/pets: ECONNREFUSED/);
  }
});

test.run();
