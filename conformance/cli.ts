// `npm run conform -- --base-url <url> --api-key <key> [options]` and `adoption-kit conform`.
// Exit 0 conforms, 1 a check failed, 2 the run could not check, 3 the kit itself failed: never 1,
// which is a verdict on the target (conformance/README.md, Exit status).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { checkOptions, readOptions } from '../lib/cli-options.ts';
import { KitError, UsageError } from '../lib/errors.ts';
import { KIT_FAILED, endSoonAfter, exitOnKitFailure, guarded, kitFailure } from '../lib/kit-failure.ts';
import type { ResolvedOptions } from './checks/area.ts';
import { CATALOGUE, NEED_FLAGS } from './catalogue.ts';
import { readConfig } from './config.ts';
import { isEntryPoint } from '../lib/entry.ts';
import { CLI_ONLY_OPTIONS, HELP, OPTIONS, type CliOnlyOptions, type RunOptionValues } from './options.ts';
import { consoleProgress, formatConsole } from './report/console.ts';
import { formatHtml } from './report/html.ts';
import { formatJson } from './report/json.ts';
import { formatJUnit } from './report/junit.ts';
import { resolveOptions, runResolved, UnreachableError, type RunHooks } from './run.ts';
import { startServerCommand } from './server-command.ts';

export { HELP } from './options.ts';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  tty?: boolean;
}

const defaultIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  tty: process.stdout.isTTY === true,
};

/** The command line's options: the run's, checked and resolved, and the outputs. */
export type CliOptions = ResolvedOptions & Omit<CliOnlyOptions, 'help' | 'listChecks' | 'config'>;

/**
 * The command line (and environment) as the run's options: read with the options table, then
 * checked by resolveOptions, the same check code's options get. `hooks.clock` tells whether the
 * target's Date header is its clock. --help and --list-checks need nothing else.
 */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, hooks: RunHooks = {}): CliOptions | 'help' | 'list-checks' {
  const values = readOptions(OPTIONS, argv, env);
  const cliKeys = new Set(CLI_ONLY_OPTIONS.map((spec) => spec.key));
  const own = checkOptions(CLI_ONLY_OPTIONS, Object.fromEntries(Object.entries(values).filter(([key]) => cliKeys.has(key)))) as CliOnlyOptions;
  if (own.help) return 'help';
  if (own.listChecks) return 'list-checks';
  const run = Object.fromEntries(Object.entries(values).filter(([key]) => !cliKeys.has(key))) as RunOptionValues;
  const { help: _help, listChecks: _list, config: _config, ...outputs } = own;
  return { ...resolveOptions({ ...run, ...(hooks.clock ? { clock: hooks.clock } : {}) }), ...outputs };
}

/** The value of --config on the command line, if any. */
function configPath(argv: readonly string[]): string | undefined {
  const at = argv.findIndex((a) => a === '--config' || a.startsWith('--config='));
  if (at < 0) return undefined;
  return argv[at]!.startsWith('--config=') ? argv[at]!.slice('--config='.length) : argv[at + 1];
}

function catalogueText(): string {
  const width = Math.max(...CATALOGUE.map((c) => c.id.length));
  const lines = CATALOGUE.map((c) => {
    const needs = (c.needs ?? []).map((n) => NEED_FLAGS[n]).join(', ');
    return `${c.id.padEnd(width)}  ${c.level.padEnd(6)}  ${c.profile.padEnd(8)}  ${c.title}${needs ? ` (${needs})` : ''}\n${' '.repeat(width + 20)}§ ${c.section}`;
  });
  return `${lines.join('\n')}\n`;
}

async function writeOutput(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** What ends a run before (or instead of) any check, as one short message. */
function diagnosis(error: unknown): string | undefined {
  if (error instanceof UnreachableError) return `${error.message}\nIs the server running, and does --base-url include the version segment (…/v1)?`;
  if (error instanceof KitError) return error.message;
  return undefined;
}

export async function main(argv: string[], io: Io = defaultIo, hooks: RunHooks = {}, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let options: CliOptions | 'help' | 'list-checks';
  try {
    const config = configPath(argv);
    const fromFile = config === undefined ? [] : await readConfig(resolve(config), OPTIONS, env);
    options = parseCli([...fromFile, ...argv], env, hooks);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`conform: ${error.message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (options === 'help' || options === 'list-checks') {
    io.stdout(options === 'help' ? HELP : catalogueText());
    return 0;
  }
  const { junit, json, html, verbose, server, serverWait, ...runOptions } = options;
  const ran = await guarded(async () => {
    // Dredd's --server: the target runs for this run only.
    const target = server === undefined ? undefined : await startServerCommand(server, runOptions.baseUrl, serverWait);
    try {
      const report = await runResolved(runOptions, { onProgress: consoleProgress(io.stdout, io.tty === true), ...hooks });
      io.stdout(formatConsole(report, { verbose: verbose === true }));
      if (junit) await writeOutput(junit, formatJUnit(report));
      if (json) await writeOutput(json, formatJson(report));
      if (html) await writeOutput(html, formatHtml(report));
      return report.exitCode;
    } finally {
      await target?.stop();
    }
  });
  if ('value' in ran) return ran.value;
  const message = diagnosis(ran.crash);
  io.stderr(message === undefined ? `\n${kitFailure('conform', ran.crash)}` : `\nconform: ${message}\n`);
  return message === undefined ? KIT_FAILED : 2;
}

if (isEntryPoint(import.meta.url)) {
  exitOnKitFailure('conform');
  const code = await main(process.argv.slice(2));
  process.exitCode = code;
  endSoonAfter(code);
}
