// @ts-check
// How rate-limit.js judges its key's responses: each batch through spec/rules' window rules (the
// conformance kit's too), every broken rule and event one k6 sample for thresholds.js to judge.
// Pure JavaScript, so Node tests drive it without k6.
import { DEFAULT_TOLERANCES, readSnapshot } from '../../spec/rules/snapshot.js';
import { EVENTS, RULES } from '../../judge/rules/rules.js';
import { createWindowRules } from '../../judge/rules/window-rules.js';

export const VIOLATIONS_METRIC = 'ratelimit_violations';

/**
 * @typedef {keyof typeof RULES} Kind
 * @typedef {{ metric: string, value: number, tags: Record<string, string> }} Sample
 * @typedef {import('../../spec/rules/snapshot.js').RecordedResponse} RecordedResponse
 * @typedef {import('../../spec/rules/snapshot.js').Snapshot} Snapshot
 * @typedef {import('../../judge/rules/window-rules.js').Outcome} Outcome
 */

/** @type {Kind[]} */
export const KINDS = /** @type {Kind[]} */ (Object.keys(RULES));

/** @param {string} kind */
export function violationKey(kind) {
  return VIOLATIONS_METRIC + '{kind:' + kind + '}';
}

/** @param {string} event */
export function eventMetric(event) {
  return 'ratelimit_' + event;
}

/**
 * The samples one outcome of the rules adds, in order.
 * @param {{ violations: Array<{ kind: string }>, events: string[] }} outcome
 * @returns {Sample[]}
 */
export function outcomeSamples(outcome) {
  /** @type {Sample[]} */
  const samples = [];
  for (const v of outcome.violations) samples.push({ metric: VIOLATIONS_METRIC, value: 1, tags: { kind: v.kind } });
  for (const e of outcome.events) samples.push({ metric: eventMetric(e), value: 1, tags: {} });
  return samples;
}

/**
 * A zero sample for every kind and event, so that k6 evaluates each threshold even when nothing
 * happened.
 * @returns {Sample[]}
 */
export function zeroSamples() {
  /** @type {Sample[]} */
  const samples = [];
  for (const kind of KINDS) samples.push({ metric: VIOLATIONS_METRIC, value: 0, tags: { kind: kind } });
  for (const e of EVENTS) samples.push({ metric: eventMetric(e), value: 0, tags: {} });
  return samples;
}

/**
 * @param {Kind} kind
 * @param {number} n
 * @param {boolean} strict
 */
export function violationLine(kind, n, strict) {
  const should = RULES[kind].level === 'should';
  return (
    'violation ' + kind + ' x' + n + (should ? (strict ? ' (should, STRICT=1)' : ' (should: a warning; STRICT=1 fails the run)') : '') + ': ' + RULES[kind].rule
  );
}

/**
 * The judge of one scenario: the window rules with the script's tolerances.
 * @param {{ expectedLimit: number | null, clockSkewSeconds: number }} options
 */
export function createJudge(options) {
  const tolerances = Object.assign({}, DEFAULT_TOLERANCES, { clockSkewSeconds: options.clockSkewSeconds });
  const rules = createWindowRules({ expectedLimit: options.expectedLimit, tolerances: tolerances });
  return {
    tolerances: tolerances,
    /**
     * Judges the responses to one batch (a single request is a batch of one).
     * @param {RecordedResponse[]} responses
     * @returns {{ snapshots: Snapshot[], outcome: Outcome, samples: Sample[] }}
     */
    observe: function (responses) {
      const snapshots = responses.map(function (r) {
        return readSnapshot(r);
      });
      const outcome = rules.observe(snapshots);
      return { snapshots: snapshots, outcome: outcome, samples: outcomeSamples(outcome) };
    },
  };
}

/**
 * The report rate-limit.js prints from its counters: what was sent and seen, every rule broken, the
 * ban scenario's findings, and why k6 warned about its one VU.
 * @param {(metric: string) => number} count a counter's total in the summary (0 when absent)
 * @param {{ strict: boolean, ban: boolean }} options
 * @returns {string[]}
 */
export function reportLines(count, options) {
  const report = [];
  const crossed = count('ratelimit_window_crossed');
  report.push(
    'admitted ' + count('ratelimit_admitted') + ', refused with 429 ' + count('ratelimit_rejected') + ', no response ' + count('ratelimit_transport_error')
  );
  report.push(
    (crossed > 0 ? 'crossed ' + crossed + ' window boundar' + (crossed === 1 ? 'y' : 'ies') : 'did NOT cross a window boundary') +
      '; windows saturated at exactly Limit: ' +
      count('ratelimit_window_saturated') +
      '; readmitted after a reset: ' +
      count('ratelimit_readmitted') +
      '; whole windows verified: ' +
      count('ratelimit_window_verified')
  );
  let total = 0;
  for (let i = 0; i < KINDS.length; i++) {
    const n = count(violationKey(KINDS[i]));
    total += n;
    if (n > 0) report.push(violationLine(KINDS[i], n, options.strict));
  }
  if (total === 0) report.push('no rate-limit rule was broken');
  if (options.ban) {
    report.push(
      'ban scenario: ban detected ' +
        count('ratelimit_ban_detected') +
        ', enforced on ' +
        count('ratelimit_ban_confirmed') +
        ' request(s) while it lasted, ' +
        count('ratelimit_ban_held_past_reset') +
        ' of them after the window it began in had ended; lifted when Retry-After said: ' +
        (count('ratelimit_ban_lifted') > 0 ? 'yes' : 'NOT SEEN')
    );
  }
  const dropped = count('dropped_iterations');
  if (dropped > 0) {
    report.push(
      'k6\'s warning "Insufficient VUs, reached 1 active VUs" is expected: one VU makes every request so that each window is counted exactly, and ' +
        dropped +
        ' scheduled wake-ups passed while it was waiting on a response; the offered rate only drops by that much' +
        droppedNote(count('ratelimit_window_saturated'))
    );
  }
  return report;
}

/**
 * What the saturated windows say of the wake-ups one VU missed: only windows that were saturated show
 * the limit was still reached despite them.
 * @param {number} saturated
 */
function droppedNote(saturated) {
  if (saturated === 0) return ' (and no window was saturated, so this run did not show that the limit was still reached)';
  return (
    ' (the ' + saturated + ' saturated window' + (saturated === 1 ? '' : 's') + ' above show' + (saturated === 1 ? 's' : '') + ' the limit was still reached)'
  );
}
