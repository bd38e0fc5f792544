import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { outcomeLine, refusal, runOutcome, setupStop } from './outcome.js';

test('the printed result is the exit code k6 gives', () => {
  assert.is(outcomeLine(runOutcome({ failedThresholds: 0, stop: null })), 'result: PASS (k6 exits 0)');
  assert.is(runOutcome({ failedThresholds: 2, stop: null }).exitCode, 99);
  const aborted = runOutcome({ failedThresholds: 0, stop: { reason: 'the key is limited', exitCode: 108 } });
  assert.equal([aborted.result, aborted.exitCode], ['ABORTED', 108]);
  assert.is(outcomeLine(aborted), 'result: ABORTED (k6 exits 108): the key is limited');
  // A stopped run is never PASS, nor FAIL on thresholds it had no time to meet.
  assert.is(runOutcome({ failedThresholds: 3, stop: { reason: 'x', exitCode: 108 } }).result, 'ABORTED');
});

test("setup's refusal reaches handleSummary through setup_data; a setup that threw leaves none", () => {
  assert.equal(setupStop({ setup_data: refusal('target down') }), { reason: 'target down', exitCode: 108 });
  assert.is(setupStop({ setup_data: { segment: '0:1' } }), null);
  assert.equal(setupStop({ setup_data: undefined })?.exitCode, 107);
  assert.is(setupStop({}, { hasSetup: false }), null);
});

test.run();
