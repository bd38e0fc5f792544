// `npm run build`: the package's JavaScript and type declarations in dist/ (tsc), and beside them the
// files the code reads at run time by a path relative to itself: the contract, the fixtures, the API
// reference page, the Lua scripts of the Redis limiter, Dredd's worker and hooks, and the k6 scripts'
// library. Plain Node, so it runs wherever `npm install` runs. `--if-stale` builds only when dist/ is
// missing or older than its sources (what `npm start` runs first).
//
// A checkout is never without a whole dist/: the build goes to a folder of its own beside dist/ (at the
// same depth, so the source maps' relative paths hold), then each file is renamed over its old copy,
// which is atomic, and what the new build lacks goes last. Not a directory swap: a directory cannot be
// renamed over a non-empty one, and `npm pack` leaves out a `dist` that is a symlink.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILT_MARKER = 'dist/server/cli.js';
/** What tsc compiles or the build copies into dist/ (tsconfig.build.json's include, and ASSETS). */
const SOURCE_DIRS = ['bin', 'lib', 'server', 'conformance', 'proxy', 'spec', 'fixtures', 'load/cli', 'load/lib'];
/** Folders under those that are not built: test tooling, and what runs write (git-ignored). */
const NOT_BUILT = new Set(['testing', 'reports', 'node_modules']);
/** A build in progress: `.dist-build-<pid>-<random>`, removed when done, or by a later build once its process is gone. */
const STAGING = '.dist-build-';
const LOCK = '.dist-build.lock';
/** @type {Array<[string, RegExp]>} */
const ASSETS = [
  ['spec', /\.yaml$/],
  ['fixtures', /\.json$/],
  ['server/docs', /\.(html|js)$/],
  ['server/rate-limit', /\.lua$/],
  ['server/pets', /\.lua$/],
  ['conformance/dredd', /\.cjs$/],
  // The k6 scripts' library, read by `adoption-kit load-merge` (its .d.ts beside it hides the .js from tsc).
  ['load/lib', /\.js$/],
];

/** @typedef {{ path: string, mtimeMs: number }} SourceFile */

/**
 * Why dist/ must be rebuilt, or undefined when it is newer than every source.
 * @param {number | undefined} builtMtimeMs
 * @param {readonly SourceFile[]} sources
 * @returns {string | undefined}
 */
export function staleReason(builtMtimeMs, sources) {
  if (builtMtimeMs === undefined) return `${BUILT_MARKER} is missing`;
  /** @type {SourceFile | undefined} */
  let newest;
  for (const source of sources) if (newest === undefined || source.mtimeMs > newest.mtimeMs) newest = source;
  if (newest && newest.mtimeMs > builtMtimeMs) return `dist/ is older than ${newest.path}`;
  return undefined;
}

/**
 * The files the build reads, test files and guides left out.
 * @param {string} root
 * @returns {SourceFile[]}
 */
export function sourceFiles(root) {
  /** @type {SourceFile[]} */
  const found = [];
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!NOT_BUILT.has(entry.name)) walk(path);
      } else if (!entry.name.endsWith('.test.ts') && !entry.name.endsWith('.md')) found.push({ path: relative(root, path), mtimeMs: statSync(path).mtimeMs });
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir));
  return found;
}

/** @param {string} root */
function staleness(root) {
  const marker = join(root, BUILT_MARKER);
  return staleReason(existsSync(marker) ? statSync(marker).mtimeMs : undefined, sourceFiles(root));
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

/** @param {number} ms */
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Takes the lock file `path` (its content: the holder's pid), waiting while a live process holds it and
 * taking it over from a dead one; returns its release.
 * @param {string} path
 * @param {{ isAlive?: (pid: number) => boolean, wait?: (ms: number) => unknown, now?: () => number, timeoutMs?: number }} [options]
 * @returns {() => void}
 */
export function acquireLock(path, { isAlive = alive, wait = sleep, now = Date.now, timeoutMs = 60_000 } = {}) {
  const started = now();
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
    }
    let holder = NaN;
    let age = 0;
    try {
      holder = Number(readFileSync(path, 'utf8'));
      age = now() - statSync(path).mtimeMs;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') continue; // released meanwhile
      throw error;
    }
    // An empty lock is being written, unless it has been empty for seconds: its writer died first.
    const gone = holder > 0 ? !isAlive(holder) : age > 5000;
    if (gone) {
      rmSync(path, { force: true });
      continue;
    }
    if (now() - started > timeoutMs)
      throw new Error(`${path} has been held by process ${holder} for ${timeoutMs} ms: remove it if that process is not a build`);
    wait(20);
  }
}

/**
 * Moves the tree `staging` into `dist` so that every file of both exists at every instant: each file is
 * renamed over its old copy, then what `staging` lacks is removed. `dist` absent: one rename.
 * @param {string} staging
 * @param {string} dist
 */
