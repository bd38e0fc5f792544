// `npm run conform -- --base-url <url> --api-key <key> [options]` and `adoption-kit conform`.
// Exit 0: conforms; 1: a must check failed (or a should check, with --strict); 2: the run could not
// check: a usage error, or the preflight found the target unreachable, its TLS untrusted, /pets not
// below the base URL, the key refused, or an allowance used up for longer than --max-wait.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseOptions } from '../lib/cli-options.ts';
import { KitError, UsageError } from '../lib/errors.ts';
import { CATALOGUE, checkSelector, NEED_FLAGS, type Profile } from './catalogue.ts';
import { readConfig } from './config.ts';
import { isEntryPoint } from './entry.ts';
import { GENERATED_PHASES, HELP, OPTIONS, type GeneratedPhase } from './options.ts';
import { consoleProgress, formatConsole } from './report/console.ts';
import { formatHtml } from './report/html.ts';
import { formatJson } from './report/json.ts';
import { formatJUnit } from './report/junit.ts';
import { parseChoices } from './open-points.ts';
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

export type CliOptions = RunOptions & { junit?: string; json?: string; html?: string; help?: boolean; listChecks?: boolean; verbose?: boolean };

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

/** `--header` values, taken out before the table parses the rest: a header value may hold commas. */
export function takeHeaders(argv: readonly string[]): { rest: string[]; headers: Record<string, string> } {
  const rest: string[] = [];
  const headers: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    let value: string | undefined;
    if (arg === '--header') {
      value = argv[++i];
      if (value === undefined) throw new UsageError("Option '--header <name: value>' argument missing");
    } else if (arg.startsWith('--header=')) value = arg.slice('--header='.length);
    else {
      rest.push(arg);
      continue;
    }
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*)$/.exec(value);
    if (!m) throw new UsageError(`--header ${JSON.stringify(value)} is not "Name: value"`);
    const name = m[1]!.toLowerCase();
    if (['authorization', 'host', 'content-length', 'transfer-encoding'].includes(name))
      throw new UsageError(`--header cannot set ${m[1]}: the kit sets it${name === 'authorization' ? ' (use --api-key)' : ''}`);
    headers[name] = m[2]!.trim();
  }
  return { rest, headers };
}

function phasesOf(value: unknown): GeneratedPhase[] {
  const list = (value as string[] | undefined) ?? [];
  if (list.length === 1 && list[0] === 'none') return [];
  const unknown = list.filter((p) => !(GENERATED_PHASES as readonly string[]).includes(p));
  if (unknown.length > 0) throw new UsageError(`--phases must name some of ${GENERATED_PHASES.join(', ')} (or none), not ${unknown.join(', ')}`);
  return list as GeneratedPhase[];
}

/** The PEM certificates of --ca, read once where the option enters. */
export function readCa(file: string): string {
  let ca: string;
  try {
    ca = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new UsageError(`--ca ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca ${file} holds no PEM certificate`);
  return ca;
}

/** The command line (and environment) as runConformance options; the table in options.ts holds every default. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const { rest, headers } = takeHeaders(argv);
  const v = parseOptions(OPTIONS, rest, env);
  if (v.help) return { baseUrl: '', apiKey: '', help: true };
  if (v.listChecks) return { baseUrl: '', apiKey: '', listChecks: true };
  const baseUrl = baseUrlOf(v.baseUrl);
  if (typeof v.apiKey !== 'string') throw new UsageError('--api-key is required (or set CONFORMANCE_API_KEY)');
  const rateLimitKey = typeof v.rateLimitKey === 'string' ? v.rateLimitKey : undefined;
  if (v.banCheck && !rateLimitKey) throw new UsageError('--ban-check needs --rate-limit-key');
  if (rateLimitKey && v.profile === 'contract') throw new UsageError('--rate-limit-key applies to the full profile only');
  if (v.insecure && typeof v.caFile === 'string') throw new UsageError('--insecure and --ca exclude each other: --ca trusts a CA, --insecure trusts anything');
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
    headers,
    insecure: v.insecure as boolean,
    waitForTargetSeconds: v.waitForTargetSeconds as number,
    phases: phasesOf(v.phases),
    maxExamples: v.maxExamples as number,
    maxRequests: v.maxRequests as number,
  };
  if (rateLimitKey) options.rateLimitKey = rateLimitKey;
  if (typeof v.seed === 'number') options.seed = v.seed;
  if (Array.isArray(v.choices)) options.choices = parseChoices(v.choices);
  if (Array.isArray(v.checks)) options.checks = v.checks;
  if (Array.isArray(v.excludeChecks)) options.excludeChecks = v.excludeChecks;
  const { unknown } = checkSelector(CATALOGUE, options.checks, options.excludeChecks);
  if (unknown.length > 0) throw new UsageError(`--checks/--exclude-checks: ${unknown.join(', ')} names no check (see --list-checks)`);
  if (typeof v.caFile === 'string') options.ca = readCa(v.caFile);
  if (typeof v.specPath === 'string') options.specPath = resolve(v.specPath);
  for (const key of ['junit', 'json', 'html'] as const) if (typeof v[key] === 'string') options[key] = resolve(v[key]);
  return options;
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

export async function main(argv: string[], io: Io = defaultIo, overrides: Partial<RunOptions> = {}, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let options: CliOptions;
  try {
    const config = configPath(argv);
    const fromFile = config === undefined ? [] : await readConfig(resolve(config), OPTIONS, env);
    options = parseCli([...fromFile, ...argv], env);
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
  const { junit, json, html, verbose, help: _help, listChecks: _list, ...runOptions } = options;
  try {
    const report = await runConformance({ ...runOptions, onProgress: consoleProgress(io.stdout, io.tty === true), ...overrides });
    io.stdout(formatConsole(report, { verbose: verbose === true }));
    if (junit) await writeOutput(junit, formatJUnit(report));
    if (json) await writeOutput(json, formatJson(report));
    if (html) await writeOutput(html, formatHtml(report));
    return report.exitCode;
  } catch (error) {
    const message = diagnosis(error);
    io.stderr(`\nconform: ${message ?? (error as Error).stack ?? String(error)}\n`);
    return 2;
  }
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
