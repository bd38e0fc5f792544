// The tables of conformance/README.md written from code: the checks (from the catalogue) and the
// options; the flaws' table is testing/flaws/readme-table.ts. scripts/generate.ts writes them.
import { markdownTable } from '../lib/cli-options.ts';
import { CATALOGUE, NEED_FLAGS, type CheckDef } from './catalogue.ts';
import { OPTIONS, RUN_OPTIONS } from './options.ts';
import { OPEN_POINTS } from './open-points.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function profileText(def: CheckDef): string {
  const needs = (def.needs ?? []).filter((n) => n !== 'dredd').map((n) => ` + \`${NEED_FLAGS[n]}\``);
  return `${def.profile}${needs.join('')}`;
}

export function checksTable(): string {
  const rows = CATALOGUE.map((c) => `| \`${c.id}\` | ${c.level} | ${profileText(c)} | ${cell(c.title)} | ${cell(c.section)} |`);
  return ['| check | level | profile | rule | from |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function openPointsTable(): string {
  const rows = OPEN_POINTS.map(
    (p) => `| \`${p.id}\` | ${cell(p.specification)} | ${cell(p.kit)} | ${p.values.length ? p.values.map((v) => `\`${v}\``).join(', ') : 'reported only'} |`,
  );
  return ['| open point | what the specification says | what the kit requires, and at which level | `--choice` values |', '|---|---|---|---|', ...rows].join(
    '\n',
  );
}

/** The options, with the key runConformance takes each by (the command line's own have none). */
export function optionsTable(): string {
  return markdownTable(OPTIONS, (spec) => (!RUN_OPTIONS.includes(spec) ? undefined : spec.negated ? `${spec.key}: false` : spec.key));
}
