// `npm run conform -- --base-url <url> --api-key <key> [options]` and `adoption-kit conform`.
// Exit 0: conforms; 1: a must check failed (or a should check, with --strict); 2: usage error or
// the target cannot be reached.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseOptions } from '../lib/cli-options.ts';
import { KitError, UsageError } from '../lib/errors.ts';
import { CATALOGUE, NEED_FLAGS, type Profile } from './catalogue.ts';
import { isEntryPoint } from './entry.ts';
import { HELP, OPTIONS } from './options.ts';
import { consoleProgress, formatConsole, formatJson, formatJUnit } from './reporters.ts';
import { runConformance, UnreachableError, type RunOptions } from './run.ts';

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

export type CliOptions = RunOptions & { junit?: string; json?: string; help?: boolean; listChecks?: boolean; verbose?: boolean };

function baseUrlOf(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new UsageError('--base-url is required (e.g. http://127.0.0.1:3000/v1)');
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new UsageError(`--base-url ${JSON.stringify(value)} is not an absolute URL`, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--base-url must be http:// or https://');
  if (url.search || url.hash) throw new UsageError('--base-url must not carry a query or fragment');
  return value;
}

/** The command line (and environment) as runConformance options; the table in options.ts holds every default. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const v = parseOptions(OPTIONS, argv, env);
  if (v.help) return { baseUrl: '', apiKey: '', help: true };
  if (v.listChecks) return { baseUrl: '', apiKey: '', listChecks: true };
  const baseUrl = baseUrlOf(v.baseUrl);
  if (typeof v.apiKey !== 'string') throw new UsageError('--api-key is required (or set CONFORMANCE_API_KEY)');
  const rateLimitKey = typeof v.rateLimitKey === 'string' ? v.rateLimitKey : undefined;
  if (v.banCheck && !rateLimitKey) throw new UsageError('--ban-check needs --rate-limit-key');
  if (rateLimitKey && v.profile === 'contract') throw new UsageError('--rate-limit-key applies to the full profile only');
  const options: CliOptions = {
    baseUrl,
    apiKey: v.apiKey,
    profile: v.profile as Profile,
    prefer: v.prefer as boolean,
    dredd: !v.noDredd,
    wait: !v.noWait,
    maxWaitSeconds: v.maxWaitSeconds as number,
    banCheck: v.banCheck as boolean,
    banProbe: v.banProbe as number,
    maxRateLimitRequests: v.maxRateLimitRequests as number,
    clockToleranceSeconds: v.clockToleranceSeconds as number,
    timeoutMs: v.timeoutMs as number,
    strict: v.strict as boolean,
    verbose: v.verbose as boolean,
  };
  if (rateLimitKey) options.rateLimitKey = rateLimitKey;
  if (typeof v.specPath === 'string') options.specPath = resolve(v.specPath);
  if (typeof v.junit === 'string') options.junit = resolve(v.junit);
  if (typeof v.json === 'string') options.json = resolve(v.json);
  return options;
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

export async function main(argv: string[], io: Io = defaultIo, overrides: Partial<RunOptions> = {}): Promise<number> {
  let options: CliOptions;
  try {
    options = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`conform: ${error.message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (options.help) {
    io.stdout(HELP);
    return 0;
  }
  if (options.listChecks) {
    io.stdout(catalogueText());
    return 0;
  }
  const { junit, json, verbose, help: _help, listChecks: _list, ...runOptions } = options;
  try {
    const report = await runConformance({ ...runOptions, onProgress: consoleProgress(io.stdout, io.tty === true), ...overrides });
    io.stdout(formatConsole(report, { verbose: verbose === true }));
    if (junit) await writeOutput(junit, formatJUnit(report));
    if (json) await writeOutput(json, formatJson(report));
    return report.exitCode;
  } catch (error) {
    if (error instanceof UnreachableError) {
      io.stderr(`\nconform: ${error.message}\nIs the server running, and does --base-url include the version segment (…/v1)?\n`);
      return 2;
    }
    io.stderr(`\nconform: ${error instanceof KitError ? error.message : ((error as Error).stack ?? String(error))}\n`);
    return 2;
  }
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
