// Whether dist/ is as new as the sources it is built from, and a rebuild when it is not: the
// benchmark measures the compiled server as `npm start` runs it, and tests that run the compiled
// proxy must not run yesterday's build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What scripts/build.mjs compiles or copies into dist/. */
const SOURCE_DIRS = ['bin', 'lib', 'server', 'conformance', 'proxy', 'spec', 'fixtures'];
/** Folders under those that runs write into (git-ignored), never sources. */
const GENERATED = new Set(['reports', 'node_modules']);
export const BUILT_MARKER = 'dist/server/cli.js';

export interface SourceFile {
  path: string;
  mtimeMs: number;
}

/** Why dist/ must be rebuilt, or undefined when it is newer than every source. */
export function staleReason(builtMtimeMs: number | undefined, sources: readonly SourceFile[]): string | undefined {
  if (builtMtimeMs === undefined) return `${BUILT_MARKER} is missing`;
  const newest = sources.reduce<SourceFile | undefined>((a, b) => (a === undefined || b.mtimeMs > a.mtimeMs ? b : a), undefined);
  if (newest && newest.mtimeMs > builtMtimeMs) return `dist/ is older than ${newest.path}`;
  return undefined;
}

function sourceFiles(root: string): SourceFile[] {
  const found: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!GENERATED.has(entry.name)) walk(path);
      } else if (!entry.name.endsWith('.test.ts') && !entry.name.endsWith('.md')) found.push({ path: relative(root, path), mtimeMs: statSync(path).mtimeMs });
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir));
  return found;
}

/** Rebuilds dist/ when it is stale; resolves with what the report says about the build. */
export async function ensureBuilt(log: (line: string) => void, root = ROOT): Promise<string> {
  const marker = join(root, BUILT_MARKER);
  const reason = staleReason(existsSync(marker) ? statSync(marker).mtimeMs : undefined, sourceFiles(root));
  if (!reason) return `compiled (${BUILT_MARKER}, up to date with the sources)`;
  log(`building dist/ first: ${reason}`);
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`npm run build failed:\n${`${stdout}${stderr}`.slice(-2000)}`)) : resolve(),
    ),
  );
  return `compiled (${BUILT_MARKER}, rebuilt before the run: ${reason})`;
}
