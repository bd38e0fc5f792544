// What `npm run build` leaves in dist/ beyond tsc's output (the test runner builds before any test), and
// that a checkout is never without a whole dist/: each part of the swap on trees in a temporary folder,
// then a real build in a copy of this checkout (the rest of the suite uses this one's dist/) during
// which the server still starts and `npm pack` still lists the whole package.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  accessSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { acquireLock, removeAbandoned, sourceFiles, staleReason, swapIn } from './build.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const buildModule = pathToFileURL(join(root, 'scripts/build.mjs')).href;
const work = mkdtempSync(join(tmpdir(), 'adoption-build-'));
let folders = 0;
const folder = () => {
  const dir = join(work, String(folders++));
  mkdirSync(dir);
  return dir;
};

function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

function readTree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/** `count` files spread over nested folders, each holding `content`. */
const many = (prefix: string, count: number, content: string) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i % 7}/${Math.floor(i / 7) % 5}/f${i}.js`, content]));

/** A child running `code` (an ES module body) with `args`; resolves with its stdout once it exits 0. */
function child(code: string, args: string[]): { process: ChildProcess; done: Promise<string>; ready: Promise<void> } {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', code, '--', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let signalReady: () => void;
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  proc.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('ready\n')) signalReady();
  });
  proc.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<string>((resolve, reject) =>
    proc.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`)))),
  );
  return { process: proc, done, ready };
}

const parts = suite("the build's parts");
parts.after(() => rmSync(work, { recursive: true, force: true }));

const sources = [
  { path: 'server/server.ts', mtimeMs: 1000 },
  { path: 'spec/openapi.yaml', mtimeMs: 3000 },
  { path: 'lib/errors.ts', mtimeMs: 2000 },
];
const staleCases: Array<[string, number | undefined, string | undefined]> = [
  ['dist/ newer than every source', 5000, undefined],
  ['built in the same millisecond as the newest source', 3000, undefined],
  ['a source changed after the build: named', 2500, 'dist/ is older than spec/openapi.yaml'],
  ['never built', undefined, 'dist/server/cli.js is missing'],
];
for (const [name, built, expected] of staleCases) {
  parts(`staleReason: ${name}`, () => assert.is(staleReason(built, sources), expected));
}

parts('sourceFiles: what the build reads, without tests, guides, test tooling and what runs write', () => {
  const dir = folder();
  writeTree(dir, {
    'server/a.ts': '',
    'server/a.test.ts': '',
    'server/README.md': '',
    'server/testing/chaos/x.ts': '',
    'conformance/reports/r.json': '',
    'load/cli/merge.ts': '',
    'load/smoke-summary.json': '',
    'bench/cli.ts': '',
  });
  assert.equal(
    sourceFiles(dir)
      .map((f) => f.path)
      .sort(),
    ['load/cli/merge.ts', 'server/a.ts'],
  );
});

parts('swapIn: a reader in another process finds every file whole throughout; then dist is exactly the new build', async () => {
  const [dist, staging, stop] = [join(folder(), 'dist'), join(folder(), 'staging'), join(work, 'stop')];
  const kept = many('k', 1500, 'old');
  writeTree(dist, { ...kept, 'gone.js': 'old', 'gone/x.js': 'old', flip: 'old' });
  writeTree(staging, { ...Object.fromEntries(Object.keys(kept).map((k) => [k, 'new'])), 'added.js': 'new', 'flip/inner.js': 'new' });
  writeFileSync(join(work, 'kept.json'), JSON.stringify(Object.keys(kept)));
  // Reads every kept file, round after round, until told to stop: none may be missing or half written.
  const reader = child(
    `import { existsSync, readFileSync } from 'node:fs';
const [dist, list, stop] = process.argv.slice(1);
const files = JSON.parse(readFileSync(list, 'utf8'));
let rounds = 0, bad = [];
process.stdout.write('ready\\n');
while (!existsSync(stop)) {
  for (const f of files) {
    let text;
    try { text = readFileSync(dist + '/' + f, 'utf8'); } catch (e) { text = e.code; }
    if (text !== 'old' && text !== 'new') bad.push(f + ': ' + text);
  }
  rounds++;
}
process.stdout.write(JSON.stringify({ rounds, bad: bad.slice(0, 5), badCount: bad.length }));`,
    [dist, join(work, 'kept.json'), stop],
  );
  await reader.ready;
  swapIn(staging, dist);
  writeFileSync(stop, '');
  const seen = JSON.parse((await reader.done).replace(/^ready\n/, '')) as { rounds: number; bad: string[]; badCount: number };
  rmSync(stop);
  process.stdout.write(`  [swap] ${seen.rounds} rounds of ${Object.keys(kept).length} reads, from before the swap to after it\n`);
  assert.equal(seen.bad, [], `${seen.badCount} reads failed in ${seen.rounds} rounds`);
  assert.ok(seen.rounds >= 1);
  assert.equal(readTree(dist), { ...Object.fromEntries(Object.keys(kept).map((k) => [k, 'new'])), 'added.js': 'new', 'flip/inner.js': 'new' });
  assert.equal(readTree(staging), {}, 'only empty folders are left where the build was');
});

