// The table of load/README.md written from code: every rule rate-limit.js judges, its level (what
// fails the run) and the conformance check that reports the same rule. scripts/generate.ts writes it.
import { RULES } from '../judge/rules/rules.js';

export function rulesTable(): string {
  const rows = (Object.keys(RULES) as Array<keyof typeof RULES>).map((kind) => {
    const { level, rule, check } = RULES[kind];
    const fails = level === 'must' ? 'always' : 'with `STRICT=1`';
    return `| \`${kind}\` | ${level} | ${fails} | ${rule.replace(/\|/g, '\\|')} | \`${check}\` |`;
  });
  return ['| `kind` | level | fails the run | rule | conformance check |', '|---|---|---|---|---|', ...rows].join('\n');
}
