// How a test runs one of the project's TypeScript entries (server/cli.ts, bin/adoption-kit.ts, ...)
// in a process of its own, or a module in a worker thread: through what the test runner bundled of it
// (scripts/test-bundle.ts), which starts on about half the CPU, or through tsx where there is none (a
// test file run alone, a module the runner does not bundle). Either way an entry sees itself run as
// the source: its process.argv[1] is the .ts file, and what it forks runs the source through tsx.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** tsx as this module finds it: a process started in another folder (a temporary one) finds it too. */
const TSX = import.meta.resolve('tsx');
const TSX_API = import.meta.resolve('tsx/esm/api');

/** Where the runner tells a test file its bundles are. */
export const BUNDLES_ENV = 'ADOPTION_KIT_TEST_BUNDLES';

/** The launcher of an entry (relative to the repository) within the bundles' folder. */
export const launcherOf = (entry: string): string => entry.replace(/\.ts$/, '.entry.mjs');

/** The bundle of a module (relative to the repository) within the bundles' folder. */
export const bundleOf = (module: string): string => module.replace(/\.ts$/, '.mjs');

/** The runner's file for `script` (relative to the repository or absolute), when it made one. */
function made(script: string, name: (entry: string) => string): string | undefined {
  const dir = process.env[BUNDLES_ENV];
  const entry = isAbsolute(script) ? relative(ROOT, script) : script;
  if (!dir || entry.startsWith('..')) return undefined;
  const path = join(dir, name(entry));
  return existsSync(path) ? path : undefined;
}

/**
 * node's arguments that run `script` (relative to the repository, as from its root, or absolute);
 * `flags` (node's own, as a preload `--import`) go before the script, its own arguments after these.
 */
export function sourceArgs(script: string, flags: readonly string[] = []): string[] {
  const launcher = made(script, launcherOf);
  return launcher ? ['--enable-source-maps', ...flags, launcher] : ['--import', TSX, ...flags, script];
}

/**
 * What eval'd worker code awaits to load `module` (a file URL of the repository's TypeScript): its
 * bundle, or the module through tsx registered first (Node 20 does not hand a worker the parent's
 * module hooks). An expression, as in `const { serve } = ${threadImport(url)};` inside an async function.
 */
export function threadImport(module: URL): string {
  const bundle = made(fileURLToPath(module), bundleOf);
  if (bundle) return `(await import(${JSON.stringify(pathToFileURL(bundle).href)}))`;
  return `((await import(${JSON.stringify(TSX_API)})).register(), await import(${JSON.stringify(module.href)}))`;
}
