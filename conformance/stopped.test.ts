// A target that stops answering ends the run: after a few requests in a row get no answer at all,
// the run says so (the last request answered, the first not), sends nothing more, Dredd included,
// and its verdict is never a pass. Each run here would otherwise go on for minutes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatConsole } from './report/console.ts';
import { formatHtml } from './report/html.ts';
import { formatJUnit } from './report/junit.ts';
import type { Report, RunOptions } from './run.ts';
import { FLAWS } from './testing/flaws/catalogue.ts';
import { conformOn, startTarget, type Target } from './testing/flaws/harness.ts';
import type { FlawBehaviour, ProxyResponse } from './testing/flaws/proxy.ts';
import { startHangingTarget, startTargetHangingAfter, type HangingTarget } from './testing/hanging.ts';
import { UNANSWERED_IN_A_ROW } from './silence.ts';

const test = suite('a target that stops answering');

/** Ends a test whose run hangs, so that the failure is an assertion, not a stuck suite; never a time the run must meet. */
const HUNG_TEST_MS = 240_000;

function within<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the run had not ended after ${HUNG_TEST_MS} ms`)), HUNG_TEST_MS);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

let target: HangingTarget | undefined;
test.after.each(async () => {
  await target?.stop();
  target = undefined;
});

function assertStopped(report: Report): void {
  assert.ok(report.stopped, 'the report says the run stopped');
  assert.match(report.stopped!, new RegExp(`the target stopped answering: ${UNANSWERED_IN_A_ROW} requests in a row got no answer`));
  assert.match(report.stopped!, /the last answered: [A-Z]+ http:\/\/127\.0\.0\.1:\d+\/v1\/pets\S* \(\d{3}/);
  assert.match(report.stopped!, /the first unanswered: [A-Z]+ http:\/\/127\.0\.0\.1:\d+\/v1\/pets/);
  assert.ok(report.exitCode !== 0, `exit ${report.exitCode}`);
  const passed = report.results.filter((r) => r.outcome === 'passed').map((r) => r.id);
  assert.equal(passed, [], 'a run that could not judge what it was asked to reports no pass');
  assert.ok(formatConsole(report).includes(`stopped: ${report.stopped}`), 'the console says why the run stopped');
  assert.match(formatHtml(report), /Stopped early:<\/strong> the target stopped answering/);
  assert.match(formatJUnit(report), /<property name="stopped" value="the target stopped answering: /);
}

/**
 * The per-request timeout: what ends a held request. Long enough that a real answer of the in-process
 * target comes within it on a busy machine (200 ms did not: the preflight timed out under two busy loops).
 */
const TIMEOUT_MS = 2_000;

for (const after of [4, 12]) {
  test(`a target that answers ${after} requests on /pets, then none: the run ends, having sent no more than ${UNANSWERED_IN_A_ROW} it never answered`, async () => {
    target = await startTargetHangingAfter(after);
    const report = await within(conformOn(target, { timeoutMs: TIMEOUT_MS }));
    assertStopped(report);
    assert.ok(target.held() <= UNANSWERED_IN_A_ROW, `${target.held()} requests held`);
  });
}

test('a target that hangs from the first request Dredd sends: Dredd ends early, and no later phase sends anything', async () => {
  target = await startHangingTarget((req) => /dredd/i.test(req.headers['user-agent'] ?? ''));
  const report = await within(conformOn(target, { dredd: true, timeoutMs: TIMEOUT_MS }));
  assertStopped(report);
  assert.match(report.dredd?.error ?? '', /the target stopped answering/);
  assert.ok(target.held() <= UNANSWERED_IN_A_ROW, `${target.held()} requests held`);
});

test.run();

const exitFirst = suite('--exitfirst');

/** The flaw, counting the requests that reach the target after the first answer it broke. */
function counted(flaw: FlawBehaviour, broke: (res: ProxyResponse) => boolean): FlawBehaviour & { after(): number } {
  let broken = false;
  let after = 0;
  return {
    request: (req, state) => {
      if (broken) after++;
      return flaw.request ? flaw.request(req, state) : req;
    },
    response: (res, req, state) => {
      const out = flaw.response ? flaw.response(res, req, state) : res;
      if (broke(out)) broken = true;
      return out;
    },
    after: () => after,
  };
}

let flawed: Target | undefined;
exitFirst.after.each(async () => {
  await flawed?.stop();
  flawed = undefined;
});

const flaw = (id: string) => FLAWS.find((f) => f.id === id)!;

const STOPS: Array<{ flaw: string; failed: string; broke: (res: ProxyResponse) => boolean; phases?: RunOptions['phases'] }> = [
  // Recorded by the contract phase as it goes.
  { flaw: 'create-answers-200', failed: 'create.201', broke: (res) => res.status === 200 && res.body.startsWith('{') },
  // Found by judging each exchange as it completes (errors.no-server-error is judged after the phases otherwise).
  { flaw: 'name-non-ascii-500', failed: 'errors.no-server-error', broke: (res) => res.status === 500, phases: ['coverage'] },
];

for (const stop of STOPS) {
  exitFirst(`${stop.flaw}: the run stops at ${stop.failed}, sends nothing more, and no other check passes`, async () => {
    const target = counted(flaw(stop.flaw), stop.broke);
    flawed = await startTarget(target);
    const report = await conformOn(flawed, { exitFirst: true, ...(stop.phases ? { phases: stop.phases } : {}) });
    assert.is(report.exitCode, 1);
    assert.is(report.results.find((r) => r.id === stop.failed)!.outcome, 'failed');
    // The stop names the first must failure; the same answer may fail more than one check at once.
    const named = /--exitfirst: (\S+) \(must\) failed/.exec(report.stopped ?? '')?.[1];
    assert.is(report.results.find((r) => r.id === named)?.outcome, 'failed', report.stopped);
    assert.is(target.after(), 0, 'requests after the failing answer');
    for (const r of report.results.filter((r) => r.outcome !== 'failed' && r.outcome !== 'warned')) assert.is(r.outcome, 'not-run', r.id);
    assert.ok(
      report.results.some((r) => /^not run: --exitfirst/.test(r.reason ?? '')),
      'the checks the stop left unfinished say so',
    );
  });
}

exitFirst('a should-level failure stops the run only with --strict', async () => {
  flawed = await startTarget(flaw('no-www-authenticate'));
  const loose = await conformOn(flawed, { exitFirst: true, phases: [] });
  assert.is(loose.stopped, undefined);
  assert.is(loose.results.find((r) => r.id === 'auth.www-authenticate')!.outcome, 'warned');
  assert.ok(loose.results.some((r) => r.outcome === 'passed'));
  const strict = await conformOn(flawed, { exitFirst: true, strict: true, phases: [] });
  assert.match(strict.stopped ?? '', /--exitfirst: auth\.www-authenticate \(should\) failed/);
  assert.is(strict.exitCode, 1);
});

exitFirst('without a failure --exitfirst changes nothing', async () => {
  flawed = await startTarget();
  const report = await conformOn(flawed, { exitFirst: true, phases: [] });
  assert.is(report.stopped, undefined);
  assert.is(report.exitCode, 0);
});

exitFirst.run();
