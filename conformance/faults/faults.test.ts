// The kit is only as good as the faults it catches: the reference server passes every check, and the
// same server with any one behaviour broken fails, with the check the fault catalogue names.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUE } from '../catalogue.ts';
import { FAULTS, RETRY_AFTER_AS_DATE } from './catalogue.ts';
import { conformOn, failedIds, outcomeOf, startTarget } from './harness.ts';

const RATE_LIMIT_KEY = 'test-free-key';

const clean = suite('unbroken reference server');

clean('passes every check, should-level included, with rate limits and the ban check', async () => {
  const target = await startTarget();
  try {
    // The reference bans a key after 20 refusals in a minute, for 600 s: 25 repeats see it start.
    const report = await conformOn(target, { rateLimitKey: RATE_LIMIT_KEY, banCheck: true, banProbe: 25, maxWaitSeconds: 900, strict: true });
    const problems = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned');
    assert.equal(problems.map((r) => `${r.id}: ${r.failures[0]?.message}`), []);
    assert.is(report.exitCode, 0);
    for (const id of ['ratelimit.exhaustion-exact', 'ratelimit.readmitted', 'ratelimit.refused-until-retry', 'ratelimit.ban-lifts', 'list.next-link']) {
      assert.is(outcomeOf(report, id), 'passed', id);
    }
  } finally {
    await target.stop();
  }
});

clean('a pass-through proxy changes nothing, so every failure below is the fault', async () => {
  const target = await startTarget({});
  try {
    const report = await conformOn(target, { rateLimitKey: RATE_LIMIT_KEY, strict: true });
    assert.equal(failedIds(report), []);
  } finally {
    await target.stop();
  }
});

clean('Retry-After as an HTTP-date is valid RFC 9110: must checks pass, the integer form is only a should', async () => {
  const target = await startTarget(RETRY_AFTER_AS_DATE);
  try {
    const report = await conformOn(target, { rateLimitKey: RATE_LIMIT_KEY });
    assert.is(outcomeOf(report, 'ratelimit.retry-after-valid'), 'passed');
    assert.is(outcomeOf(report, 'ratelimit.retry-after-consistent'), 'passed');
    assert.is(outcomeOf(report, 'ratelimit.readmitted'), 'passed');
    assert.is(outcomeOf(report, 'ratelimit.retry-after-integer'), 'warned');
    assert.is(report.exitCode, 0);
  } finally {
    await target.stop();
  }
});

clean.run();

const faults = suite('each fault is caught by the check the catalogue names');

faults('the catalogue holds at least fifteen distinct faults, each naming a real check', () => {
  assert.ok(FAULTS.length >= 15);
  assert.is(new Set(FAULTS.map((f) => f.id)).size, FAULTS.length);
  for (const fault of FAULTS) assert.ok(CATALOGUE.some((c) => c.id === fault.caughtBy), `${fault.id} names ${fault.caughtBy}`);
});

for (const fault of FAULTS) {
  faults(`${fault.id}: ${fault.description} → ${fault.caughtBy}`, async () => {
    // What the run needs to see the fault follows from the check that catches it.
    const check = CATALOGUE.find((c) => c.id === fault.caughtBy)!;
    const needsKey = check.needs?.includes('rate-limit-key') === true;
    const should = check.level === 'should';
    const target = await startTarget(fault);
    try {
      const report = await conformOn(target, {
        ...(needsKey ? { rateLimitKey: RATE_LIMIT_KEY } : {}),
        ...(check.needs?.includes('ban-check') ? { banCheck: true, banProbe: 25, maxWaitSeconds: 900 } : {}),
        strict: should,
      });
      const caught = report.results.find((r) => r.id === fault.caughtBy)!;
      assert.is(caught.outcome, 'failed', `${fault.caughtBy} was ${caught.outcome}; failing: ${failedIds(report).join(', ')}`);
      assert.ok(caught.failures[0]!.message.length > 0);
      assert.is(report.exitCode, 1);
      if (should) {
        // Without --strict a should-level fault is a warning and the run passes.
        const lenient = await conformOn(target, needsKey ? { rateLimitKey: RATE_LIMIT_KEY } : {});
        assert.is(outcomeOf(lenient, fault.caughtBy), 'warned');
        assert.is(lenient.exitCode, 0, failedIds(lenient).join(', '));
      }
    } finally {
      await target.stop();
    }
  });
}

faults.run();
