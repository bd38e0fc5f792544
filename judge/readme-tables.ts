// The table of judge/README.md written from code: every reading the judge allows, from READINGS.
// scripts/generate.ts writes it.
import { READINGS } from './rules/readings.js';

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function readingsTable(): string {
  const rows = READINGS.map((r) => `| \`${r.id}\` | ${cell(r.name)} | ${cell(r.allows)} | ${cell(r.source)} |`);
  return ['| reading | name | what it lets a server do | the sentence it rests on |', '|---|---|---|---|', ...rows].join('\n');
}
