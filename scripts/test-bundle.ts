// The test files as the runner starts them: each bundled, once per run, with the project's modules
// it imports (packages stay in node_modules), so that its process loads plain JavaScript. Through
// tsx, every module a file's process loads (hapi's as well) passes tsx's module hooks on a second
// thread: about 1.2 s of CPU for a file that builds a server, 0.35 s for one that imports nothing.
// Each module keeps its own import.meta.url (its source file's), so a path read from it, a worker it
// starts and a file it reads are the same as when tsx runs it; a test's stack trace points at the
// TypeScript through the bundle's source map. One difference: a module loaded by a URL computed at
// run time (`import(url)`, as k6-run.ts loads a k6 script) is node's own instance, not the bundle's
// copy, so it shares no module state with what the test imported. A file run alone
// (`node --import tsx x.test.ts`) is unchanged, and TEST_TSX=1 makes the runner use tsx again.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, transform, type Plugin } from 'esbuild';
import { bundleOf, launcherOf } from '../lib/testing/run-source.ts';

/**
 * The entries tests start in processes of their own (lib/testing/run-source.ts): each is bundled too,
 * with a launcher that runs it as `node --import tsx <entry>` would.
 */
export const ENTRIES = ['server/cli.ts', 'bin/adoption-kit.ts', 'proxy/cli.ts', 'conformance/cli.ts', 'load/cli/merge.ts', 'bench/cli.ts'];

/** The modules tests load in worker threads (lib/testing/run-source.ts threadImport): bundled too. */
export const THREADS = ['conformance/testing/library-server/clocked-thread.ts', 'load/testing/worker-target-thread.ts', 'server/index.ts'];

/** Where the bundles go: under node_modules, so that their imports of packages resolve as the sources' do. */
export const BUNDLE_DIR = 'node_modules/.cache/adoption-kit-tests';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One run's folder under BUNDLE_DIR, named by the runner's pid (two runs in one checkout keep apart)
 * and removed when the runner exits; what runs that no longer run left there is removed first.
 */
export function runFolder(root: string): string {
  const base = join(root, BUNDLE_DIR);
  for (const name of existsSync(base) ? readdirSync(base) : []) {
    if (!/^\d+$/.test(name) || !alive(Number(name))) rmSync(join(base, name), { recursive: true, force: true });
  }
  const dir = join(base, String(process.pid));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A module's `import.meta.url` as its source file's URL, as an expression (not text: a string that mentions it is left alone). */
function ownUrl(): Plugin {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(ts|js|mjs)$/ }, async ({ path }) => {
        if (path.includes('/node_modules/')) return undefined;
        const source = await readFile(path, 'utf8');
        const { code } = await transform(source, {
          loader: path.endsWith('.ts') ? 'ts' : 'js',
          define: { 'import.meta.url': JSON.stringify(pathToFileURL(path).href) },
          sourcemap: 'inline',
          sourcefile: path,
          target: 'node20',
        });
        return { contents: code, loader: 'js' };
      });
    },
  };
}

/** What a launcher says: the entry's process looks as it does under tsx, then the bundle runs. */
function launcher(root: string, entry: string): string {
  return [
    `// ${entry} as \`node --import tsx ${entry}\` runs it (scripts/test-bundle.ts): its own path as the script run, and`,
    `// what it forks (cluster workers) runs the source through tsx.`,
    `process.argv[1] = ${JSON.stringify(join(root, entry))};`,
    `process.execArgv.push('--import', import.meta.resolve('tsx'));`,
    `await import(${JSON.stringify(`./${basename(entry).replace(/\.ts$/, '.mjs')}`)});`,
    '',
  ].join('\n');
}

/**
 * Bundles `files` (test files, relative to `root`), `entries` and `threads` into `outdir`, with a
 * launcher for each entry; returns each test file's bundle, by the file's relative path.
 */
export async function bundleTests(
  root: string,
  outdir: string,
  files: readonly string[],
  more: { entries?: readonly string[]; threads?: readonly string[] } = {},
): Promise<Map<string, string>> {
  const entries = more.entries ?? [];
  await build({
    absWorkingDir: root,
    entryPoints: [...files, ...entries, ...(more.threads ?? [])].map((f) => join(root, f)),
    outbase: root,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    plugins: [ownUrl()],
    logLevel: 'silent',
  });
  await Promise.all(entries.map((entry) => writeFile(join(outdir, launcherOf(entry)), launcher(root, entry))));
  return new Map(files.map((f) => [f, join(outdir, bundleOf(f))]));
}
