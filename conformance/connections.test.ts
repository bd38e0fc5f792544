// conform against a server that closes a kept-alive connection after every HEAD without saying so, as
// waitress does: no must failure (each GET that met the close is sent again, and its answer judged),
// and http.close-announced warns, naming the HEAD the close came after. A close announced with
// Connection: close is no finding; a run that reused no connection did not judge the check.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CheckResult } from '../judge/ledger.ts';
import type { Report, RunOptions } from './run.ts';
import { CLOSE_ANNOUNCED } from './checks/connections.ts';
import { startClosingProxy, type ClosingOptions, type ClosingServer } from './testing/closing-server.ts';
import { conformOn, startTarget } from './testing/flaws/harness.ts';

const SEED = 20_261_204;

/** The reference server behind a closing server, and a run of conform against it. */
async function conformBehind(closing: ClosingOptions, options: Partial<RunOptions>): Promise<{ report: Report; front: ClosingServer }> {
  const target = await startTarget();
  const base = new URL(target.baseUrl);
  const front = await startClosingProxy(base.origin, closing);
  try {
    const report = await conformOn({ ...target, baseUrl: `${front.origin}${base.pathname}` }, { seed: SEED, ...options });
    return { report, front };
  } finally {
    await front.close();
    await target.stop();
  }
}

const mustFailures = (report: Report) =>
  report.results.filter((r) => r.level === 'must' && r.outcome === 'failed').map((r) => `${r.id}: ${r.failures.map((f) => f.message).join(' | ')}`);

const result = (report: Report, id: string): CheckResult => report.results.find((r) => r.id === id)!;

/** Sent again after a close that came after a HEAD: the warning's words, with the request numbers. */
const AFTER_HEAD =
  /^[A-Z]+ \/v1\/pets\S* \(request (\d+)\) was sent again on a new connection: the target closed the kept-alive connection after its answer to HEAD \/v1\/pets\S* \(request (\d+)\) without Connection: close on that answer \(E[A-Z]+\)$/;

function assertWarnsAfterHead(check: CheckResult): void {
  assert.is(check.outcome, 'warned', check.reason);
  assert.ok(check.failed > 0);
  const [failure] = check.failures;
  const [, resent, head] = AFTER_HEAD.exec(failure!.message) ?? [];
  assert.ok(resent && head, failure!.message);
  // The evidence: the HEAD's answer (no Connection: close on it), then the request sent again, with the answer to its second sending.
  const [before, again] = failure!.evidence;
  assert.is(before?.seq, Number(head));
  assert.is(before?.request.method, 'HEAD');
  assert.is(before?.response?.headers.connection?.toLowerCase().includes('close') ?? false, false);
  assert.is(again?.seq, Number(resent));
  assert.ok(again?.response, 'the exchange holds the answer to the second sending');
  assert.is(again?.connection?.closedBeforeAnswer?.resent, true);
}

const unannounced = suite('a target that closes after every HEAD, unannounced');

const RUNS: Array<[name: string, closing: ClosingOptions, options: Partial<RunOptions>]> = [
  ['the close crossing the next request every time', { when: 'when-reused' }, { phases: ['coverage'] }],
  ['the same with --clients 32 and the concurrency phase', { when: 'when-reused' }, { phases: ['coverage', 'concurrency'], clients: 32 }],
];

for (const [name, closing, options] of RUNS) {
  unannounced(`${name}: no must failure, every answer judged, and ${CLOSE_ANNOUNCED} warns naming the HEAD`, async () => {
    const { report, front } = await conformBehind(closing, options);
    assert.equal(mustFailures(report), []);
    assert.is(report.exitCode, 0);
    assert.is(result(report, 'schema.every-response').outcome, 'passed');
    const check = result(report, CLOSE_ANNOUNCED);
    assertWarnsAfterHead(check);
    // Each request the target dropped was sent again once, and is one warning.
    assert.ok(front.dropped.length > 0);
    assert.is(check.failed, front.dropped.length);
  });
}

unannounced(
  'closed right after the answer, as waitress does: no must failure; a warning, if the kit reused the connection before it saw the close, names the HEAD',
  async () => {
    const { report } = await conformBehind({ when: 'at-once' }, { phases: ['coverage'] });
    assert.equal(mustFailures(report), []);
    const check = result(report, CLOSE_ANNOUNCED);
    // Whether the close crossed a request is a race the kit may win: then nothing had to be sent again.
    if (check.outcome === 'warned') assertWarnsAfterHead(check);
    else assert.is(check.outcome, 'passed', check.reason);
  },
);

unannounced.run();

const announced = suite('a close the target announces');

announced(`with Connection: close on the HEAD's answer: ${CLOSE_ANNOUNCED} passes, nothing is dropped or sent again`, async () => {
  const { report, front } = await conformBehind({ announce: true }, { phases: ['coverage'] });
  assert.equal(mustFailures(report), []);
  const check = result(report, CLOSE_ANNOUNCED);
  assert.is(check.outcome, 'passed', check.reason);
  assert.ok(check.judged > 0);
  assert.equal(front.dropped, []);
});

announced(`after every answer: no connection is reused, and ${CLOSE_ANNOUNCED} is not run, with the reason`, async () => {
  const { report } = await conformBehind({ announce: true, closesAfter: () => true }, { phases: ['examples'] });
  assert.equal(mustFailures(report), []);
  const check = result(report, CLOSE_ANNOUNCED);
  assert.is(check.outcome, 'not-run');
  assert.match(check.reason ?? '', /no connection was reused/);
});

announced.run();
