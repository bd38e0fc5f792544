// The flaws' table of conformance/README.md: each flaw and the check that catches it.
import { CATALOGUE, NEED_FLAGS } from '../../catalogue.ts';
import { FLAWS } from './catalogue.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function flawsTable(): string {
  const rows = FLAWS.map((f) => {
    const def = CATALOGUE.find((c) => c.id === f.caughtBy);
    const needs = (def?.needs ?? []).filter((n) => n === 'rate-limit-key' || n === 'ban-check').map((n) => `\`${NEED_FLAGS[n]}\``);
    const how = [
      f.foundBy ? `generated only: the ${f.foundBy} phase` : '',
      def?.level === 'should' ? 'should: fails with `--strict`, warns without' : '',
      needs.length ? `with ${needs.join(', ')}` : '',
    ].filter(Boolean);
    const second = f.onSecond ? `; on the second implementation \`${f.onSecond}\`` : '';
    return `| \`${f.id}\` | ${f.area} | ${cell(f.description)} | \`${f.caughtBy}\`${how.length ? ` (${how.join('; ')})` : ''}${second} |`;
  });
  return ['| flaw | area | what is broken | caught by |', '|---|---|---|---|', ...rows].join('\n');
}
