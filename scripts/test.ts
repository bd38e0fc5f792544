// The project's one test command. Static checks count as one test each; every `*.test.ts`
// file runs in its own process (a crash fails that file, not the run), two at a time.
// The last line is `N passed, N failed`, as CI reads it.
import { spawnChild } from '../lib/processes.ts';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Every part that holds tests; scripts/fan.test.ts fails when a part of the fan is missing here. */
const SEARCHED = ['lib', 'judge', 'server', 'conformance', 'proxy', 'load', 'bench', 'fixtures', 'scripts', 'spec'];
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 6 * 60_000);
const CONCURRENCY = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 2));

interface Outcome {
  name: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Why the file skipped what it skipped: its `SKIP: <reason>` lines. */
  reasons: string[];
  output: string;
  ms: number;
}

function findTestFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTestFiles(path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

function run(command: string, args: string[]): Promise<{ code: number; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    // Each file in a process group of its own, remembered by lib/processes.ts: interrupting the
    // runner (Ctrl-C, SIGTERM) takes every file's servers and children with it.
    const child = spawnChild(command, args, {
      cwd: root,
      group: true,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      output += `\n[test runner] timed out after ${FILE_TIMEOUT_MS} ms; killed\n`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      // Whatever the file left behind (servers, children) goes with it.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      resolve({ code: code ?? 1, output, ms: Date.now() - started });
    });
  });
}

async function staticCheck(name: string, command: string, args: string[]): Promise<Outcome> {
  const { code, output, ms } = await run(command, args);
  return { name, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0, reasons: [], output, ms };
}

async function testFile(file: string): Promise<Outcome> {
  const name = relative(root, file);
  const { code, output, ms } = await run(process.execPath, ['--import', 'tsx', file]);
  const count = (label: string) => {
    const matches = [...output.matchAll(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'gm'))];
    return matches.reduce((sum, m) => sum + Number(m[1]), 0);
  };
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped');
  // uvu's Total leaves skipped tests out.
  let failed = Math.max(0, total - passed);
  // A file that crashed, hung or never reported still fails the run.
  if (code !== 0 && failed === 0) failed = 1;
  if (total === 0 && skipped === 0 && code === 0) failed = 1;
  // A file that skips says why, on a line of its own: `SKIP: <reason>`.
  const reasons = [...output.matchAll(/^SKIP: (.+)$/gm)].map((m) => m[1]!);
  return { name, passed, failed, skipped, reasons, output, ms };
}

async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>, done: (r: R) => void) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      done(await work(item));
    }
  });
  await Promise.all(lanes);
}

function report(outcome: Outcome) {
  const verdict = outcome.failed > 0 ? 'FAIL' : 'ok  ';
  const failed = outcome.failed > 0 || process.env.TEST_VERBOSE;
  process.stdout.write(`${verdict} ${outcome.name}  (${outcome.passed} passed, ${outcome.failed} failed, ${(outcome.ms / 1000).toFixed(1)} s)\n`);
  if (failed) process.stdout.write(outcome.output.replace(/^/gm, '     | ') + '\n');
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const skipStatic = process.argv.includes('--no-static') || filters.length > 0;
const started = Date.now();
const outcomes: Outcome[] = [];
const record = (o: Outcome) => {
  outcomes.push(o);
  report(o);
};

const files = SEARCHED.flatMap((d) => findTestFiles(join(root, d)))
  .filter((f) => filters.length === 0 || filters.some((p) => relative(root, f).includes(p)))
  .sort();

// Tests of the package and of `npm start` run the compiled code: build it first, once.
const build = await staticCheck('build (compiled JavaScript and declarations in dist/)', process.execPath, ['scripts/build.mjs']);
record(build);

const statics: Array<() => Promise<Outcome>> = skipStatic
  ? []
  : [
      () => staticCheck('typecheck (tsc, strict)', 'npx', ['--no-install', 'tsc', '-p', 'tsconfig.json']),
      () => staticCheck('typecheck k6 scripts (tsc, checkJs, @types/k6)', 'npx', ['--no-install', 'tsc', '-p', 'load/tsconfig.json']),
      () =>
        staticCheck('format (prettier --check, .prettierrc.json; npm run format fixes it)', 'npx', [
          '--no-install',
          'prettier',
          '--check',
          '**/*.{ts,js,mjs,cjs}',
        ]),
      () =>
        staticCheck('spectral lint spec/openapi.yaml (spectral:oas, all rules)', 'npx', [
          '--no-install',
          'spectral',
          'lint',
          '--fail-severity=warn',
          '--ruleset',
          '.spectral.yaml',
          'spec/openapi.yaml',
        ]),
    ];

await pool(statics, CONCURRENCY, (check) => check(), record);
await pool(files, CONCURRENCY, testFile, record);

const sum = (key: 'passed' | 'failed' | 'skipped') => outcomes.reduce((s, o) => s + o[key], 0);
const failing = outcomes.filter((o) => o.failed > 0).map((o) => o.name);
process.stdout.write(`\n${outcomes.length} files and checks in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
if (failing.length) process.stdout.write(`failing: ${failing.join(', ')}\n`);
// Where the time went: the ten slowest files and checks, so a file that grows slow is seen.
const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 10);
process.stdout.write(`slowest:\n${slowest.map((o) => `  ${(o.ms / 1000).toFixed(1).padStart(6)} s  ${o.name}`).join('\n')}\n`);
const skipped = sum('skipped');
for (const o of outcomes.filter((o) => o.skipped > 0)) {
  process.stdout.write(
    `skipped ${o.skipped} in ${o.name}: ${o.reasons.length > 0 ? o.reasons.join('; ') : 'no reason given (the file should print a SKIP: line)'}\n`,
  );
}
process.stdout.write(`${sum('passed')} passed, ${sum('failed')} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exitCode = sum('failed') > 0 ? 1 : 0;
