// What a rate-limit.js run broke, read from its JSON summary: the count of each rule's violations,
// and which of them are must-level.
import { RULES } from '../../judge/rules/rules.js';
import { metricValue } from '../lib/summary.js';
import { KINDS, violationKey } from '../lib/verdict.js';

export type Summary = { exitCode: number; result: string; k6: Parameters<typeof metricValue>[0] };

/** The count of every rule broken in a run. */
export function broken(summary: Summary): Record<string, number> {
  const found: Record<string, number> = {};
  for (const kind of KINDS) {
    const n = metricValue(summary.k6, violationKey(kind), 'count') ?? 0;
    if (n > 0) found[kind] = n;
  }
  return found;
}

export const mustBroken = (found: Record<string, number>): string[] => Object.keys(found).filter((kind) => RULES[kind as keyof typeof RULES].level === 'must');
