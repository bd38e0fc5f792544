// The project's one test command. Static checks count as one test each; every `*.test.ts`
// file runs in its own process (a crash fails that file, not the run): two at a time, and more
// while cores stand idle (scripts/test-schedule.ts), the longest first.
// The last line is `N passed, N failed`, as CI reads it.
import { availableParallelism } from 'node:os';
import { spawnChild } from '../lib/processes.ts';
import { bundleTests, ENTRIES, runFolder, THREADS } from './test-bundle.ts';
import { BUNDLES_ENV } from '../lib/testing/run-source.ts';
import { durationsOf, expectedCores, fileSize, idleCoresSampler, longestFirst, mayStart, readRecord, type AdmissionOptions } from './test-schedule.ts';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Every part that holds tests; scripts/fan.test.ts fails when a part of the fan is missing here. */
const SEARCHED = ['lib', 'judge', 'server', 'conformance', 'proxy', 'load', 'bench', 'fixtures', 'scripts', 'spec'];
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 6 * 60_000);
/**
 * What each file took in a recorded run, wall and CPU (`npm test -- --record-times` writes it): the
 * order files start in, and the cores each is expected to keep busy.
 */
const DURATIONS = join(root, 'scripts/test-times.json');
/**
 * TEST_CONCURRENCY fixes how many files run at once; without it, two, and more while cores stand idle:
 * as many as keep twice the cores busy by their record (a file waiting on k6 counts for the little it
 * uses), and never more than three files a core. Four lanes a core, counted as whole cores, was tried:
 * the files' CPU grew with the contention (1,184 s to 1,240 s) and the run took no less (706 s, 720 s).
 */
const FIXED_LANES = process.env.TEST_CONCURRENCY ? Math.max(1, Number(process.env.TEST_CONCURRENCY)) : undefined;
const CORES = availableParallelism();
const ADMISSION: AdmissionOptions = {
  minLanes: FIXED_LANES ?? 2,
  maxLanes: FIXED_LANES ?? Math.max(2, 3 * CORES),
  maxCores: FIXED_LANES ?? Math.max(2, 2 * CORES),
  idleCoresToAdmit: 0.5,
  settleMs: 2_000,
};
/** How often the runner looks at the machine's idle cores. */
const LOOK_MS = 1_000;

interface Outcome {
  name: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Why the file skipped what it skipped: its `SKIP: <reason>` lines. */
  reasons: string[];
  output: string;
  ms: number;
  /** When it started (Date.now()), for TEST_TIMINGS' timeline. */
  startedAt: number;
  /** CPU time of the file's process and the children it waited for, in ms (Linux; 0 elsewhere). */
  cpuMs: number;
}

/** CPU time of this runner's reaped children so far (cutime + cstime of /proc/self/stat), in ms. */
function reapedCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5), counted from the state (field 3) here.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}
let reapedSoFar = reapedCpuMs();

/** Each test file's bundle (scripts/test-bundle.ts), when the bundling worked and TEST_TSX is unset. */
let bundles = new Map<string, string>();
const bundleDir = runFolder(root);

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

function run(command: string, args: string[]): Promise<{ code: number; output: string; ms: number; startedAt: number; cpuMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    // Each file in a process group of its own, remembered by lib/processes.ts: interrupting the
    // runner (Ctrl-C, SIGTERM) takes every file's servers and children with it.
    const child = spawnChild(command, args, {
      cwd: root,
      group: true,
      env: { ...process.env, FORCE_COLOR: '0', ...(bundles.size > 0 ? { [BUNDLES_ENV]: bundleDir } : {}) },
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
      // The CPU reaped since the last file ended is this file's: files end one at a time.
      const reaped = reapedCpuMs();
      const cpuMs = reaped - reapedSoFar;
      reapedSoFar = reaped;
      resolve({ code: code ?? 1, output, ms: Date.now() - started, startedAt: started, cpuMs });
    });
  });
}

async function staticCheck(name: string, command: string, args: string[]): Promise<Outcome> {
  const { code, output, ms, startedAt, cpuMs } = await run(command, args);
  return { name, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0, reasons: [], output, ms, startedAt, cpuMs };
}

async function testFile(name: string): Promise<Outcome> {
  const bundle = bundles.get(name);
  const args = bundle ? ['--enable-source-maps', bundle] : ['--import', 'tsx', join(root, name)];
  const ran = await run(process.execPath, args);
  const { code, ms, startedAt, cpuMs } = ran;
  let { output } = ran;
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
  // uvu drops an error thrown by a before or after hook (it returns from a finally): the suite's tests
  // count as failed, it exits 0, and nothing says why.
  if (failed > 0 && code === 0 && !/ FAIL /.test(output))
    output += `\nuvu printed no error for these failures: a before or after hook threw, and uvu drops a hook's error; run the file alone with that hook in a try/catch to see it\n`;
  // A file that skips says why, on a line of its own: `SKIP: <reason>`.
  const reasons = [...output.matchAll(/^SKIP: (.+)$/gm)].map((m) => m[1]!);
  return { name, passed, failed, skipped, reasons, output, ms, startedAt, cpuMs };
}

/** A file or check to run, with the cores it is expected to keep busy. */
interface Item {
  run: () => Promise<Outcome>;
  cores: number;
}

/**
 * Runs every item, at least `minLanes` at once and more while cores stand idle (`mayStart`), in the
 * order given; `done` hears each as it ends. Returns the most that ran at once.
 */
