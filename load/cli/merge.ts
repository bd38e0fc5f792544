// `adoption-kit load-merge <summary.json>...` (also `npm run load:merge -- ...`): one verdict and one
// knee from the summaries of a run split over k6 processes. Exit 0 passed, 1 failed, 2 usage, 3 the
// merge itself failed (never 1, a verdict); file names are the caller's (INIT_CWD: load/README.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { helpText, parseOptions, type OptionSpec } from '../../lib/cli-options.ts';
import { KitError, UsageError } from '../../lib/errors.ts';
import { endSoonAfter, guardedMain } from '../../lib/kit-failure.ts';
import { isEntryPoint } from '../../lib/entry.ts';
import { mergeSummaries, type Part, type ScriptSummary } from '../lib/merge.js';

export const MERGE_OPTIONS: readonly OptionSpec[] = [
  { key: 'json', flag: 'json', type: 'string', value: '<file>', help: 'Also write the merged result as JSON to this file.' },
  {
    key: 'svg',
    flag: 'svg',
    type: 'string',
    value: '<file>',
    help: "Where a capacity run's picture of the summed steps goes (default: beside --json, else capacity-summary-merged.svg).",
  },
  { key: 'help', flag: 'help', short: 'h', type: 'boolean', default: false, help: 'This text.' },
];

export const MERGE_HELP = helpText(
  `Usage: adoption-kit load-merge <summary.json> <summary.json>... [--json <file>] [--svg <file>]

Merges the JSON summaries that capacity.js or smoke.js wrote on each k6 process of one run split with
--execution-segment (one per generator, on one machine or many) into one verdict and, for
capacity.js, one knee and its picture. Files are named from the folder the command was run in
(under npm run, the folder npm was called from).`,
  MERGE_OPTIONS,
);

/**
 * The folder file names are resolved from: npm's INIT_CWD when npm ran this in the package's root
 * (`npm run load:merge`), else the working directory. npm's variables reach every process an npm
 * script starts, so INIT_CWD alone does not say that npm chose the working directory.
 */
export function callerFolder(env: NodeJS.ProcessEnv, cwd: string): string {
  const startedByNpm = Boolean(env.INIT_CWD) && Boolean(env.npm_package_json) && resolve(dirname(env.npm_package_json!)) === resolve(cwd);
  return startedByNpm ? resolve(cwd, env.INIT_CWD!) : cwd;
}

/** Where the merged picture goes: --svg, else beside --json, else capacity-summary-merged.svg in the caller's folder. */
export function picturePath(folder: string, json: string | undefined, svg: string | undefined): string {
  if (svg !== undefined) return resolve(folder, svg);
  if (json !== undefined) return resolve(folder, json).replace(/\.json$/, '') + '.svg';
  return join(folder, 'capacity-summary-merged.svg');
}

/** An output the caller named that cannot be written (no such folder) is the caller's mistake, not the kit's. */
function writeOutput(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new UsageError(`cannot write ${path}: ${(error as Error).message}`);
  }
}

function readPart(file: string, folder: string): Part {
  let summary: ScriptSummary;
  try {
    summary = JSON.parse(readFileSync(resolve(folder, file), 'utf8')) as ScriptSummary;
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
    const folder = callerFolder(process.env, process.cwd());
    const merged = mergeSummaries(files.map((file) => readPart(file, folder)));
    const json = typeof values.json === 'string' ? values.json : undefined;
    const lines = [...merged.lines];
    if (json !== undefined) writeOutput(resolve(folder, json), `${JSON.stringify(merged.merged, null, 2)}\n`);
    if (merged.svg !== null) {
      const svg = picturePath(folder, json, typeof values.svg === 'string' ? values.svg : undefined);
      writeOutput(svg, `${merged.svg}\n`);
      // Before the result line, which stays last.
      lines.splice(lines.length - 1, 0, `picture: ${svg}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
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
