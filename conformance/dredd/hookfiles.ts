// `--hookfiles <glob>` as Dredd reads it: each pattern (a path or a glob, relative to the working
// directory) must name at least one file, or the run is refused before it starts, in Dredd's words.
// Dredd itself loads them with the kit's own hooks, all in the alphabetical order of their names.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type ResolvePaths = (cwd: string, patterns: string[]) => string[];

/** Dredd's own resolver, when Dredd is installed (without it the Dredd run says how to get it). */
function dreddResolver(): ResolvePaths | undefined {
  try {
    return (require('dredd/build/resolvePaths') as { default: ResolvePaths }).default;
  } catch {
    return undefined;
  }
}

/** Why the patterns cannot be handed to Dredd: one that names no file. */
export function hookfilesProblem(patterns: readonly string[], cwd: string = process.cwd()): string | undefined {
  if (patterns.length === 0) return undefined;
  const resolvePaths = dreddResolver();
  if (!resolvePaths) return undefined;
  for (const pattern of patterns) {
    try {
      resolvePaths(cwd, [pattern]);
    } catch (error) {
      return `--hookfiles: ${(error as Error).message}`;
    }
  }
  return undefined;
}
