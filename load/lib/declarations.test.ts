// The TypeScript tests import the lib's JavaScript through the declaration files beside it,
// generated from the JSDoc types by tsc (spec/rules needs none: the root tsconfig reads its JSDoc). This test regenerates them and fails when a committed
// one is stale, so the tests can never type-check against an API the JavaScript no longer has.
// Regenerate with: node --import tsx load/lib/declarations.test.ts --write
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));
const libDir = fileURLToPath(new URL('.', import.meta.url));

test('every load/lib/*.js has a current declaration file beside it', () => {
  const out = mkdtempSync(join(tmpdir(), 'load-dts-'));
  try {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const run = spawnSync(
      process.execPath,
      [tsc, '-p', 'load/tsconfig.json', '--noEmit', 'false', '--declaration', '--emitDeclarationOnly', '--outDir', out],
      { cwd: root, encoding: 'utf8' },
    );
    assert.is(run.status, 0, run.stdout + run.stderr);
    const sources = readdirSync(libDir).filter((f) => f.endsWith('.js'));
    assert.ok(sources.length >= 6, sources.join(', '));
    // load/tsconfig.json also reads ../spec/rules, so the output mirrors the repository from its root.
    const emitted = join(out, 'load', 'lib');
    const stale: string[] = [];
    for (const js of sources) {
      const dts = js.replace(/\.js$/, '.d.ts');
      const fresh = readFileSync(join(emitted, dts), 'utf8');
      let committed = '';
      try {
        committed = readFileSync(join(libDir, dts), 'utf8');
      } catch {
        // missing counts as stale
      }
      if (committed !== fresh) {
        if (process.argv.includes('--write')) copyFileSync(join(emitted, dts), join(libDir, dts));
        else stale.push(dts);
      }
    }
    assert.equal(stale, [], `stale declarations; run: node --import tsx load/lib/declarations.test.ts --write`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test.run();
