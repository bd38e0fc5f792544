// What `npm run chaos` prints: a table line per round (the Row of harness.ts, whichever store the
// scenario ran on), then a summary of the rounds run per scenario and how many of them went wrong.
import type { Row } from './harness.ts';

/** What can go wrong in a round; a round with any of them fails the run. */
const FAULTS: Array<[string, (row: Row) => boolean]> = [
  ['lost, duplicated or reused write', (r) => r.lost + r.duplicated + r.reusedIds + r.seenThenGone > 0],
  ['5xx without Error body', (r) => r.bare5xx > 0],
  ['hang', (r) => r.hung > 0],
  ['failed check', (r) => Object.values(r.checks).includes(false)],
];

export function isBad(row: Row): boolean {
  return FAULTS.some(([, fault]) => fault(row));
}

const COLUMNS: Array<[string, (row: Row) => string | number]> = [
  ['scenario', (r) => r.scenario],
  ['acknowledged', (r) => r.acknowledged],
  ['lost', (r) => r.lost],
  ['duplicated', (r) => r.duplicated],
  ['reused ids', (r) => r.reusedIds],
  ['seen then gone', (r) => r.seenThenGone],
  ['503 refused', (r) => r.refused],
  ['5xx without Error body', (r) => r.bare5xx],
  ['hung', (r) => r.hung],
  ['process exits', (r) => r.exits.join(', ')],
  [
    'checks failed',
    (r) =>
      Object.entries(r.checks)
        .filter(([, ok]) => !ok)
        .map(([name]) => name)
        .join('; ') || '-',
  ],
];

const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |\n`;
const rule = (n: number) => `|${Array.from({ length: n }, () => '---').join('|')}|\n`;

export function tableHead(): string {
  return line(['round', ...COLUMNS.map(([name]) => name)]) + rule(COLUMNS.length + 1);
}

/** One round's line; `round` names it (`disk-full 1/3`). */
export function tableLine(round: string, row: Row): string {
  return line([round, ...COLUMNS.map(([, value]) => value(row))]);
}

/** Rounds run per scenario, and how many of them had each fault; ends with the verdict. */
export function summary(rounds: ReadonlyMap<string, readonly Row[]>): string {
  let text = `\n${line(['scenario', 'rounds', ...FAULTS.map(([name]) => `rounds with a ${name}`)])}${rule(FAULTS.length + 2)}`;
  let bad = 0;
  let total = 0;
  for (const [name, rows] of rounds) {
    text += line([name, rows.length, ...FAULTS.map(([, fault]) => rows.filter(fault).length)]);
    bad += rows.filter(isBad).length;
    total += rows.length;
  }
  const faults = 'a lost, duplicated or reused write, a 5xx without an Error body, a hang or a failed check';
  return `${text}\n${bad === 0 ? `no round of ${total}` : `${bad} round(s) of ${total}`} had ${faults}\n`;
}
