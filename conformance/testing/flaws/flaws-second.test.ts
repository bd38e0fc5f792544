// The second implementation decides every open point differently: the same flaws, behind the same
// proxy, must be caught there too, by a check that the unbroken second implementation passes (the
// named one, or the one the catalogue names for it). The reference server's half: flaws.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunOptions } from '../../run.ts';
import { FLAWS } from './catalogue.ts';
import { conformOn, failedIds, HAND_WRITTEN_PHASES, needsOf, SEED, startTarget } from './harness.ts';

const flaws = suite('each flaw is caught on the second implementation, by a check the unbroken one passes');
const score = { caught: 0 };

const baselines = new Map<string, Set<string>>();

async function secondBaseline(options: Partial<Omit<RunOptions, 'rateLimitKey'>> & { rateLimitKey?: true }): Promise<Set<string>> {
  const key = JSON.stringify(options);
  let failing = baselines.get(key);
  if (!failing) {
    const target = await startTarget(undefined, 'second');
    try {
      failing = new Set(failedIds(await conformOn(target, { ...options, strict: true, seed: SEED })));
      baselines.set(key, failing);
    } finally {
      await target.stop();
    }
  }
  return failing;
}

for (const flaw of FLAWS) {
  const by = flaw.onSecond ?? flaw.caughtBy;
  flaws(`second implementation: ${flaw.id} → ${by}`, async () => {
    const options = { ...needsOf(by), seed: SEED, phases: HAND_WRITTEN_PHASES };
    const unbroken = await secondBaseline(options);
    assert.not.ok(unbroken.has(by), `${by} already fails on the unbroken second implementation`);
    const target = await startTarget(flaw, 'second');
    try {
      const report = await conformOn(target, { ...options, strict: true });
      const caught = report.results.find((r) => r.id === by)!;
      assert.is(caught.outcome, 'failed', `${by} was ${caught.outcome}; failing: ${failedIds(report).join(', ')}`);
      score.caught++;
    } finally {
      await target.stop();
    }
  });
}

flaws.after(() => {
  console.log(`\n${score.caught} of ${FLAWS.length} flaws caught on the second implementation\n`);
});

flaws.run();
