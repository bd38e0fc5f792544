// The model phase's power, measured: every flaw of the catalogue run with the hand-written checks
// switched off and only the model phase on (its checks selected, so no other area sends a request).
// What it catches is printed, not asserted (a new flaw the model misses is a finding about the model,
// not a broken build); what is asserted is that every run judged what it was asked to judge.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUE } from '../../catalogue.ts';
import { FLAWS } from './catalogue.ts';
import { conformOn, startTarget } from './harness.ts';

/** The seed of flaws.test.ts: one history for every flaw. */
const SEED = 20_251_205;
/** Requests of the model's history: four times the default, the catalogue's measure (conformance/README.md). */
const MODEL_REQUESTS = 400;
const MODEL_CHECKS = ['model.answers', 'model.window-admissible', 'history.linearizable'];

const histories = mkdtempSync(join(tmpdir(), 'model-power-'));
process.on('exit', () => rmSync(histories, { recursive: true, force: true }));

const levelOf = (id: string) => CATALOGUE.find((c) => c.id === id)!.level;
const caught: string[] = [];
const missed: string[] = [];

const power = suite('the model phase alone, on every flaw of the catalogue');

for (const flaw of FLAWS) {
  power(`${flaw.id} (${levelOf(flaw.caughtBy)}: ${flaw.caughtBy})`, async () => {
    const target = await startTarget(flaw);
    try {
      const report = await conformOn(target, {
        rateLimitKey: true,
        // As the flaws test runs it: a ban is looked for when the check that catches the flaw needs it.
        banCheck: CATALOGUE.find((c) => c.id === flaw.caughtBy)?.needs?.includes('ban-check') ?? false,
        maxWaitSeconds: 900,
        phases: ['model'],
        checks: MODEL_CHECKS,
        modelRequests: MODEL_REQUESTS,
        seed: SEED,
        strict: true,
        historyDir: histories,
      });
      const results = report.results.filter((r) => MODEL_CHECKS.includes(r.id));
      assert.ok(
        results.every((r) => r.outcome === 'passed' || r.outcome === 'failed'),
        results.map((r) => `${r.id}: ${r.outcome} ${r.reason ?? ''}`).join('; '),
      );
      (results.some((r) => r.outcome === 'failed') ? caught : missed).push(flaw.id);
    } finally {
      await target.stop();
    }
  });
}

power.after(() => {
  const must = FLAWS.filter((f) => levelOf(f.caughtBy) === 'must');
  const mustCaught = must.filter((f) => caught.includes(f.id)).length;
  console.log(
    `\nmodel phase alone (${MODEL_REQUESTS} requests, seed ${SEED}): ${caught.length} of ${FLAWS.length} flaws caught; ${mustCaught} of the ${must.length} whose check is a must\nmissed: ${missed.join(', ')}\n`,
  );
});

power.run();
