// Where a real k6 is: K6_BIN, else k6 on PATH; null when there is none (the tests that need one are
// then skipped, never passed). A K6_BIN that is not an executable is a mistake, not a skip.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findK6(): string | null {
  const explicit = process.env.K6_BIN;
  if (explicit) {
    accessSync(explicit, constants.X_OK);
    return explicit;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'k6');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
