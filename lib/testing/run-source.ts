// How a test runs one of the project's TypeScript entries (server/cli.ts, bin/adoption-kit.ts, ...)
// in a process of its own: through the launcher the test runner bundled for it (scripts/test-bundle.ts),
// which starts on about half the CPU, or through tsx where there is none (a test file run alone, an
// entry the runner does not bundle). Either way the entry sees itself run as the source: its
// process.argv[1] is the .ts file, and what it forks runs the source through tsx.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** tsx as this module finds it: a process started in another folder (a temporary one) finds it too. */
const TSX = import.meta.resolve('tsx');

/** Where the runner tells a test file its bundles are. */
export const BUNDLES_ENV = 'ADOPTION_KIT_TEST_BUNDLES';

/** The launcher of an entry (relative to the repository) within the bundles' folder. */
export const launcherOf = (entry: string): string => entry.replace(/\.ts$/, '.entry.mjs');

/**
 * node's arguments that run `script` (relative to the repository, as from its root, or absolute);
 * `flags` (node's own, as a preload `--import`) go before the script, its own arguments after these.
 */
export function sourceArgs(script: string, flags: readonly string[] = []): string[] {
  const dir = process.env[BUNDLES_ENV];
  const entry = isAbsolute(script) ? relative(ROOT, script) : script;
  if (dir && !entry.startsWith('..')) {
    const launcher = join(dir, launcherOf(entry));
    if (existsSync(launcher)) return ['--enable-source-maps', ...flags, launcher];
  }
  return ['--import', TSX, ...flags, script];
}
