// `adoption-kit client-report`: how each client of a running reference server behaved against the
// specification's obligations. Exit 0 when every client is ready (a broken should is a warning), 1 when
// one broke a must, 2 for a usage error or a server that cannot be read, 3 when the command failed.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { helpText, parseOptions, type OptionSpec } from '../../lib/cli-options.ts';
import { KitError } from '../../lib/errors.ts';
import { guardedMain } from '../../lib/kit-failure.ts';
import { formatHtml } from './html.ts';
import { OBLIGATIONS, readiness, type ClientReport, type Obligation } from '../../judge/client-obligations.ts';

export const REPORT_OPTIONS: readonly OptionSpec[] = [
  {
    key: 'baseUrl',
    flag: 'base-url',
    env: 'BASE_URL',
    type: 'string',
    value: '<url>',
    default: 'http://127.0.0.1:3000',
    help: 'The reference server (its origin; a path such as /v1 is ignored).',
  },
  {
    key: 'adminToken',
    flag: 'admin-token',
    env: 'ADMIN_TOKEN',
    type: 'string',
    value: '<token>',
    secret: true,
    help: 'The token the server was started with (--admin-token).',
  },
  { key: 'json', flag: 'json', type: 'boolean', default: false, help: 'Print the report as JSON.' },
  {
    key: 'html',
    flag: 'html',
    type: 'string',
    value: '<file>',
    help: 'Also write one self-contained HTML page: per key the verdicts and its last requests as a timeline, each obligation marked where it was first broken.',
  },
  { key: 'help', flag: 'help', short: 'h', type: 'boolean', default: false, help: 'This text.' },
];

/** The most of a report the command reads: far above what the server's bounded recorder sends. */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024;

export const REPORT_HELP = helpText(
  `Usage: adoption-kit client-report --base-url <url> --admin-token <token> [--json] [--html <file>]

How each client (API key) of a running reference server behaved: did it wait for Retry-After after a
429, back off exponentially on repeated 429s, stop while banned, and move off the deprecated getPet?
The token is sent to the origin of --base-url only (a redirect is not followed), and a report past
${MAX_REPORT_BYTES / 1024 / 1024} MiB is not read (exit 2).`,
  REPORT_OPTIONS,
);

/** One line per obligation: the verdict (a broken should is a warning), what it is, and what was seen. */
export function obligationLines(c: ClientReport, indent = '  '): string[] {
  return (Object.entries(c.obligations) as Array<[keyof ClientReport['obligations'], Obligation]>).map(
    ([name, o]) =>
      `${indent}${(o.verdict === 'no' && OBLIGATIONS[name].level === 'should' ? 'no (warning)' : o.verdict).padEnd(12)} ${OBLIGATIONS[name].title.padEnd(42)} ${o.detail}`,
  );
}

export function formatReport(origin: string, generatedAt: string, clients: readonly ClientReport[]): string {
  const lines = [`Client report of ${origin} at ${generatedAt}`, ''];
  if (clients.length === 0) lines.push('No client with a valid key has sent a request yet.');
  for (const c of clients) {
    lines.push(`${c.key} (${c.plan}): ${c.requests} requests, ${c.refused} refused with 429  ${readiness(c)}`);
    lines.push(...obligationLines(c));
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The body as text, or undefined once it passes `limit` bytes (the rest is not read). */
async function readBounded(res: Response, limit: number): Promise<string | undefined> {
  if (Number(res.headers.get('content-length') ?? 0) > limit) {
    await res.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body ?? []) {
    total += chunk.byteLength;
    // Leaving the loop cancels the stream: the rest is never read.
    if (total > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The report as the admin API sends it, or a sentence saying why the body is not one. */
function readReport(text: string): { generatedAt: string; clients: ClientReport[] } | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'it did not answer JSON';
  }
  const report = body as { generatedAt?: unknown; clients?: unknown };
  if (typeof report !== 'object' || report === null || typeof report.generatedAt !== 'string' || !Array.isArray(report.clients)) {
    return 'its answer is not a client report ({ generatedAt, clients })';
  }
  return report as { generatedAt: string; clients: ClientReport[] };
}

export function main(argv: string[]): Promise<number> {
  return guardedMain('client-report', () => run(argv));
}

async function run(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseOptions(REPORT_OPTIONS, argv);
  } catch (error) {
    if (!(error instanceof KitError)) throw error;
    process.stderr.write(`client-report: ${error.message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(REPORT_HELP);
    return 0;
  }
  if (!values.adminToken) {
    process.stderr.write('client-report: --admin-token is required (or set ADMIN_TOKEN)\n');
    return 2;
  }
  let origin: string;
  try {
    origin = new URL(String(values.baseUrl)).origin;
  } catch {
    process.stderr.write(`client-report: --base-url ${JSON.stringify(values.baseUrl)} is not an absolute URL\n`);
    return 2;
  }
  let res: Response;
  try {
    res = await fetch(`${origin}/__admin/clients`, {
      headers: { authorization: `Bearer ${String(values.adminToken)}` },
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    process.stderr.write(`client-report: cannot reach ${origin}: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}\n`);
    return 2;
  }
  if (res.status !== 200) {
    const why =
      res.status === 404
        ? 'the admin API is off (start the server with --admin-token)'
        : res.status === 401
          ? 'the admin token was refused'
          : res.status >= 300 && res.status < 400
            ? `it answered ${res.status}, a redirect, which is not followed (the token goes to ${origin} only)`
            : `it answered ${res.status}`;
    process.stderr.write(`client-report: ${origin}/__admin/clients: ${why}\n`);
    return 2;
  }
  let text: string | undefined;
  try {
    text = await readBounded(res, MAX_REPORT_BYTES);
  } catch (error) {
    process.stderr.write(
      `client-report: ${origin}/__admin/clients: the answer broke off: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}\n`,
    );
    return 2;
  }
  const body = text === undefined ? `its answer is larger than ${MAX_REPORT_BYTES} bytes, not read further` : readReport(text);
  if (typeof body === 'string') {
    process.stderr.write(`client-report: ${origin}/__admin/clients: ${body}\n`);
    return 2;
  }
  process.stdout.write(values.json ? `${JSON.stringify(body, null, 2)}\n` : formatReport(origin, body.generatedAt, body.clients));
  if (typeof values.html === 'string') {
    const path = resolve(values.html);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, formatHtml(origin, body.generatedAt, body.clients));
  }
  return body.clients.every((c) => c.ready) ? 0 : 1;
}
