// `npm run conform -- --base-url <url> --api-key <key> [options]` and `adoption-kit conform`.
// Exit 0: conforms; 1: a must check failed (or a should check, with --strict); 2: usage error or
// the target cannot be reached.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CATALOGUE, type Profile } from './catalogue.ts';
import { consoleProgress, formatConsole, formatJson, formatJUnit } from './reporters.ts';
import { runConformance, UnreachableError, type RunOptions } from './run.ts';
import { isEntryPoint } from './entry.ts';

export const HELP = `Usage: npm run conform -- --base-url <url> --api-key <key> [options]
       adoption-kit conform --base-url <url> --api-key <key> [options]

Checks an implementation of the Animal Adoption Store API against spec/openapi.yaml and the
specification's rules, and reports each check by id, level (must/should) and section.

Target
  --base-url <url>          The prefix /pets is appended to (http://127.0.0.1:3000/v1 for the
                            reference server, http://127.0.0.1:4010 for the Prism mock).
  --api-key <key>           A valid key (or env CONFORMANCE_API_KEY).
  --rate-limit-key <key>    A key whose minute window the kit may exhaust (or env
                            CONFORMANCE_RATE_LIMIT_KEY). Without it the rate-limit checks are
                            reported as not run. Prefer a key on a small plan.

What to run
  --profile <name>          contract: what a stateless mock can satisfy (statuses, headers, body
                            schemas, auth refusal, error bodies, Dredd); full (default): contract
                            plus behaviour (persistence, limit, status, rate limits, deprecation).
  --prefer                  Send Prism's "Prefer: code=404" where a stateless mock cannot choose the
                            status itself (contract checks and Dredd only; reported as such).
  --no-dredd                Skip the Dredd run.
  --no-wait                 Do not wait for Retry-After; re-admission is then reported as not run.
  --max-wait <seconds>      Longest wait for a Retry-After (default 120).
  --ban-check               After the first 429, repeat requests to observe a temporary ban
                            (needs --rate-limit-key; may get that key banned for a while).
  --ban-probe <n>           Requests the ban check sends after the first 429 (default 10).
  --max-rate-limit-requests <n>
                            Never exhaust a window larger than this (default 1100).
  --clock-tolerance <s>     Allowed clock difference with the server, in seconds (default 2).
  --timeout <ms>            Per-request timeout (default 10000).
  --spec <path>             The OpenAPI description (default: the kit's spec/openapi.yaml).
  --strict                  should-level failures fail the run too.

Output
  --junit <file>            Also write JUnit XML (one testcase per check).
  --json <file>             Also write the full report as JSON (keys redacted).
  --verbose                 List every check in the table, also those outside the profile.
  --list-checks             Print the catalogue of checks and exit.
  -h, --help                This text.

Exit status: 0 conforms, 1 a check failed, 2 usage error or target unreachable.
`;

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

class UsageError extends Error {}

function positiveInt(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`${name} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  return Number(value);
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): RunOptions & { junit?: string; json?: string; help?: boolean; listChecks?: boolean; verbose?: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'rate-limit-key': { type: 'string' },
        profile: { type: 'string' },
        prefer: { type: 'boolean' },
        'no-dredd': { type: 'boolean' },
        'no-wait': { type: 'boolean' },
        'max-wait': { type: 'string' },
        'ban-check': { type: 'boolean' },
        'ban-probe': { type: 'string' },
        'max-rate-limit-requests': { type: 'string' },
        'clock-tolerance': { type: 'string' },
        timeout: { type: 'string' },
        spec: { type: 'string' },
        strict: { type: 'boolean' },
        junit: { type: 'string' },
        json: { type: 'string' },
        verbose: { type: 'boolean' },
        'list-checks': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return { baseUrl: '', apiKey: '', help: true };
  if (v['list-checks']) return { baseUrl: '', apiKey: '', listChecks: true };
  const baseUrl = v['base-url'];
  if (!baseUrl) throw new UsageError('--base-url is required (e.g. http://127.0.0.1:3000/v1)');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url ${JSON.stringify(baseUrl)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--base-url must be http:// or https://');
  if (url.search || url.hash) throw new UsageError('--base-url must not carry a query or fragment');
  const apiKey = v['api-key'] ?? env.CONFORMANCE_API_KEY;
  if (!apiKey) throw new UsageError('--api-key is required (or set CONFORMANCE_API_KEY)');
  const profile = v.profile ?? 'full';
  if (profile !== 'contract' && profile !== 'full') throw new UsageError(`--profile must be contract or full, got ${JSON.stringify(profile)}`);
  const rateLimitKey = v['rate-limit-key'] ?? env.CONFORMANCE_RATE_LIMIT_KEY;
  if (v['ban-check'] && !rateLimitKey) throw new UsageError('--ban-check needs --rate-limit-key');
  if (rateLimitKey && profile === 'contract') throw new UsageError('--rate-limit-key applies to the full profile only');
  const options: ReturnType<typeof parseCli> = {
    baseUrl,
    apiKey,
    profile: profile as Profile,
    prefer: v.prefer ?? false,
    dredd: !v['no-dredd'],
    wait: !v['no-wait'],
    maxWaitSeconds: positiveInt('--max-wait', v['max-wait'], 120, 0),
    banCheck: v['ban-check'] ?? false,
    banProbe: positiveInt('--ban-probe', v['ban-probe'], 10),
    maxRateLimitRequests: positiveInt('--max-rate-limit-requests', v['max-rate-limit-requests'], 1100),
    clockToleranceSeconds: positiveInt('--clock-tolerance', v['clock-tolerance'], 2, 0),
    timeoutMs: positiveInt('--timeout', v.timeout, 10_000),
    strict: v.strict ?? false,
    verbose: v.verbose ?? false,
  };
  if (rateLimitKey) options.rateLimitKey = rateLimitKey;
  if (v.spec) options.specPath = resolve(v.spec);
  if (v.junit) options.junit = resolve(v.junit);
  if (v.json) options.json = resolve(v.json);
  return options;
}

function catalogueText(): string {
  const width = Math.max(...CATALOGUE.map((c) => c.id.length));
  const lines = CATALOGUE.map((c) => {
    const needs = [c.needsRateLimitKey ? '--rate-limit-key' : '', c.needsBanCheck ? '--ban-check' : ''].filter(Boolean).join(' ');
    return `${c.id.padEnd(width)}  ${c.level.padEnd(6)}  ${c.profile.padEnd(8)}  ${c.title}${needs ? ` (${needs})` : ''}\n${' '.repeat(width + 20)}§ ${c.section}`;
  });
  return `${lines.join('\n')}\n`;
}

async function writeOutput(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

export async function main(argv: string[], io: Io = defaultIo, overrides: Partial<RunOptions> = {}): Promise<number> {
  let options: ReturnType<typeof parseCli>;
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
  const { junit, json, verbose, ...runOptions } = options;
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
    io.stderr(`\nconform: ${(error as Error).stack ?? String(error)}\n`);
    return 2;
  }
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
