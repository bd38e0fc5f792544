import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { staleReason } from './dist-build.ts';

const sources = [
  { path: 'server/server.ts', mtimeMs: 1000 },
  { path: 'spec/openapi.yaml', mtimeMs: 3000 },
  { path: 'lib/errors.ts', mtimeMs: 2000 },
];
const cases: Array<[string, number | undefined, string | undefined]> = [
  ['dist/ newer than every source', 5000, undefined],
  ['built in the same millisecond as the newest source', 3000, undefined],
  ['a source changed after the build: named', 2500, 'dist/ is older than spec/openapi.yaml'],
  ['never built', undefined, 'dist/server/cli.js is missing'],
];
for (const [name, built, expected] of cases) {
  test(`staleReason: ${name}`, () => assert.is(staleReason(built, sources), expected));
}

test.run();