parts('swapIn: without a dist/, the build becomes dist/ by one rename; a dist/ that is no folder is refused', () => {
  const dir = folder();
  writeTree(join(dir, 'staging'), { 'server/cli.js': 'new' });
  swapIn(join(dir, 'staging'), join(dir, 'dist'));
  assert.equal(readTree(join(dir, 'dist')), { 'server/cli.js': 'new' });
  assert.not.ok(existsSync(join(dir, 'staging')));
  writeTree(dir, { 'file/x': '', 'staging2/a': '' });
  assert.throws(() => swapIn(join(dir, 'staging2'), join(dir, 'file/x')), /file\/x is not a directory: remove it, and build again/);
});

parts('acquireLock: a free lock is taken and released; a dead holder is replaced; a live one is waited for', () => {
  const lock = join(folder(), 'lock');
  const release = acquireLock(lock);
  assert.is(readFileSync(lock, 'utf8'), String(process.pid));
  release();
  assert.not.ok(existsSync(lock));

  writeFileSync(lock, '999999');
  acquireLock(lock, { isAlive: () => false, wait: () => assert.unreachable('a dead holder is not waited for') })();

  writeFileSync(lock, '4242');
  let waits = 0;
  const taken = acquireLock(lock, { isAlive: (pid) => pid === 4242, wait: () => (++waits === 2 ? rmSync(lock) : undefined) });
  assert.is(waits, 2);
  assert.is(readFileSync(lock, 'utf8'), String(process.pid));
  taken();
});

parts('acquireLock: a holder that keeps it past the timeout is named; an empty lock is a holder for 5 s, then stale', () => {
  const lock = join(folder(), 'lock');
  writeFileSync(lock, '4242');
  let clock = 0;
  assert.throws(
    () => acquireLock(lock, { isAlive: () => true, now: () => clock, wait: () => (clock += 30_000), timeoutMs: 60_000 }),
    /lock has been held by process 4242 for 60000 ms: remove it if that process is not a build/,
  );
  writeFileSync(lock, '');
  const written = statSync(lock).mtimeMs;
  let waits = 0;
  clock = written + 1000;
  acquireLock(lock, { now: () => clock, wait: () => (waits++, utimesSync(lock, new Date(written - 10_000), new Date(written - 10_000))) })();
  assert.is(waits, 1, 'waited once while it was young, then took it over');
});

parts('removeAbandoned: removes the folders of builds whose process is gone, and nothing else', () => {
  const dir = folder();
  for (const name of ['.dist-build-999999-aa/x.js', `.dist-build-${process.pid}-bb/x.js`, 'dist/x.js', '.dist-builder/x', '.dist-build.lock'])
    writeTree(dir, { [name]: '' });
  removeAbandoned(dir, (pid) => pid === process.pid);
  assert.equal(readdirSync(dir).sort(), ['.dist-build-' + process.pid + '-bb', '.dist-build.lock', '.dist-builder', 'dist']);
});

