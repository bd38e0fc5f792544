// --max-response-time: off unless given; then each answer slower than the bound fails
// responses.max-response-time, named by its request; no answer, or an input shrinking replaced, is
// not judged here.
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../../judge/exchange.ts';
import { conformOn, outcomeOf, startTarget, type Target } from '../testing/flaws/harness.ts';
import { MAX_RESPONSE_TIME, withinBound } from './response-time.ts';

const unit = suite('withinBound');

function exchange(extra: Partial<Exchange>): Exchange {
  return {
    seq: 1,
    operationId: 'getPet',
    purpose: 'get pet 1',
    request: { method: 'GET', url: 'http://h/v1/pets/1', headers: {} },
    response: { status: 200, headers: {}, body: '{}' },
    sentAt: 0,
    receivedAt: 0,
    ...extra,
  };
}

const CASES: Array<[what: string, extra: Partial<Exchange>, verdict: 'ok' | 'fails' | 'not judged']> = [
  ['faster than the bound', { elapsedMs: 40 }, 'ok'],
  ['exactly the bound', { elapsedMs: 100 }, 'ok'],
  ['slower than the bound', { elapsedMs: 250.4 }, 'fails'],
  ['no answer (timed out)', { elapsedMs: 10_000, response: undefined, error: 'ETIMEDOUT' } as Partial<Exchange>, 'not judged'],
  ['an input shrinking replaced', { elapsedMs: 250, superseded: true }, 'not judged'],
  ['no time kept (an exchange not sent by the kit)', {}, 'not judged'],
];

for (const [what, extra, verdict] of CASES) {
  unit(`${what}: ${verdict}`, () => {
    const result = withinBound(exchange(extra), 100);
    if (verdict === 'not judged') return assert.is(result, undefined);
    assert.is(result?.ok, verdict === 'ok');
    if (result && !result.ok) assert.is(result.message, 'get pet 1: answered in 250 ms, over --max-response-time 100 ms');
  });
}

unit.run();

const run = suite('--max-response-time against a target that holds getPet');
/** How long the target holds each GET /pets/{id}: far above the bound the run is given. */
const HELD_MS = 300;
let target: Target;

run.before(async () => {
  target = await startTarget({
    request: async (req) => {
      if (req.method === 'GET' && /\/pets\/\d+$/.test(req.url)) await sleep(HELD_MS);
      return req;
    },
  });
});
run.after(async () => {
  await target.stop();
});

run('off unless given: not run, and says which option turns it on', async () => {
  const report = await conformOn(target, { phases: [] });
  const result = report.results.find((r) => r.id === MAX_RESPONSE_TIME)!;
  assert.is(result.outcome, 'not-run');
  assert.match(result.reason ?? '', /--max-response-time/);
  assert.is(report.exitCode, 0);
});

run('given a bound below the hold: each held answer fails it, named by its request', async () => {
  const report = await conformOn(target, { phases: [], maxResponseTimeMs: 100 });
  assert.is(outcomeOf(report, MAX_RESPONSE_TIME), 'failed');
  // A busy machine may take other answers past 100 ms too: the held ones are looked for among them.
  const failures = report.results.find((r) => r.id === MAX_RESPONSE_TIME)!.failures;
  const held = failures.filter((f) => f.evidence[0]?.request.method === 'GET' && /\/pets\/\d+$/.test(f.evidence[0].request.url));
  assert.ok(held.length > 0, failures.map((f) => f.message).join('; '));
  // Each named by the request's purpose: a getPet of the checks ("get pet 1"), a Location followed, ...
  for (const failure of held) assert.match(failure.message, /^\S.*: answered in \d+ ms, over --max-response-time 100 ms$/, failure.message);
  assert.ok(
    held.some((f) => f.message.startsWith('get ')),
    held.map((f) => f.message).join('; '),
  );
  assert.is(report.exitCode, 1);
});

run.run();
