// @ts-check
// The verdict a script prints is the one k6 exits with. setup() never throws for a refusal it can
// explain: it hands the reason to the scenarios, whose first iteration aborts the run, so that
// handleSummary, which sees setup's data, can say why.

/** k6's exit codes (go.k6.io/k6/errext/exitcodes) for the outcomes a script can cause. */
export const EXIT_CODES = { pass: 0, thresholdsFailed: 99, setupFailed: 107, scriptAborted: 108 };

/**
 * @typedef {{ refused: string }} Refusal what setup returns when the run must not go on
 * @typedef {{ result: 'PASS' | 'FAIL' | 'ABORTED', exitCode: number, reason: string | null }} RunOutcome
 */

/**
 * @param {string} reason
 * @param {Record<string, unknown>} [facts] what handleSummary still needs to know of the run (its execution segment)
 * @returns {Refusal & Record<string, unknown>}
 */
export function refusal(reason, facts) {
  return Object.assign({}, facts || {}, { refused: reason });
}

/**
 * Why setup stopped the run, from the summary data's `setup_data`; null when it did not.
 * @param {{ setup_data?: unknown }} data
 * @param {{ hasSetup: boolean }} [options]
 * @returns {{ reason: string, exitCode: number } | null}
 */
export function setupStop(data, options) {
  const hasSetup = !options || options.hasSetup;
  const s = /** @type {any} */ (data).setup_data;
  if (hasSetup && (s === undefined || s === null)) {
    return { reason: 'setup() did not finish: k6 prints its error after this summary', exitCode: EXIT_CODES.setupFailed };
  }
  if (s && typeof s === 'object' && typeof s.refused === 'string') return { reason: s.refused, exitCode: EXIT_CODES.scriptAborted };
  return null;
}

/**
 * @param {{ failedThresholds: number, stop: { reason: string, exitCode: number } | null }} facts
 * @returns {RunOutcome}
 */
export function runOutcome(facts) {
  if (facts.stop !== null) return { result: 'ABORTED', exitCode: facts.stop.exitCode, reason: facts.stop.reason };
  if (facts.failedThresholds > 0) return { result: 'FAIL', exitCode: EXIT_CODES.thresholdsFailed, reason: facts.failedThresholds + ' threshold(s) failed' };
  return { result: 'PASS', exitCode: EXIT_CODES.pass, reason: null };
}

/**
 * @param {RunOutcome} o
 */
export function outcomeLine(o) {
  if (o.result === 'PASS') return 'result: PASS (k6 exits 0)';
  return 'result: ' + o.result + ' (k6 exits ' + o.exitCode + '): ' + o.reason;
}
