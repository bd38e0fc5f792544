// `npm run bench`: reads the options, runs the benchmark (run.ts), prints the table and writes the
// `--json` document and the `--results` section. Exit 1 when a case has no clean round or a create
// was lost; a missed target is a finding, not a failure. See bench/README.md.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../lib/errors.ts';
import { K6_START_CASE, PROXY_CASE } from './cases.ts';
import { measureK6Start, renderK6Start } from './k6-start.ts';
import { HELP, parseBenchOptions, type BenchOptions } from './options.ts';
import { renderProfileMarkdown, summarizeProfile, type CpuProfile } from './profile.ts';
import { runProxyCase } from './proxy-case.ts';
import { renderProxyCase, type ProxyCaseOptions, type ProxyCaseReport } from './proxy-case-report.ts';
import { insertSection, renderResultsSection, renderText } from './render.ts';
import { runBench } from './run.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The command that ran, as a user would type it again. */
export function commandLine(args: readonly string[]): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return args.length ? `npm run bench -- ${args.map(quote).join(' ')}` : 'npm run bench';
}

/** The profile table of the list case's server, for the results file: its busiest profile (a worker's, or the main thread's). */
function profileTable(dir: string): string | undefined {
  const folder = join(dir, 'ref-10k');
  if (!existsSync(folder)) return undefined;
  const files = readdirSync(folder)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(folder, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (!files[0]) return undefined;
  const summary = summarizeProfile(JSON.parse(readFileSync(files[0], 'utf8')) as CpuProfile, 15);
  return `Profile of the server of ref-list and ref-get (\`${files[0].slice(dir.length + 1)}\`):\n\n${renderProfileMarkdown(summary)}`;
}

async function main(): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      log(`bench: ${error.message} (see --help)`);
      process.exit(2);
    }
    throw error;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return;
  }
  const command = commandLine(process.argv.slice(2));
  const others = options.cases.some((id) => id !== PROXY_CASE && id !== K6_START_CASE);
  const report = others ? await runBench(options, command) : undefined;
  if (report) process.stdout.write(renderText(report));
  const proxy = options.cases.includes(PROXY_CASE) ? await runProxyCase(proxyCaseOptions(options), log) : undefined;
  if (proxy) process.stdout.write(`${report ? '\n' : ''}${renderProxyCase(proxy)}`);
  const k6Start = options.cases.includes(K6_START_CASE) ? measureK6Start({ runs: options.rounds }) : undefined;
  if (k6Start) process.stdout.write(`${report || proxy ? '\n' : ''}${renderK6Start(k6Start)}`);
  if (!report && !proxy) {
    // The k6 start case alone: its table is the run.
    if (options.json) writeFileSync(options.json, JSON.stringify({ command, k6Start }, null, 2) + '\n');
    return;
  }
  if (options.json) {
    mkdirSync(dirname(resolve(options.json)), { recursive: true });
    const document = report ? { ...report, ...(proxy ? { proxy } : {}), ...(k6Start ? { k6Start } : {}) } : { command, proxy, ...(k6Start ? { k6Start } : {}) };
    writeFileSync(options.json, JSON.stringify(document, (_k, v: unknown) => (v instanceof Map ? undefined : v), 2) + '\n');
    log(`wrote ${options.json}`);
  }
  if (options.results) {
    const file = resolve(options.results);
    const profile = options.cpuProf ? profileTable(resolve(options.cpuProf)) : undefined;
    const section = report
      ? renderResultsSection(report, [profile, proxy && `\`\`\`\n${renderProxyCase(proxy).trimEnd()}\n\`\`\``].filter(Boolean).join('\n\n') || undefined)
      : proxyResultsSection(proxy!, command);
    writeFileSync(file, insertSection(existsSync(file) ? readFileSync(file, 'utf8') : undefined, section));
    log(`added this run to ${options.results}`);
  }
  // Missed targets are findings, not failures; a case without a clean round, or a lost create, is a failure.
  const broken = (report?.cases ?? []).filter((c) => c.skipped || !c.summary || c.summary.cleanRounds === 0 || (c.durability ?? []).some((d) => !d.ok));
  const proxyBroken = proxy !== undefined && (proxy.skipped !== undefined || proxy.series.some((s) => s.directRps === null || s.proxyRps === null));
  process.exitCode = broken.length || proxyBroken ? 1 : 0;
}

function proxyCaseOptions(options: BenchOptions): ProxyCaseOptions {
  return {
    rounds: options.proxyRounds,
    duration: options.proxyDuration,
    warmup: options.warmup,
    connections: options.proxyConnections.map(Number),
    pin: options.pin,
    keep: options.keep,
  };
}

/** A results section for a run of the proxy case alone. */
function proxyResultsSection(proxy: ProxyCaseReport, command: string): string {
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  return [
    `## ${date} UTC: the proxy case`,
    '',
    `- machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`,
    `- command: \`${command}\``,
    '',
    '```',
    renderProxyCase(proxy).trimEnd(),
    '```',
    '',
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