parts('install: two builds swapped in at once leave one of them whole, never a mix', async () => {
  const dir = folder();
  writeTree(join(dir, 'dist'), many('o', 100, 'O'));
  const builds = { A: { ...many('a', 1000, 'A'), ...many('c', 1000, 'A') }, B: { ...many('b', 1000, 'B'), ...many('c', 1000, 'B') } };
  for (const [name, files] of Object.entries(builds)) writeTree(join(dir, name), files);
  const go = join(dir, 'go');
  const installer = (name: string) =>
    child(
      `import { existsSync } from 'node:fs';
import { install } from ${JSON.stringify(buildModule)};
const [staging, root, go] = process.argv.slice(1);
process.stdout.write('ready\\n');
while (!existsSync(go));
install(staging, root);`,
      [join(dir, name), dir, go],
    );
  const both = [installer('A'), installer('B')];
  await Promise.all(both.map((c) => c.ready));
  writeFileSync(go, '');
  await Promise.all(both.map((c) => c.done));
  const result = readTree(join(dir, 'dist'));
  const which = result['c0/0/f0.js'] as 'A' | 'B';
  assert.ok(which === 'A' || which === 'B', `dist/ holds ${which}`);
  assert.equal(result, builds[which], `dist/ is build ${which}, whole and alone`);
  assert.not.ok(existsSync(join(dir, '.dist-build.lock')), 'the lock is released');
});

parts.run();

/**
 * A copy of this checkout: its files (git's, untracked ones included) and dist/ with their times, and
 * node_modules linked. A build there changes nothing the rest of the suite, running meanwhile, uses.
 */
function copyOfCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'adoption-checkout-'));
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  for (const file of listed.split('\0').filter((f) => f && existsSync(join(root, f)))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file), { preserveTimestamps: true });
  }
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true, preserveTimestamps: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

let copy = '';
const run = (command: string, args: string[]) =>
  new Promise<{ ok: boolean; stdout: string; output: string }>((resolve) =>
    execFile(command, args, { cwd: copy, encoding: 'utf8', timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ ok: !error, stdout, output: `${stdout}${stderr}`.slice(-1500) }),
    ),
  );

/** The package's file list as `npm pack` would pack it now. */
async function packList(): Promise<string[] | string> {
  const packed = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error']);
  if (!packed.ok) return packed.output;
  return (JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path).sort();
}

const checkout = suite('the checkout during a build');
checkout.before(() => {
  copy = copyOfCheckout();
});
checkout.after(() => rmSync(copy, { recursive: true, force: true }));

checkout("the command's entry is executable, so `npx adoption-kit` runs in the repository as in a project that installed the kit", () => {
  assert.not.throws(() => accessSync(join(root, 'dist/bin/adoption-kit.js'), constants.X_OK));
});

