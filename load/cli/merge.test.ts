// load-merge's exit codes keep their meaning when the merge itself fails: 3 (KIT_FAILED), never Node's 1, which is
// the merged run's FAIL. A summary that names its script and segment but lacks what the merge reads
// made it throw a TypeError and exit 1; a rejection nobody handles exits 3 too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import { KIT_FAILED } from '../../lib/kit-failure.ts';
import * as assert from 'uvu/assert';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'load-merge-cli-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function merge(files: string[], preload?: string) {
  const args = ['--import', 'tsx', ...(preload ? ['--import', `data:text/javascript,${encodeURIComponent(preload)}`] : []), 'load/cli/merge.ts', ...files];
  return spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
}

const halves = ['0:1/2', '1/2:1'].map((segment, i) => {
  const file = join(dir, `half-${i}.json`);
  const [from, to] = i === 0 ? [0, 0.5] : [0.5, 1];
  writeFileSync(file, JSON.stringify({ script: 'capacity', extra: { segment: { segment, share: 0.5, from, to } }, k6: null }));
  return file;
});

test('a merge that throws on summaries it cannot read exits 3 with one message, not 1 (FAIL)', () => {
  const r = merge(halves);
  assert.is(r.status, KIT_FAILED, r.stderr);
  assert.match(r.stderr, /load-merge: the kit failed \(an internal error, no verdict on what it judges/);
});

test('an unhandled rejection in the merge exits 3, not 1', () => {
  const r = merge(['--help'], `setTimeout(() => { Promise.reject(new Error('planted crash')); }, 1000);`);
  assert.is(r.status, KIT_FAILED, r.stderr);
  assert.match(r.stderr, /planted crash/);
});

test.run();
