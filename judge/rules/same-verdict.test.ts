// The conformance kit and rate-limit.js judge a limiter the same way. Each recorded header sequence
// goes through the kit's rate-limit verdict (the checks of conformance/checks/rate-limit.ts, on the
// kit's ledger) and through rate-limit.js's (load/lib/verdict.js, its samples judged against the
// script's thresholds as k6 would): the same rules must be broken, and the run must pass or fail
// alike, at must level and with --strict / STRICT=1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rateLimitArea } from '../../conformance/checks/rate-limit.ts';
import { CHECK_OF_RULE, rateLimitVerdict } from '../rate-limit-verdict.ts';
import type { Exchange } from '../exchange.ts';
import { Ledger } from '../ledger.ts';
import { RUN_DEFAULTS } from '../../conformance/options.ts';
import { evaluateThresholds, type MetricType } from '../../load/testing/k6-shim.ts';
import { violationThresholds } from '../../load/lib/thresholds.js';
import { KINDS, VIOLATIONS_METRIC, createJudge, eventMetric, zeroSamples } from '../../load/lib/verdict.js';
import { SEQUENCES } from '../../spec/rules/testing/recorded.ts';
import type { RecordedResponse } from '../../spec/rules/snapshot.js';
import { EVENTS, RULES } from './rules.js';

interface Verdict {
  /** Rules broken, each once. */
  broken: string[];
  passes: boolean;
}

function exchangeOf(r: RecordedResponse, seq: number): Exchange {
  const exchange: Exchange = {
    seq,
    operationId: 'listPets',
    purpose: `recorded response ${seq}`,
    request: { method: 'GET', url: 'http://127.0.0.1:3000/v1/pets?limit=1', headers: {} },
    sentAt: r.sentAtMs ?? r.receivedAtMs,
    receivedAt: r.receivedAtMs,
  };
  if (r.status === 0) exchange.error = 'ECONNRESET';
  else
    exchange.response = {
      status: r.status,
      headers: Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)])),
      body: '',
    };
  return exchange;
}

/** The kit: the rate-limit area's verdict on its own ledger, as a run from the command line judges (Date header trusted). */
function kit(responses: RecordedResponse[], strict: boolean): Verdict {
  const ledger = new Ledger(rateLimitArea.checks);
  const verdict = rateLimitVerdict(
    ledger.scope(
      'rate limits',
      rateLimitArea.checks.map((c) => c.id),
    ),
    {
      tolerances: { clockSkewSeconds: RUN_DEFAULTS.clockToleranceSeconds },
      dateHeader: true,
    },
  );
  responses.forEach((r, i) => verdict.observe(exchangeOf(r, i + 1)));
  const results = ledger.results({ strict, selected: () => undefined });
  const failing = results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned');
  return { broken: [...new Set(failing.flatMap((r) => r.failures.map((f) => f.rule!)))].sort(), passes: results.every((r) => r.outcome !== 'failed') };
}

/** rate-limit.js: its judge, its samples, its thresholds. */
function k6(responses: RecordedResponse[], strict: boolean): Verdict {
  const judge = createJudge({ expectedLimit: null, clockSkewSeconds: RUN_DEFAULTS.clockToleranceSeconds });
  const samples = [...zeroSamples(), ...responses.flatMap((r) => judge.observe([r]).samples)];
  const types = new Map<string, { type: MetricType; time: boolean }>([
    [VIOLATIONS_METRIC, { type: 'counter', time: false }],
    ...EVENTS.map((e) => [eventMetric(e), { type: 'counter' as const, time: false }] as const),
  ]);
  const { results } = evaluateThresholds(violationThresholds({ strict }), samples, types, 60);
  const counted = evaluateThresholds(violationThresholds({ strict: true }), samples, types, 60).results;
  return {
    broken: counted
      .filter((t) => !t.ok)
      .map((t) => /kind:(\w+)/.exec(t.key)![1]!)
      .sort(),
    passes: results.every((t) => t.ok),
  };
}

for (const sequence of SEQUENCES) {
  test(`${sequence.name}: the kit and rate-limit.js break the same rules and agree at must and strict`, () => {
    const expected = [...sequence.broken].sort();
    for (const strict of [false, true]) {
      const fromKit = kit(sequence.responses, strict);
      const fromK6 = k6(sequence.responses, strict);
      assert.equal(fromKit.broken, expected, `kit, strict=${strict}`);
      assert.equal(fromK6.broken, expected, `rate-limit.js, strict=${strict}`);
      assert.is(fromKit.passes, fromK6.passes, `pass/fail, strict=${strict}`);
      const mustBroken = expected.some((k) => RULES[k as keyof typeof RULES].level === 'must');
      assert.is(fromKit.passes, strict ? expected.length === 0 : !mustBroken, `strict=${strict}`);
    }
  });
}

test('the sequences cover a correct limiter, must-only and should-only breaks, and every rule both judge', () => {
  const broken = new Set(SEQUENCES.flatMap((s) => s.broken));
  // Only rate-limit.js knows the plan a key should have (PLAN, LIMIT); the kit learns the limit.
  for (const kind of KINDS.filter((k) => k !== 'limit_mismatch')) assert.ok(broken.has(kind), `no sequence breaks ${kind}`);
  assert.ok(SEQUENCES.some((s) => s.broken.length === 0));
  assert.ok(SEQUENCES.some((s) => s.broken.length > 0 && s.broken.every((k) => RULES[k as keyof typeof RULES].level === 'should')));
});

test("every rule has the kit check that reports it, and the check's level is the rule's", () => {
  for (const kind of KINDS) {
    const check = rateLimitArea.checks.find((c) => c.id === CHECK_OF_RULE[kind]);
    assert.ok(check, `${kind} → ${CHECK_OF_RULE[kind]}`);
    assert.is(check!.level, RULES[kind].level, kind);
  }
});

test.run();
