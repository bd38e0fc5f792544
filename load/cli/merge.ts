// `adoption-kit load-merge <summary.json>...` (also `npm run load:merge -- ...`): one verdict and one
// knee from the JSON summaries of a capacity.js or smoke.js run split over several k6 processes with
// --execution-segment. Exit 0 when the merged run passed, 1 when it failed or a generator stopped,
// 2 for a usage error (no file, a file that is not a summary, summaries that are not one run); 3
// (KIT_FAILED) when the merge itself failed: never 1, a verdict.
import { readFileSync, writeFileSync } from 'node:fs';
import { helpText, parseOptions, type OptionSpec } from '../../lib/cli-options.ts';
import { KitError, UsageError } from '../../lib/errors.ts';
import { endSoonAfter, guardedMain } from '../../lib/kit-failure.ts';
import { isEntryPoint } from '../../conformance/entry.ts';
import { mergeSummaries, type Part, type ScriptSummary } from '../lib/merge.js';

export const MERGE_OPTIONS: readonly OptionSpec[] = [
  { key: 'json', flag: 'json', type: 'string', value: '<file>', help: 'Also write the merged result as JSON to this file.' },
  { key: 'help', flag: 'help', short: 'h', type: 'boolean', default: false, help: 'This text.' },
];

export const MERGE_HELP = helpText(
  `Usage: adoption-kit load-merge <summary.json> <summary.json>... [--json <file>]

Merges the JSON summaries that capacity.js or smoke.js wrote on each k6 process of one run split with
--execution-segment (one per generator, on one machine or many) into one verdict and, for
capacity.js, one knee.`,
  MERGE_OPTIONS,
);

function readPart(file: string): Part {
  let summary: ScriptSummary;
  try {
    summary = JSON.parse(readFileSync(file, 'utf8')) as ScriptSummary;
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`);
  }
  if (!summary || typeof summary.script !== 'string' || typeof summary.extra !== 'object')
    throw new UsageError(`${file} is not a summary written by a load/ script`);
  return { name: file, summary };
}

export function main(argv: string[]): Promise<number> {
  return guardedMain('load-merge', () => run(argv));
}

async function run(argv: string[]): Promise<number> {
  try {
    const values = parseOptions(MERGE_OPTIONS, argv, process.env, { positionals: true });
    if (values.help) {
      process.stdout.write(MERGE_HELP);
      return 0;
    }
    const files = values._ as string[];
    if (files.length === 0) throw new UsageError('name the JSON summaries to merge, one per generator');
    const merged = mergeSummaries(files.map(readPart));
    process.stdout.write(`${merged.lines.join('\n')}\n`);
    if (typeof values.json === 'string') writeFileSync(values.json, `${JSON.stringify(merged.merged, null, 2)}\n`);
    return merged.lines.some((l) => l.startsWith('CANNOT MERGE')) ? 2 : merged.exitCode;
  } catch (error) {
    if (!(error instanceof KitError)) throw error;
    process.stderr.write(`load-merge: ${error.message}\nRun with --help for usage.\n`);
    return 2;
  }
}

if (isEntryPoint(import.meta.url)) {
  const code = await main(process.argv.slice(2));
  process.exitCode = code;
  endSoonAfter(code);
}
