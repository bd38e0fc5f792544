import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isWhole, parseSegment, segmentOf } from './segments.js';

for (const [segment, from, to] of [
  ['0:1', 0, 1],
  ['0:1/2', 0, 0.5],
  ['1/2:1', 0.5, 1],
  ['1/3:2/3', 1 / 3, 2 / 3],
  ['0.25:50%', 0.25, 0.5],
] as const) {
  test(`parseSegment(${segment})`, () => {
    const s = parseSegment(segment);
    assert.equal([s.from, s.to, s.share], [from, to, to - from]);
  });
}

test('no segment is the whole run; an empty or malformed one is refused with the text named', () => {
  assert.ok(isWhole(segmentOf(null)));
  assert.ok(isWhole(segmentOf({ executionSegment: null })));
  assert.not.ok(isWhole(segmentOf({ executionSegment: '1/2:1', executionSegmentSequence: '0,1/2,1' })));
  assert.is(segmentOf({ executionSegment: '1/2:1', executionSegmentSequence: '0,1/2,1' }).sequence, '0,1/2,1');
  assert.throws(() => parseSegment('1/2:1/2'), /is empty/);
  assert.throws(() => parseSegment('half'), /not an execution segment/);
  assert.throws(() => parseSegment('0:3/2'), /"3\/2" is not a point/);
});

test.run();
