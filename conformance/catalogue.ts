// The catalogue of checks as the rest of the kit reads it: built from the areas of checks/ (where
// what a check is, CheckDef, is defined), and how --checks and --exclude-checks select from it.
import type { CheckDef } from '../judge/check-def.ts';
import { CATALOGUE } from './checks/index.ts';

export { CATALOGUE };
export { NEED_FLAGS, type CheckDef, type Level, type Need, type Profile } from '../judge/check-def.ts';

/**
 * Whether a check id is in a run given --checks and --exclude-checks: each pattern is an id, or a
 * prefix ending in `*` (`input.*`). A pattern that names no check is a mistake the caller reports.
 */
export function checkSelector(
  catalogue: readonly CheckDef[],
  include: readonly string[] = [],
  exclude: readonly string[] = [],
): { selected: (id: string) => boolean; unknown: string[] } {
  const matches = (pattern: string, id: string) => (pattern.endsWith('*') ? id.startsWith(pattern.slice(0, -1)) : id === pattern);
  const unknown = [...include, ...exclude].filter((p) => !catalogue.some((c) => matches(p, c.id)));
  return {
    selected: (id) => (include.length === 0 || include.some((p) => matches(p, id))) && !exclude.some((p) => matches(p, id)),
    unknown,
  };
}

/** `--checks` and `--exclude-checks`: every id or prefix names at least one check of the catalogue. */
export function checkIdsProblem(flag: string, ids: readonly string[] = []): string | undefined {
  const { unknown } = checkSelector(CATALOGUE, ids);
  return unknown.length > 0 ? `--${flag}: ${unknown.join(', ')} names no check (see --list-checks)` : undefined;
}