export function swapIn(staging, dist) {
  const kind = existsSync(dist) ? lstatSync(dist) : undefined;
  if (kind === undefined) return renameSync(staging, dist);
  if (!kind.isDirectory()) throw new Error(`${dist} is not a directory: remove it, and build again`);
  const fresh = new Set();
  /** @param {string} rel */
  const moveIn = (rel) => {
    for (const entry of readdirSync(join(staging, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name);
      const target = join(dist, path);
      fresh.add(path);
      // A file that became a folder, or the reverse: the one place a path is briefly absent.
      const was = existsSync(target) ? lstatSync(target).isDirectory() : undefined;
      if (was !== undefined && was !== entry.isDirectory()) rmSync(target, { recursive: true, force: true });
      if (entry.isDirectory()) {
        mkdirSync(target, { recursive: true });
        moveIn(path);
      } else renameSync(join(staging, path), target);
    }
  };
  /** @param {string} rel */
  const removeStale = (rel) => {
    for (const entry of readdirSync(join(dist, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name);
      if (!fresh.has(path)) rmSync(join(dist, path), { recursive: true, force: true });
      else if (entry.isDirectory()) removeStale(path);
    }
  };
  moveIn('');
  removeStale('');
}

/**
 * Removes the folders of builds whose process is gone (killed mid-build).
 * @param {string} root
 * @param {(pid: number) => boolean} [isAlive]
 */
export function removeAbandoned(root, isAlive = alive) {
  for (const name of readdirSync(root)) {
    const pid = name.startsWith(STAGING) ? /^(\d+)-/.exec(name.slice(STAGING.length))?.[1] : undefined;
    if (pid !== undefined && !isAlive(Number(pid))) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/**
 * Swaps a finished build in as `root`/dist under the lock: two builds at once each swap whole, one
 * after the other, never file by file into each other.
 * @param {string} staging
 * @param {string} root
 */
export function install(staging, root) {
  const release = acquireLock(join(root, LOCK));
  try {
    swapIn(staging, join(root, 'dist'));
  } finally {
    release();
  }
}

/** The Swagger UI files the docs page loads, and their licence: shipped in dist/, so swagger-ui-dist
 * (whose @scarf/scarf dependency reports installs) stays a development dependency. */
const SWAGGER_UI = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt'];

/** @param {string} staging */
function copySwaggerUi(staging) {
  const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const to = join(staging, 'server', 'docs', 'swagger-ui');
  mkdirSync(to, { recursive: true });
  for (const file of SWAGGER_UI) cpSync(join(from, file), join(to, file));
}

/**
 * Builds into a folder beside dist/, then swaps it in. `check: false` emits without type-checking
 * (tsc --noCheck, the same files): for a caller that type-checks everything itself, as `npm test` does.
 * @param {string} root
 * @param {{ check?: boolean }} [options]
 */
function build(root, { check = true } = {}) {
  removeAbandoned(root);
  const staging = join(root, `${STAGING}${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(staging);
  // Git (and the tests that list files with it) does not see a build in progress.
  writeFileSync(join(staging, '.gitignore'), '*\n');
  try {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', staging, ...(check ? [] : ['--noCheck'])], {
      stdio: ['ignore', 2, 2],
    });
    for (const [folder, pattern] of ASSETS) {
      mkdirSync(join(staging, folder), { recursive: true });
      for (const file of readdirSync(join(root, folder)).filter((f) => pattern.test(f))) {
        cpSync(join(root, folder, file), join(staging, folder, file));
      }
    }
    copySwaggerUi(staging);
    // The command's entry is run by name (`npx adoption-kit` in the repository, or a bin link), so it must be
    // executable as npm would make it in an installed package.
    chmodSync(join(staging, 'bin', 'adoption-kit.js'), 0o755);
    unlinkSync(join(staging, '.gitignore'));
    install(staging, root);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Everything it says goes to stderr: `npm pack --json` runs it first (prepack), and its stdout must stay JSON.
 * @param {string[]} args
 */
function main(args) {
  const unknown = args.filter((a) => a !== '--if-stale' && a !== '--no-check');
  if (unknown.length > 0) {
    process.stderr.write(`unknown option ${unknown[0]}\nUsage: node scripts/build.mjs [--if-stale] [--no-check]\n`);
    return 2;
  }
  if (args.includes('--if-stale')) {
    const reason = staleness(ROOT);
    if (reason === undefined) return 0;
    process.stderr.write(`building dist/: ${reason}\n`);
  }
  try {
    build(ROOT, { check: !args.includes('--no-check') });
  } catch (error) {
    process.stderr.write(`the build failed: ${/** @type {Error} */ (error).message}\n`);
    return 1;
  }
  process.stderr.write(`built ${join(ROOT, 'dist')}\n`);
  return 0;
}

// Run as a command, not imported (Node names this module by its real path; argv[1] may pass through a symlink).
const invoked = process.argv[1];
if (invoked !== undefined && existsSync(invoked) && import.meta.url === pathToFileURL(realpathSync(invoked)).href)
  process.exitCode = main(process.argv.slice(2));
