// The kit is only as good as the faults it catches: the reference server passes every check, and the
// same server with any one behaviour broken fails, with the check the fault catalogue names.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUE } from '../catalogue.ts';
import { FAULTS, RETRY_AFTER_AS_DATE } from './catalogue.ts';
import type { RunOptions } from '../run.ts';
import { conformOn, failedIds, outcomeOf, startTarget } from './harness.ts';

const RATE_LIMIT_KEY = 'test-free-key';
/** One seed for every run: a fault caught once is caught every time. */
const SEED = 20_251_205;

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

const score = { with: 0, without: 0 };

for (const fault of FAULTS) {
  const found = fault.foundBy ? `, found only by the ${fault.foundBy} phase` : '';
  faults(`${fault.id}: ${fault.description} → ${fault.caughtBy}${found}`, async () => {
    // What the run needs to see the fault follows from the check that catches it.
    const check = CATALOGUE.find((c) => c.id === fault.caughtBy)!;
    const needsKey = check.needs?.includes('rate-limit-key') === true;
    const should = check.level === 'should';
    const needs: Partial<RunOptions> = {
      ...(needsKey ? { rateLimitKey: RATE_LIMIT_KEY } : {}),
      ...(check.needs?.includes('ban-check') ? { banCheck: true, banProbe: 25, maxWaitSeconds: 900 } : {}),
    };
    const target = await startTarget(fault);
    try {
      const report = await conformOn(target, { ...needs, strict: should, seed: SEED });
      const caught = report.results.find((r) => r.id === fault.caughtBy)!;
      assert.is(caught.outcome, 'failed', `${fault.caughtBy} was ${caught.outcome}; failing: ${failedIds(report).join(', ')}`);
      assert.ok(caught.failures[0]!.message.length > 0);
      assert.is(report.exitCode, 1);
      score.with++;
    } finally {
      await target.stop();
    }
    // The same fault with the generated phases off (on a fresh server: faults remember what they
    // did): the fixed checks catch it, or (for the faults only generated inputs find) the run
    // passes, strict, without a single warning.
    const again = await startTarget(fault);
    try {
      const fixed = await conformOn(again, { ...needs, strict: true, phases: [] });
      if (fault.foundBy) assert.equal(failedIds(fixed), [], 'the fixed checks alone should miss it');
      else {
        assert.is(outcomeOf(fixed, fault.caughtBy), 'failed');
        score.without++;
      }
    } finally {
      await again.stop();
    }
    if (!should) return;
    // Without --strict a should-level fault is a warning and the run passes (the fixed checks alone,
    // unless only generated inputs find it: a generated must check may catch the same fault).
    const lenientTarget = await startTarget(fault);
    try {
      const lenient = await conformOn(lenientTarget, { ...needs, seed: SEED, ...(fault.foundBy ? {} : { phases: [] }) });
      assert.is(outcomeOf(lenient, fault.caughtBy), 'warned');
      assert.is(lenient.exitCode, 0, failedIds(lenient).join(', '));
    } finally {
      await lenientTarget.stop();
    }
  });
}

faults.after(() => {
  console.log(`\n${score.with} of ${FAULTS.length} faults caught with generated phases, ${score.without} without\n`);
});

faults.run();
