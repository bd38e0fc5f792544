// rate-limit.js against real servers with 1, 32 and 128 concurrent clients, under the k6 shim on its
// fake clock: correct builds pass, the second implementation's racy build must fail wherever two
// requests overlap. The runs with a real k6 are in concurrent-clients-k6.test.ts.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { metricValue } from './lib/summary.js';
import { runScript } from './testing/k6-run.ts';
import { broken, mustBroken, type Summary } from './testing/rules-broken.ts';
import { captureConsole } from './testing/k6-shim.ts';
import { startWorkerTarget, type TargetSpec } from './testing/worker-target.ts';

const here = dirname(fileURLToPath(import.meta.url));
const RATE_LIMIT = join(here, 'rate-limit.js');
// 17.3 s into a minute: the run joins a window part-way, as a real run usually does.
const START = Date.UTC(2026, 10, 22, 10, 0, 17, 300);

interface Target {
  name: string;
  spec: TargetSpec;
  key(plan: string): string;
  /** Over-admits when requests overlap: a fault on purpose. */
  racy?: boolean;
  /** Should-level rules this target breaks by its own documented choice (they only warn). */
  chosen: string[];
}

const second = (name: string, options: Extract<TargetSpec, { kind: 'second' }>['options'], racy = false): Target => ({
  name,
  spec: { kind: 'second', options },
  key: (plan) => `second-${plan}-key`,
  racy,
  // Its Retry-After is an HTTP-date (its Decisions table): valid, but not integer seconds.
  chosen: ['retry_after_form'],
});

const TARGETS: Target[] = [
  { name: 'the reference server', spec: { kind: 'reference' }, key: (plan) => `test-${plan}-key`, chosen: [] },
  second("the second implementation's fixed-window build", { window: 'fixed' }),
  second("the second implementation's sliding-log build", { window: 'sliding' }),
  // Flask-Limiter's readings (judge/rules/readings.js): Reset when the window is empty, Remaining as of the answer.
  second("the second implementation's moving-window build", { window: 'moving', remaining: 'answer' }),
  second("the second implementation's racy build", { race: { limiter: true } }, true),
];

// A burst never goes past the Remaining last seen plus one (load/README.md), so 128 at once needs a
// limit above 127: the pro plan's 300. 1 and 32 run on the free plan's 60.
const LOADS = [
  { clients: 1, plan: 'free' },
  { clients: 32, plan: 'free' },
  { clients: 128, plan: 'pro' },
];

async function underShim(target: Target, clients: number, plan: string, more: Record<string, string> = {}) {
  const served = await startWorkerTarget(target.spec, START);
  const out = captureConsole();
  try {
    const env = { BASE_URL: served.baseUrl, API_KEY: target.key(plan), PLAN: plan, CLIENTS: String(clients), ...more };
    const r = await runScript(RATE_LIMIT, { env, handler: served.handler, startMs: START });
    const summary = JSON.parse(r.summary['rate-limit-summary.json']!) as Summary;
    return { r, summary, batches: served.batches, stdout: r.summary.stdout! };
  } finally {
    out.restore();
    await served.close();
  }
}

for (const target of TARGETS) {
  for (const { clients, plan } of LOADS) {
    // One client never overlaps two requests: the racy build is then the correct one.
    const fails = target.racy === true && clients > 1;
    test(`shim: rate-limit.js ${fails ? 'FAILS' : 'passes'} ${target.name} with ${clients} concurrent client(s) (${plan} plan)`, async () => {
      const { r, summary, batches, stdout } = await underShim(target, clients, plan);
      const found = broken(summary);
      assert.is(Math.max(...batches), clients, `bursts of ${clients} went out at once: ${batches.join(', ')}`);
      if (fails) {
        assert.is(summary.exitCode, 99, stdout);
        assert.ok(mustBroken(found).length > 0, `a must-level rule is broken: ${JSON.stringify(found)}`);
        assert.ok((found.over_admitted ?? 0) > 0 || (found.remaining_not_decremented ?? 0) > 0, JSON.stringify(found));
        return;
      }
      assert.equal(r.failed, [], `${JSON.stringify(r.failed)}\n${stdout}`);
      assert.is(summary.exitCode, 0, stdout);
      assert.equal(
        Object.keys(found).filter((kind) => !target.chosen.includes(kind)),
        [],
        `no rule broken but the target's own should-level choices: ${JSON.stringify(found)}`,
      );
      // The thresholds ask for these too; said here so that a failure names what was not reached.
      for (const event of ['window_saturated', 'window_crossed', 'readmitted', 'window_verified']) {
        assert.ok((metricValue(summary.k6, `ratelimit_${event}{scenario:limit}`, 'count') ?? 0) >= 1, `${event} reached\n${stdout}`);
      }
    });
  }
}

// The second implementation bans with 403 (its Decisions table), where the fake targets of
// scripts-run.test.ts ban with 429: a refusal all the same, so the ban scenario finds it.
test("shim: BAN=1 finds the second implementation's 403 ban, sees it enforced past the window it began in and lifted when Retry-After said", async () => {
  const banning = second("the second implementation's banning build", { banAfter: 5, banSeconds: 90 });
  const { r, summary, stdout } = await underShim(banning, 1, 'free', { BAN: '1', BAN_DURATION: '150s' });
  assert.equal(r.failed, [], `${JSON.stringify(r.failed)}\n${stdout}`);
  assert.is(summary.exitCode, 0, stdout);
  assert.ok(
    r.shim.samples.some((s) => s.metric === 'http_reqs' && s.tags.status === '403'),
    'the ban was answered with 403',
  );
  assert.match(
    stdout,
    /ban scenario: ban detected 1, enforced on \d+ request\(s\) while it lasted, [1-9]\d* of them after the window it began in had ended; lifted when Retry-After said: yes/,
  );
});

test.run();
