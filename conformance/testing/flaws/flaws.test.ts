// The kit is only as good as the flaws it catches: the reference server passes every check, and the
// same server with any one behaviour broken fails, with the check the flaw catalogue names.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUE } from '../../catalogue.ts';
import { FLAWS, RETRY_AFTER_AS_DATE } from './catalogue.ts';
import { conformOn, failedIds, HAND_WRITTEN_PHASES, needsOf, outcomeOf, SEED, startTarget } from './harness.ts';

const clean = suite('unbroken reference server');

clean('passes every check, should-level included, with rate limits and the ban check', async () => {
  const target = await startTarget();
  try {
    // The reference bans a key after 20 refusals in a minute, for 600 s: the default depth (the free
    // key's window of 60) sees it start.
    const report = await conformOn(target, { rateLimitKey: true, banCheck: true, maxWaitSeconds: 900, strict: true });
    const problems = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned');
    assert.equal(
      problems.map((r) => `${r.id}: ${r.failures[0]?.message}`),
      [],
    );
    assert.is(report.exitCode, 0);
    for (const id of ['ratelimit.exhaustion-exact', 'ratelimit.readmitted', 'ratelimit.refused-until-retry', 'ratelimit.ban-lifts', 'list.next-link']) {
      assert.is(outcomeOf(report, id), 'passed', id);
    }
  } finally {
    await target.stop();
  }
});

clean('a pass-through proxy changes nothing, so every failure below is the flaw', async () => {
  const target = await startTarget({});
  try {
    const report = await conformOn(target, { rateLimitKey: true, strict: true });
    assert.equal(failedIds(report), []);
  } finally {
    await target.stop();
  }
});

clean('Retry-After as an HTTP-date is valid RFC 9110: must checks pass, the integer form is only a should', async () => {
  const target = await startTarget(RETRY_AFTER_AS_DATE);
  try {
    const report = await conformOn(target, { rateLimitKey: true });
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

const flaws = suite('each flaw is caught by the check the catalogue names, on the reference server');

flaws('the catalogue holds at least fifteen distinct flaws, each naming a real check', () => {
  assert.ok(FLAWS.length >= 15);
  assert.is(new Set(FLAWS.map((f) => f.id)).size, FLAWS.length);
  for (const flaw of FLAWS) {
    assert.ok(
      CATALOGUE.some((c) => c.id === flaw.caughtBy),
      `${flaw.id} names ${flaw.caughtBy}`,
    );
    if (flaw.onSecond)
      assert.ok(
        CATALOGUE.some((c) => c.id === flaw.onSecond),
        `${flaw.id} names ${flaw.onSecond}`,
      );
  }
});

const score = { with: 0, without: 0 };

for (const flaw of FLAWS) {
  const found = flaw.foundBy ? `, found only by the ${flaw.foundBy} phase` : '';
  flaws(`${flaw.id}: ${flaw.description} → ${flaw.caughtBy}${found}`, async () => {
    const check = CATALOGUE.find((c) => c.id === flaw.caughtBy)!;
    const should = check.level === 'should';
    const target = await startTarget(flaw);
    try {
      const report = await conformOn(target, { ...needsOf(flaw.caughtBy), strict: should, seed: SEED, phases: HAND_WRITTEN_PHASES });
      const caught = report.results.find((r) => r.id === flaw.caughtBy)!;
      assert.is(caught.outcome, 'failed', `${flaw.caughtBy} was ${caught.outcome}; failing: ${failedIds(report).join(', ')}`);
      assert.ok(caught.failures[0]!.message.length > 0);
      assert.is(report.exitCode, 1);
      score.with++;
    } finally {
      await target.stop();
    }
    // The same flaw with the generated phases off (on a fresh server: flaws remember what they
    // did): the fixed checks catch it, or (for the flaws only generated inputs find) the run
    // passes, strict, without a single warning.
    const again = await startTarget(flaw);
    try {
      const fixed = await conformOn(again, { ...needsOf(flaw.caughtBy), strict: true, phases: [] });
      if (flaw.foundBy) assert.equal(failedIds(fixed), [], 'the fixed checks alone should miss it');
      else {
        assert.is(outcomeOf(fixed, flaw.caughtBy), 'failed');
        score.without++;
      }
    } finally {
      await again.stop();
    }
    if (!should) return;
    // Without --strict a should-level flaw is a warning and the run passes (the fixed checks alone,
    // unless only generated inputs find it: a generated must check may catch the same flaw).
    const lenientTarget = await startTarget(flaw);
    try {
      const lenient = await conformOn(lenientTarget, { ...needsOf(flaw.caughtBy), seed: SEED, phases: flaw.foundBy ? HAND_WRITTEN_PHASES : [] });
      assert.is(outcomeOf(lenient, flaw.caughtBy), 'warned');
      assert.is(lenient.exitCode, 0, failedIds(lenient).join(', '));
    } finally {
      await lenientTarget.stop();
    }
  });
}

flaws.after(() => {
  console.log(
    `\n${score.with} of ${FLAWS.length} flaws caught on the reference server with generated phases, ${score.without} without (the model phase alone: model-power.test.ts; the second implementation: flaws-second.test.ts)\n`,
  );
});

flaws.run();
