// The server's refusal codes are the description's x-refusal-codes (spec/rules/contract.js), each
// sent for the budget the description names: the error registry has exactly those 429 codes, and
// the limiter's every refusal (a window used up, a ban) of a key names `key`, of an address `address`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PLAN_LIMITS, REFUSAL_CODES } from '../spec/rules/contract.js';
import { ERRORS } from './errors.ts';
import { verdict } from './rate-limit/decision.ts';
import { ipWindows, keyWindows, type PartitionKind, type WindowSpec } from './rate-limit/policy.ts';
import type { Outcome } from './rate-limit/counters.ts';

const BUDGET: Record<PartitionKind, string> = { key: 'key', ip: 'address' };

test('the error registry has exactly the refusal codes of the description as its 429s', () => {
  const registry = Object.entries(ERRORS)
    .filter(([, error]) => error.status === 429)
    .map(([code]) => code);
  assert.equal(registry.sort(), Object.keys(REFUSAL_CODES).sort());
});

/** The refusal of a partition whose window `binding` is used up (refused) or that is banned. */
function refusalCode(kind: PartitionKind, windows: readonly WindowSpec[], binding: number, outcome: Outcome): string | undefined {
  const usage = windows.map((spec, i) => ({ spec, used: i === binding ? spec.limit : 0, resetMs: 30_000 }));
  return verdict(kind, { outcome, banMs: outcome === 'banned' ? 60_000 : 0, windows: usage }, Date.now()).error?.code;
}

test('every refusal the limiter sends names the budget it refused, as the description says', () => {
  const sent = new Set<string>();
  const partitions: Array<[PartitionKind, WindowSpec[]]> = [
    ['key', keyWindows(PLAN_LIMITS.free)],
    ['ip', ipWindows(PLAN_LIMITS.free.perMinute)],
  ];
  for (const [kind, windows] of partitions) {
    const cases = [...windows.map((_, i) => [i, 'refused'] as const), [0, 'banned'] as const];
    for (const [binding, outcome] of cases) {
      const code = refusalCode(kind, windows, binding, outcome);
      assert.ok(code !== undefined, `${kind} ${outcome}`);
      assert.is(REFUSAL_CODES[code as keyof typeof REFUSAL_CODES], BUDGET[kind], `${kind} ${outcome}: ${code}`);
      sent.add(code);
    }
  }
  assert.equal([...sent].sort(), Object.keys(REFUSAL_CODES).sort());
});

test.run();
