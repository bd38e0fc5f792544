// A target that stops answering ends the run: after a few requests in a row get no answer at all,
// the run says so (the last request answered, the first not), sends nothing more, Dredd included,
// and its verdict is never a pass. Each run here would otherwise go on for minutes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatConsole } from './report/console.ts';
import { formatHtml } from './report/html.ts';
import type { Report } from './run.ts';
import { conformOn } from './testing/flaws/harness.ts';
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
}

for (const after of [4, 12]) {
  test(`a target that answers ${after} requests on /pets, then none: the run ends, having sent no more than ${UNANSWERED_IN_A_ROW} it never answered`, async () => {
    target = await startTargetHangingAfter(after);
    const report = await within(conformOn(target, { timeoutMs: 200 }));
    assertStopped(report);
    assert.ok(target.held() <= UNANSWERED_IN_A_ROW, `${target.held()} requests held`);
  });
}

test('a target that hangs from the first request Dredd sends: Dredd ends early, and no later phase sends anything', async () => {
  target = await startHangingTarget((req) => /dredd/i.test(req.headers['user-agent'] ?? ''));
  const report = await within(conformOn(target, { dredd: true, timeoutMs: 200 }));
  assertStopped(report);
  assert.match(report.dredd?.error ?? '', /the target stopped answering/);
  assert.ok(target.held() <= UNANSWERED_IN_A_ROW, `${target.held()} requests held`);
});

test.run();
