// The report's words for the build, and ensureBuilt on this checkout (whose staleness rules
// scripts/build.test.ts tests where they are written, in scripts/build.mjs).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sourceFiles } from '../scripts/build.mjs';
import { buildNote, ensureBuilt } from './dist-build.ts';

const cases: Array<[string, string, string]> = [
  ['nothing printed: up to date', '', 'compiled (dist/server/cli.js, up to date with the sources)'],
  [
    'a rebuild, with its reason',
    'building dist/: dist/ is older than server/cli.ts\nbuilt /x/dist\n',
    'compiled (dist/server/cli.js, rebuilt before the run: dist/ is older than server/cli.ts)',
  ],
  [
    'tsc output around it',
    'noise\nbuilding dist/: dist/server/cli.js is missing\nmore\n',
    'compiled (dist/server/cli.js, rebuilt before the run: dist/server/cli.js is missing)',
  ],
];
for (const [name, printed, expected] of cases) test(`buildNote: ${name}`, () => assert.is(buildNote(printed), expected));

test('ensureBuilt leaves dist/ newer than every source, and logs a rebuild only when it made one', async () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const logged: string[] = [];
  const note = await ensureBuilt((line) => logged.push(line));
  const built = statSync(join(root, 'dist/server/cli.js')).mtimeMs;
  const newer = sourceFiles(root).filter((f) => f.mtimeMs > built);
  assert.equal(newer, [], 'no source is newer than the build');
  assert.is(logged.length, note.includes('rebuilt') ? 1 : 0, `${note}; logged: ${logged.join(' | ')}`);
});

test.run();
