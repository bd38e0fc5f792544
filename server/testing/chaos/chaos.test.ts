// The chaos scenarios, one round each, on the real server: no acknowledged create is lost or
// duplicated, no id comes back, every 5xx carries an Error body, and each fault ends as the
// server guide says. They mount small tmpfs file systems, so they need root; under CI they run.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BOUND_BY_PERMISSIONS, isRoot, type Row } from './harness.ts';
import { diskFull, killUnderLoad, readOnly, twoProcesses } from './scenarios.ts';
import { assertNoLeaks } from './leaks.ts';

const root = isRoot();
if (!root && process.env.CI === 'true') throw new Error('server/testing/chaos/chaos.test.ts mounts tmpfs file systems: under CI it must run as root');
if (!root) process.stdout.write('SKIP: not root, so no tmpfs can be mounted for the chaos scenarios (run as root, as CI does)\n');
const check = root ? test : test.skip;

function assertNothingLost(row: Row): void {
  assert.ok(row.acknowledged > 0, 'some creates were acknowledged');
  assert.equal(
    { lost: row.lost, duplicated: row.duplicated, reusedIds: row.reusedIds, seenThenGone: row.seenThenGone, bare5xx: row.bare5xx },
    { lost: 0, duplicated: 0, reusedIds: 0, seenThenGone: 0, bare5xx: 0 },
  );
  for (const [name, ok] of Object.entries(row.checks)) assert.ok(ok, name);
}

check('a server bound by permission bits reads a checkout in a private folder of another user, and is refused a write by a read-only folder', () => {
  // What (b) needs, whatever the checkout's permissions: a clone in `mktemp -d` is such a private folder.
  // Its owner is neither root nor nobody, so neither running as nobody nor dropping every DAC capability would pass.
  const ANOTHER_USER = 4321;
  const dir = mkdtempSync(join(tmpdir(), 'chaos-bound-'));
  try {
    const source = join(dir, 'source.txt');
    writeFileSync(source, 'read');
    const readOnly = join(dir, 'read-only');
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o555);
    chownSync(source, ANOTHER_USER, ANOTHER_USER);
    chmodSync(dir, 0o700);
    chownSync(dir, ANOTHER_USER, ANOTHER_USER);
    const script = `const fs = require('node:fs');
let said = fs.readFileSync(${JSON.stringify(source)}, 'utf8');
try { fs.writeFileSync(${JSON.stringify(join(readOnly, 'snapshot'))}, ''); said += ' wrote'; } catch (e) { said += ' ' + e.code; }
process.stdout.write(said);`;
    const [command, ...prefix] = BOUND_BY_PERMISSIONS;
    assert.is(execFileSync(command, [...prefix, process.execPath, '-e', script], { encoding: 'utf8' }), 'read EACCES');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

check('(a) disk full: creates get 503 with Retry-After, /healthz 503, the stop exits 1, the restart loses nothing', async () => {
  const row = await diskFull();
  assertNothingLost(row);
  assert.ok(row.refused > 0, 'creates on the full disk were refused with 503');
  assert.equal(row.exits, ['TERM→1', 'restart TERM→0']);
});

check('(b) read-only folder: the stop exits 1 keeping the journal; a read-only disk refuses the start; the restart loses nothing', async () => {
  const row = await readOnly();
  assertNothingLost(row);
  assert.equal(row.exits, ['TERM→1', 'start on read-only→1', 'restart TERM→0']);
});

check("(c) a second process is refused naming the holder; a kill -9 holder's lock goes to exactly one of two starts", async () => {
  const row = await twoProcesses();
  assertNothingLost(row);
  assert.equal(row.exits.slice(0, 2), ['second→1', 'holder KILL→128']);
  assert.equal(row.exits.slice(2).sort(), ['racer→0', 'racer→1']);
});

check('(d) kill -9 under load: a reader is never shown a pet the restart lacks, and no id comes back', async () => {
  const row = await killUnderLoad();
  assertNothingLost(row);
  assert.equal(row.exits, ['KILL→128', 'restart TERM→0']);
});

check('no 5xx or /healthz body of these scenarios names an address, a user or a path', () => assertNoLeaks());

test.run();
