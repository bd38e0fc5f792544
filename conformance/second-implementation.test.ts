// The kit on an implementation that is not ours: the second implementation (conformance/testing)
// decides every point the specification leaves open differently from the reference server. It must
// conform, with and without the ban check; whatever it lacks is "not run", never a pass.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../lib/errors.ts';
import { conformOn, failedIds, outcomeOf, startTarget, type Target } from './testing/flaws/harness.ts';
import type { FlawBehaviour } from './testing/flaws/proxy.ts';
import { withoutHeaders } from './testing/flaws/rewrite.ts';
import type { Report } from './run.ts';
import type { SecondServerOptions } from './testing/second-server/index.ts';

const SEED = 20_261_123;

async function on<T>(second: SecondServerOptions, run: (target: Target) => Promise<T>, flaw?: FlawBehaviour): Promise<T> {
  const target = await startTarget(flaw, 'second', second);
  try {
    return await run(target);
  } finally {
    await target.stop();
  }
}

function musts(report: Report): string[] {
  return report.results.filter((r) => r.outcome === 'failed').map((r) => `${r.id}: ${r.failures[0]?.message}`);
}

/** No vacuous verdict: a pass judged something, a check that judged nothing says why it did not run. */
function noVacuousVerdict(report: Report): void {
  for (const r of report.results) {
    if (r.outcome === 'passed') assert.ok(r.judged > 0, `${r.id} passed without judging anything`);
    if (r.outcome === 'not-run') assert.ok((r.reason ?? '').length > 0, `${r.id} did not run and says not why`);
  }
}

const kit = suite('the kit on the second implementation');

kit('conforms: every must check passes, its declared choices are held and reported', async () => {
  await on({}, async (target) => {
    const report = await conformOn(target, { rateLimitKey: true, seed: SEED });
    assert.equal(musts(report), []);
    assert.is(report.exitCode, 0);
    noVacuousVerdict(report);
    for (const id of [
      'choices.declared',
      'ratelimit.per-key',
      'create.server-assigns-id',
      'create.location',
      'create.no-extra-properties',
      'list.next-link',
      'stateful.list-pages',
      'input.invalid-rejected',
      'ratelimit.readmitted',
    ]) {
      assert.is(outcomeOf(report, id), 'passed', id);
    }
    assert.match(report.choices.paging!, /^link: Link rel="next" with .*page/);
    assert.is(report.choices['limit-out-of-range']?.split(':')[0], 'clamp');
    assert.is(report.choices['non-integer-id'], '404');
    assert.is(report.choices['default-status'], 'pending');
    assert.match(report.choices['retry-after']!, /^http-date/);
    assert.match(report.choices.order!, /newest first/);
    // Its own choices only warn: the reference server's decisions are should-level.
    assert.ok(failedIds(report).includes('list.limit-bounds'));
  });
});

kit('with --ban-check: a ban answered 403 is a refusal, enforced while it lasts, and lifts when it said', async () => {
  await on({}, async (target) => {
    const report = await conformOn(target, { rateLimitKey: true, banCheck: true, banProbes: 8, maxWaitSeconds: 300, phases: [], seed: SEED });
    assert.equal(musts(report), []);
    for (const id of ['ratelimit.refused-until-retry', 'ratelimit.ban-lifts', 'ratelimit.reset-stable', 'choices.declared'])
      assert.is(outcomeOf(report, id), 'passed', id);
    assert.is(report.choices['ban-status'], '403');
    assert.ok(
      report.pacing.waits.some((w) => /^ban: /.test(w.why)),
      'the probes inside the ban say what they wait for',
    );
    assert.is(
      report.pacing.waitedMs,
      report.pacing.waits.reduce((sum, w) => sum + w.ms, 0),
    );
  });
});

kit('a declared choice the target does not keep is a must failure of choices.declared', async () => {
  await on({}, async (target) => {
    const report = await conformOn(target, { phases: [], choices: { ...target.choices, 'non-integer-id': '400', 'limit-out-of-range': 'refuse' } });
    assert.is(outcomeOf(report, 'choices.declared'), 'failed');
    const messages = report.results.find((r) => r.id === 'choices.declared')!.failures.map((f) => f.message);
    assert.ok(
      messages.some((m) => /non-integer-id: declared 400, the target did 404/.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /limit-out-of-range: declared refuse, the target did clamp/.test(m)),
      messages.join('\n'),
    );
  });
});

