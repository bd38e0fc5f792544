// `npm run chaos [-- --rounds N] [scenario...]`: the chaos scenarios on the real server, N rounds
// each, one table line per round. Needs root (tmpfs mounts); exits 1 when any acknowledged write
// was lost or duplicated, an id came back, or a check failed.
import { parseArgs } from 'node:util';
import { isRoot } from './harness.ts';
import { SCENARIOS, tableHead, tableLine } from './scenarios.ts';

const { values, positionals } = parseArgs({ options: { rounds: { type: 'string', default: '3' } }, allowPositionals: true });
const rounds = Number(values.rounds);
if (!Number.isSafeInteger(rounds) || rounds < 1) {
  process.stderr.write('npm run chaos: --rounds must be a positive integer\n');
  process.exit(2);
}
const names = positionals.length > 0 ? positionals : Object.keys(SCENARIOS);
const unknown = names.filter((name) => !(name in SCENARIOS));
if (unknown.length > 0) {
  process.stderr.write(`npm run chaos: no scenario ${unknown.join(', ')} (there are ${Object.keys(SCENARIOS).join(', ')})\n`);
  process.exit(2);
}
if (!isRoot()) {
  process.stderr.write('npm run chaos: must run as root (it mounts small tmpfs file systems)\n');
  process.exit(2);
}

let bad = 0;
process.stdout.write(tableHead());
for (const name of names) {
  for (let round = 0; round < rounds; round++) {
    const row = await SCENARIOS[name as keyof typeof SCENARIOS](round);
    process.stdout.write(tableLine(row));
    if (row.lost + row.duplicated + row.reusedIds + row.seenThenGone + row.bare5xx > 0 || Object.values(row.checks).includes(false)) bad += 1;
  }
}
process.stdout.write(`${bad === 0 ? 'no' : bad} round(s) with a lost, duplicated or reused write or a failed check\n`);
process.exit(bad === 0 ? 0 : 1);
