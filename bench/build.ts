// The reference server is measured compiled, as `npm start` runs it. Before a run, dist/ is
// compared with the sources it is built from; when it is missing or older, it is rebuilt first and
// the report says so.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd } from './proc.ts';

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
  const build = await runToEnd(process.execPath, [join(root, 'scripts/build.mjs')], { timeoutMs: 300_000, cwd: root });
  if (build.code !== 0) throw new Error(`npm run build failed:\n${build.output.slice(-2000)}`);
  return `compiled (${BUILT_MARKER}, rebuilt before the run: ${reason})`;
}