const subjects = suite('a check whose subject is missing is "not run", with the reason, never passed');

const MISSING: Array<[string, SecondServerOptions, Parameters<typeof conformOn>[1], Record<string, RegExp>, FlawBehaviour?]> = [
  [
    'no Location on the 201 (behind a proxy that drops it)',
    {},
    { phases: [] },
    { 'create.location': /carries no Location/ },
    { response: (res) => withoutHeaders(res, 'location') },
  ],
  ['no Link (paging by a page parameter only)', { paging: 'none' }, {}, { 'list.next-link': /not a Link the kit can follow/ }],
  ['an empty store', { empty: true, paging: 'none' }, { phases: [] }, { 'list.next-link': /not a Link/ }],
  [
    'no ban within the probes',
    { banAfter: 1000 },
    { rateLimitKey: true, banCheck: true, banProbes: 5, phases: [] },
    { 'ratelimit.ban-lifts': /no ban within 5/ },
  ],
  [
    "no ban within the window's allowance (the default depth)",
    { banAfter: 1000 },
    { rateLimitKey: true, banCheck: true, phases: [] },
    { 'ratelimit.ban-lifts': /^no ban within 60 repeated requests after the first 429 \(probed up to the window's allowance of 60\)/ },
  ],
  ['no spare key', {}, { phases: [] }, { 'ratelimit.per-key': /--rate-limit-key/, 'ratelimit.readmitted': /--rate-limit-key/ }],
  ['no declaration', {}, { phases: [], choices: {} }, { 'choices.declared': /no choice declared/ }],
];

for (const [what, second, options, expected, flaw] of MISSING) {
  subjects(what, async () => {
    await on(
      second,
      async (target) => {
        const report = await conformOn(target, { seed: SEED, ...options });
        assert.equal(musts(report), []);
        noVacuousVerdict(report);
        for (const [id, reason] of Object.entries(expected)) {
          const r = report.results.find((x) => x.id === id)!;
          assert.is(r.outcome, 'not-run', `${id}: ${r.outcome}`);
          assert.match(r.reason ?? '', reason);
        }
      },
      flaw,
    );
  });
}

subjects("--api-key's window changing between the readings around the other key's traffic is noted, neither passed on nor failed", async () => {
  // From the rate-limit key's tenth request on (after the first reading), --api-key's answers name a Reset a minute later.
  const moved: FlawBehaviour = {
    response: (res, req, { memory }) => {
      if (req.headers.authorization === 'Bearer second-free-key') memory.set('sent', ((memory.get('sent') as number | undefined) ?? 0) + 1);
      const reset = Number(res.headers['x-ratelimit-reset']);
      return ((memory.get('sent') as number | undefined) ?? 0) >= 10 && req.headers.authorization === 'Bearer second-pro-key' && Number.isInteger(reset)
        ? { ...res, headers: { ...res.headers, 'x-ratelimit-reset': String(reset + 60) } }
        : res;
    },
  };
  await on(
    {},
    async (target) => {
      const report = await conformOn(target, { rateLimitKey: true, phases: [], seed: SEED });
      const perKey = report.results.find((r) => r.id === 'ratelimit.per-key')!;
      assert.is(perKey.outcome, 'passed', 'the admission while the other key is refused is still judged');
      assert.ok(
        perKey.notes.some((n) => /window changed between the readings .* could not be counted/.test(n)),
        perKey.notes.join('\n'),
      );
    },
    moved,
  );
});

subjects('the same key for --api-key and --rate-limit-key is a usage error, before any request', async () => {
  await on({}, async (target) => {
    try {
      await conformOn(target, { rateLimitKey: target.apiKey });
      assert.unreachable('should have refused');
    } catch (error) {
      assert.instance(error, UsageError);
      assert.match((error as Error).message, /same key/);
    }
  });
});

kit.run();
subjects.run();
