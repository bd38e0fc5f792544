// The order the window rules hear answers in: a correct limiter's decision order, never against
// what the clocks make certain, and a stream held until no pending request can come before it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { arrange, createArrivalBuffer } from './arrival.js';
import { readSnapshot, type Snapshot } from '../../spec/rules/snapshot.js';
import { W1, W2, no, ok } from '../../spec/rules/testing/recorded.ts';
import type { RecordedResponse } from '../../spec/rules/snapshot.js';

const at = (r: RecordedResponse, ref: string, sentAtMs?: number): Snapshot => readSnapshot({ ...r, ref, ...(sentAtMs !== undefined ? { sentAtMs } : {}) });
const refs = (snapshots: Snapshot[]) => snapshots.map((s) => s.ref);

const cases: Array<[string, Snapshot[], string[]]> = [
  [
    'a burst: earlier window first, admitted by falling Remaining, then refusals',
    [at(no(2, W1, '58'), 'd'), at(ok(2, 0, W1), 'c'), at(ok(3, 2, W2), 'e'), at(ok(2, 2, W1), 'a'), at(ok(2, 1, W1), 'b')],
    ['a', 'b', 'c', 'd', 'e'],
  ],
  ['Resets a rounding second apart are one window', [at(ok(2, 0, W1 + 1), 'c'), at(ok(2, 2, W1 + 1), 'a'), at(ok(2, 1, W1), 'b')], ['a', 'b', 'c']],
  [
    'a request sent after an answer arrived comes after it, whatever its numbers say',
    [at(ok(5, 2, W1), 'late', ok(4, 0, W1).receivedAtMs + 1), at(ok(4, 1, W1), 'early')],
    ['early', 'late'],
  ],
];
for (const [name, input, expected] of cases) {
  test(name, () => {
    assert.equal(refs(arrange(input)), expected);
    assert.equal(refs(arrange(input.slice().reverse())), expected, 'in the other arrival order too');
  });
}

test('a stream is held while a request sent before an answer arrived is pending, then released arranged', () => {
  const buffer = createArrivalBuffer();
  const b = at(ok(2, 1, W1), 'b');
  const a = at(ok(2, 2, W1), 'a');
  buffer.offer(b);
  assert.equal(refs(buffer.release(b.receivedAtMs - 1000)), [], 'a request sent before b arrived is still pending');
  buffer.offer(a);
  assert.equal(refs(buffer.release(null)), ['a', 'b']);
  assert.is(buffer.size(), 0);
});

test('an answer waits with any held answer whose request may have been decided before it', () => {
  const buffer = createArrivalBuffer();
  const x = readSnapshot({ ...ok(2, 1, W1), sentAtMs: 1000, receivedAtMs: 1010, ref: 'x' });
  const y = readSnapshot({ ...ok(2, 2, W1), sentAtMs: 1005, receivedAtMs: 1030, ref: 'y' });
  buffer.offer(x);
  buffer.offer(y);
  assert.equal(refs(buffer.release(1020)), [], 'y waits for the request sent at 1020, and x for y');
  assert.equal(refs(buffer.release(null)), ['y', 'x']);
});

test('the buffer is bounded: beyond its limit the first in decision order go out, half the limit at a time, counted as forced', () => {
  const buffer = createArrivalBuffer({ limit: 2 });
  for (const [i, r] of [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1)].entries()) buffer.offer(at(r, String(i)));
  assert.equal(refs(buffer.release(0)), ['0']);
  assert.is(buffer.forced(), 1);
  assert.is(buffer.size(), 2);
});

test('under sustained overlap nothing is ever certain; forced out in decision order, a correct limiter stays in order', () => {
  // Requests 10 ms apart, each answered 35 ms later give or take: every one overlaps the next, and a
  // request sent first is still in flight, so no answer's place is ever certain.
  const buffer = createArrivalBuffer({ limit: 4 });
  const jitter = [30, 12, 41, 5, 28, 19, 44, 8, 33, 2, 25, 15];
  const answers = jitter.map((j, i) =>
    readSnapshot({ ...ok(0, 99 - i, W1, { limit: 100 }), sentAtMs: 1_000 + i * 10, receivedAtMs: 1_020 + i * 10 + j, ref: String(99 - i) }),
  );
  const released: Snapshot[] = [];
  for (const a of [...answers].sort((x, y) => x.receivedAtMs - y.receivedAtMs)) {
    buffer.offer(a);
    released.push(...buffer.release(999));
  }
  released.push(...buffer.release(null));
  assert.equal(
    refs(released),
    answers.map((a) => a.ref),
    'by falling Remaining, as decided',
  );
  assert.ok(buffer.forced() > 0);
});

test.run();
