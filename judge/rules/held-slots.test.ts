// The admitted requests that may still count in a window: at least, at most, and only complete
// when every request since the window began was seen; bounded whatever the traffic.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHeldSlots, MAX_HELD_ENTRIES } from './held-slots.js';
import { DEFAULT_TOLERANCES, readSnapshot } from '../../spec/rules/snapshot.js';
import { T0, lost, ok } from '../../spec/rules/testing/recorded.ts';

const tol = DEFAULT_TOLERANCES;
const log = (admittedAt: number[]) => {
  const slots = createHeldSlots(tol);
  for (const at of admittedAt) slots.admitted(readSnapshot(ok(at, 0, T0 + at + 60)));
  return slots;
};
const asked = (at: number) => readSnapshot(ok(at, 0, T0 + at));

const cases: Array<[string, number[], number, number, { atLeast: number; atMost: number; complete: boolean }]> = [
  ['a window that began after every admission: nothing counts', [1, 2, 3], T0 + 120, 70, { atLeast: 0, atMost: 0, complete: true }],
  ['a sliding window beginning at the second admission: it and later ones count', [1, 11, 21], T0 + 71, 61, { atLeast: 1, atMost: 2, complete: true }],
  ['admissions within the clocks slack of its start may or may not count', [20, 30, 31, 32, 50], T0 + 91, 81, { atLeast: 1, atMost: 4, complete: true }],
  ['a window that began before the log did is not complete', [1, 2, 3], T0 + 60, 30, { atLeast: 2, atMost: 3, complete: false }],
];
for (const [name, admitted, reset, at, expected] of cases) {
  test(name, () => {
    assert.equal(log(admitted).since(reset, asked(at)), expected);
  });
}

test('a lost request in the window makes its count incomplete', () => {
  const slots = log([1, 11, 21]);
  slots.unknown(readSnapshot(lost(25)));
  assert.is(slots.since(T0 + 71, asked(61)).complete, false);
});

test('bounded: beyond its capacity the oldest half goes, and the log is incomplete where it was', () => {
  const slots = createHeldSlots(tol);
  slots.fit(10);
  for (let i = 0; i < 200; i++) slots.admitted(readSnapshot({ ...ok(1, 0, T0 + 61), receivedAtMs: (T0 + 1) * 1000 + i }));
  const held = slots.since(T0 + 61, asked(2));
  assert.ok(held.atMost <= 4 * 10 + 64, `${held.atMost} entries kept`);
  assert.is(held.complete, false);
  assert.ok(MAX_HELD_ENTRIES <= 20000);
});

test.run();
