import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from './eventually.ts';

test('eventually resolves once the condition holds, polling meanwhile', async () => {
  let polls = 0;
  await eventually(() => ++polls >= 3, 'the third poll', 5_000, 1);
  assert.is(polls, 3);
});

test('eventually says what it waited for, and for how long, when the bound is reached', async () => {
  try {
    await eventually(() => false, 'a stream that never ends', 20, 1);
    assert.unreachable('the bound was reached');
  } catch (error) {
    assert.match((error as Error).message, /^a stream that never ends: not seen within 20 ms, a bound only a hang should reach$/);
  }
});

test.run();