async function schedule(items: readonly Item[], options: AdmissionOptions, done: (r: Outcome) => void): Promise<number> {
  const idleCores = idleCoresSampler();
  idleCores();
  let next = 0;
  let running = 0;
  let cores = 0;
  let peak = 0;
  let lastStart = 0;
  return new Promise((resolve) => {
    const look = (idle: number | undefined) => {
      while (
        next < items.length &&
        mayStart(options, { running, cores, nextCores: items[next]!.cores, idleCores: idle ?? 0, msSinceLastStart: Date.now() - lastStart })
      ) {
        const item = items[next++]!;
        running++;
        cores += item.cores;
        peak = Math.max(peak, running);
        lastStart = Date.now();
        // One at a time past the minimum: the next look sees what this one does to the machine.
        idle = 0;
        void item.run().then((result) => {
          running--;
          cores -= item.cores;
          done(result);
          if (next >= items.length && running === 0) {
            clearInterval(timer);
            resolve(peak);
          } else look(0);
        });
      }
    };
    const timer = setInterval(() => look(idleCores()), LOOK_MS);
    if (items.length === 0) {
      clearInterval(timer);
      resolve(0);
    } else look(0);
  });
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

const found = SEARCHED.flatMap((d) => findTestFiles(join(root, d)))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)));
const recorded = readRecord(DURATIONS);
const files = longestFirst(found, durationsOf(recorded), (name) => fileSize(join(root, name)));

// The type-check needs no build: it starts at once, beside the build, so that no core waits for it.
const typecheck = skipStatic ? undefined : staticCheck('typecheck (tsc, strict)', 'npx', ['--no-install', 'tsc', '-p', 'tsconfig.json']).then(record);

// Tests of the package and of `npm start` run the compiled code: build it first, once; meanwhile
// the test files are bundled (a bundling that fails leaves every file to tsx, and says why).
const [build] = await Promise.all([
  // --no-check: the type-check beside it checks every file the build compiles, and more.
  staticCheck('build (compiled JavaScript and declarations in dist/)', process.execPath, ['scripts/build.mjs', '--no-check']),
  process.env.TEST_TSX
    ? undefined
    : bundleTests(root, bundleDir, files, { entries: ENTRIES, threads: THREADS }).then(
        (made) => void (bundles = made),
        (error: Error) => void process.stdout.write(`test files run through tsx: bundling them failed: ${error.message}\n`),
      ),
]);
record(build);

const statics: Array<() => Promise<Outcome>> = skipStatic
  ? []
  : [
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

// The static checks first (each keeps a core busy), then the files, longest first.
// A static check keeps a core busy; a file counts for what its record says it used.
const items: Item[] = [
  ...statics.map((run) => ({ run, cores: 1 })),
  ...files.map((file) => ({ run: () => testFile(file), cores: expectedCores(recorded[file]) })),
];
const peak = await schedule(items, ADMISSION, record);
await typecheck;

const sum = (key: 'passed' | 'failed' | 'skipped') => outcomes.reduce((s, o) => s + o[key], 0);
const failing = outcomes.filter((o) => o.failed > 0).map((o) => o.name);
process.stdout.write(
  `\n${outcomes.length} files and checks in ${((Date.now() - started) / 1000).toFixed(1)} s (at most ${peak} at once; ${ADMISSION.minLanes} to ${ADMISSION.maxLanes} allowed, up to ${ADMISSION.maxCores} cores' worth by their record)\n`,
);
if (failing.length) process.stdout.write(`failing: ${failing.join(', ')}\n`);
// Where the time went: the ten slowest files and checks, so a file that grows slow is seen.
const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 10);
const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(6);
process.stdout.write(`slowest (wall, cpu):\n${slowest.map((o) => `  ${seconds(o.ms)} s ${seconds(o.cpuMs)} s  ${o.name}`).join('\n')}\n`);
const totalCpuMs = outcomes.reduce((s, o) => s + o.cpuMs, 0);
process.stdout.write(`all files and checks used ${(totalCpuMs / 1000).toFixed(1)} s of CPU\n`);
if (process.env.TEST_TIMINGS) {
  // Every file's wall and CPU time, and when it started in the run: where the CPU went (the list above
  // is ten) and when cores stood idle.
  const timings = outcomes
    .map((o) => ({ name: o.name, ms: Math.round(o.ms), cpuMs: Math.round(o.cpuMs), startMs: o.startedAt - started }))
    .sort((a, b) => b.cpuMs - a.cpuMs);
  writeFileSync(process.env.TEST_TIMINGS, JSON.stringify(timings, null, 2) + '\n');
}
if (process.argv.includes('--record-times') && filters.length === 0) {
  // Only a whole run's files: a filtered run would leave the others out of the order.
  const times = Object.fromEntries(
    outcomes
      .filter((o) => o.name.endsWith('.test.ts'))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((o) => [o.name, { ms: Math.round(o.ms), cpuMs: Math.round(o.cpuMs) }]),
  );
  writeFileSync(DURATIONS, JSON.stringify(times, null, 2) + '\n');
  process.stdout.write(`recorded the files' durations in ${relative(root, DURATIONS)}\n`);
}
const skipped = sum('skipped');
for (const o of outcomes.filter((o) => o.skipped > 0)) {
  process.stdout.write(
    `skipped ${o.skipped} in ${o.name}: ${o.reasons.length > 0 ? o.reasons.join('; ') : 'no reason given (the file should print a SKIP: line)'}\n`,
  );
}
process.stdout.write(`${sum('passed')} passed, ${sum('failed')} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exitCode = sum('failed') > 0 ? 1 : 0;