checkout(
  'during a real build (--no-check, as npm test builds), `node dist/server/cli.js --help` keeps starting and `npm pack` lists the whole package',
  async () => {
    const before = await packList();
    if (typeof before === 'string') throw new Error(`npm pack before the build: ${before}`);
    const builtBefore = statSync(join(copy, 'dist/server/cli.js')).mtimeMs;
    const started = Date.now();
    const build = spawn(process.execPath, ['scripts/build.mjs', '--no-check'], { cwd: copy, stdio: ['ignore', 'pipe', 'pipe'] });
    let buildOutput = '';
    build.stdout.on('data', (chunk: Buffer) => (buildOutput += chunk.toString()));
    build.stderr.on('data', (chunk: Buffer) => (buildOutput += chunk.toString()));
    let building = true;
    const finished = new Promise<number | null>((resolve) => build.once('exit', resolve)).finally(() => (building = false));

    const failures: string[] = [];
    // Real starts and packs (a second and three of CPU each), paced so that they do not starve the build
    // they watch; between them every file the package had is looked for every 50 ms, far finer than a
    // start or a pack could sample.
    const pause = (ms: number) => Promise.race([delay(ms), finished]);
    let starts = 0;
    let packs = 0;
    let looks = 0;
    const starting = (async () => {
      while (building) {
        const help = await run(process.execPath, ['dist/server/cli.js', '--help']);
        starts += 1;
        if (!help.ok || !help.stdout.startsWith('Usage: ')) failures.push(`start ${starts}: ${help.output}`);
        await pause(1000);
      }
    })();
    const lists: string[][] = [];
    const packing = (async () => {
      while (building) {
        const list = await packList();
        packs += 1;
        if (typeof list === 'string') failures.push(`pack ${packs}: ${list}`);
        else lists.push(list);
        await pause(2000);
      }
    })();
    const missing = new Set<string>();
    const looking = (async () => {
      while (building) {
        for (const file of before) if (!existsSync(join(copy, file))) missing.add(file);
        looks += 1;
        await pause(50);
      }
    })();
    assert.is(await finished, 0, buildOutput);
    await Promise.all([starting, packing, looking]);
    // Whole: every file the build kept, and nothing that was neither before nor after.
    const after = await packList();
    if (typeof after === 'string') throw new Error(`npm pack after the build: ${after}`);
    const kept = before.filter((f) => after.includes(f));
    const lost = kept.filter((f) => missing.has(f));
    if (lost.length > 0) failures.push(`looked for every file ${looks} times: missing at some point ${lost.slice(0, 5).join(', ')}`);
    for (const [i, list] of lists.entries()) {
      const missing = kept.filter((f) => !list.includes(f));
      const strange = list.filter((f) => !before.includes(f) && !after.includes(f));
      if (missing.length + strange.length > 0)
        failures.push(`pack ${i + 1}: ${list.length} files; missing ${missing.slice(0, 5).join(', ')}; unexpected ${strange.slice(0, 5).join(', ')}`);
    }
    process.stdout.write(
      `  [build] ${starts} starts, ${packs} packs and ${looks} looks at every file during a ${((Date.now() - started) / 1000).toFixed(1)} s build\n`,
    );
    assert.equal(failures.slice(0, 3), [], `${failures.length} failures in ${starts} starts, ${packs} packs and ${looks} looks`);
    assert.ok(starts >= 3 && packs >= 1, `the build outlasted ${starts} starts and ${packs} packs`);
    assert.ok(statSync(join(copy, 'dist/server/cli.js')).mtimeMs > builtBefore, 'the build replaced dist/');
    assert.equal(
      readdirSync(copy).filter((name) => name.startsWith(`.dist-build-${build.pid}-`)),
      [],
      'the build leaves nothing beside dist/',
    );
  },
);

checkout('--if-stale right after a build says nothing and builds nothing; an unknown option is refused with the usage', async () => {
  const builtAt = statSync(join(copy, 'dist/server/cli.js')).mtimeMs;
  const fresh = await run(process.execPath, ['scripts/build.mjs', '--if-stale']);
  assert.ok(fresh.ok, fresh.output);
  assert.is(fresh.output, '');
  assert.is(statSync(join(copy, 'dist/server/cli.js')).mtimeMs, builtAt);
  const wrong = await run(process.execPath, ['scripts/build.mjs', '--watch']);
  assert.not.ok(wrong.ok);
  assert.is(wrong.output, 'unknown option --watch\nUsage: node scripts/build.mjs [--if-stale] [--no-check]\n');
});

checkout('without --no-check the build type-checks: a type error fails it, dist/ stays as it was and nothing is left beside it', async () => {
  // The real build above emits without checking, as npm test's does (the typecheck beside it checks
  // everything); here the default is shown to check, on a project of one file.
  const builtAt = statSync(join(copy, 'dist/server/cli.js')).mtimeMs;
  writeFileSync(join(copy, 'bin/wrong-type.ts'), "export const count: number = 'three';\n");
  const config = JSON.parse(readFileSync(join(copy, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  writeFileSync(join(copy, 'tsconfig.build.json'), JSON.stringify({ ...config, include: ['bin/wrong-type.ts'] }));
  const failed = await run(process.execPath, ['scripts/build.mjs']);
  assert.not.ok(failed.ok, failed.output);
  assert.match(failed.output, /bin\/wrong-type\.ts.*error TS2322/);
  assert.match(failed.output, /the build failed/);
  assert.is(statSync(join(copy, 'dist/server/cli.js')).mtimeMs, builtAt);
  assert.equal(
    readdirSync(copy).filter((name) => name.startsWith('.dist-build-')),
    [],
  );
});

checkout.run();
