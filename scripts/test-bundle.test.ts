// The runner's bundles behave as the sources do under tsx: each module's import.meta.url is its own
// source file's, text that mentions import.meta.url is left as written, and a failure's stack names
// the TypeScript file and line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_DIR, bundleTests, runFolder } from './test-bundle.ts';

const root = mkdtempSync(join(tmpdir(), 'test-bundle-'));
const write = (path: string, text: string) => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
};
write('lib/where.ts', `export const where: string = import.meta.url;\nexport const text = 'const u = import.meta.url;';\n`);
write('lib/fail.ts', `export function fail(): never {\n  throw new Error('failed here');\n}\n`);
write(
  'part/a.test.ts',
  [
    `import { where, text } from '../lib/where.ts';`,
    `import { fail } from '../lib/fail.ts';`,
    `const own: string = import.meta.url;`,
    `console.log(JSON.stringify({ where, text, own }));`,
    `if (process.argv[2] === 'fail') fail();`,
  ].join('\n'),
);

const bundles = await bundleTests(root, join(root, 'bundles'), ['part/a.test.ts']);
const bundle = bundles.get('part/a.test.ts')!;
const run = (...args: string[]) => spawnSync(process.execPath, ['--enable-source-maps', bundle, ...args], { encoding: 'utf8', timeout: 60_000 });

test.after(() => rmSync(root, { recursive: true, force: true }));

test('each module of a bundle keeps its own source URL, and text mentioning import.meta.url is untouched', () => {
  assert.not.equal(bundle, join(root, 'part/a.test.ts'));
  const out = run();
  assert.is(out.status, 0, out.stderr);
  const seen = JSON.parse(out.stdout) as { where: string; text: string; own: string };
  assert.equal(seen, {
    where: pathToFileURL(join(root, 'lib/where.ts')).href,
    text: 'const u = import.meta.url;',
    own: pathToFileURL(join(root, 'part/a.test.ts')).href,
  });
});

test("a failure's stack names the TypeScript file and line it was thrown at", () => {
  const out = run('fail');
  assert.is.not(out.status, 0);
  assert.match(out.stderr, /failed here/);
  assert.match(out.stderr, /lib\/fail\.ts:2/);
});

test("a run's folder is its own: folders of runs still running stay, those of runs gone and older layouts go", () => {
  const base = join(root, BUNDLE_DIR);
  // A pid no process has (above the kernel's pid_max) and a pid that is running (this test's parent).
  for (const name of ['4194305', String(process.ppid), 'chunk-OLD.mjs', 'server']) mkdirSync(join(base, name), { recursive: true });
  const dir = runFolder(root);
  assert.is(dir, join(base, String(process.pid)));
  assert.equal(readdirSync(base).sort(), [String(process.ppid)]);
  assert.not.ok(existsSync(dir), 'made by the bundling, not before');
});

test.run();
