import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { idleCoresSampler, longestFirst, mayStart, readDurations, type AdmissionOptions } from './test-schedule.ts';

const order = suite('longestFirst');

order('recorded files run longest first, ties by name', () => {
  const sizes: Record<string, number> = { a: 1, b: 1, c: 1, d: 1 };
  assert.equal(
    longestFirst(['a', 'b', 'c', 'd'], { a: 10, b: 300, c: 10, d: 50 }, (n) => sizes[n]!),
    ['b', 'd', 'a', 'c'],
  );
});

order('a file with no record takes the duration of the recorded file closest in size', () => {
  const sizes: Record<string, number> = { small: 100, big: 9_000, fresh: 8_500 };
  assert.equal(
    longestFirst(['small', 'big', 'fresh'], { small: 500, big: 90_000 }, (n) => sizes[n]!),
    ['big', 'fresh', 'small'],
  );
});

order('with no record at all, the biggest file first', () => {
  const sizes: Record<string, number> = { x: 10, y: 30, z: 20 };
  assert.equal(
    longestFirst(['x', 'y', 'z'], {}, (n) => sizes[n]!),
    ['y', 'z', 'x'],
  );
});

order.run();

const admission = suite('mayStart');
const options: AdmissionOptions = { minLanes: 2, maxLanes: 4, idleCoresToAdmit: 0.75, settleMs: 2_000 };

const cases: Array<[string, { running: number; idleCores: number; msSinceLastStart: number }, boolean]> = [
  ['below the minimum: always, however busy the machine', { running: 1, idleCores: 0, msSinceLastStart: 0 }, true],
  ['at the minimum on a busy machine: no', { running: 2, idleCores: 0.2, msSinceLastStart: 10_000 }, false],
  ['at the minimum with a core idle: yes', { running: 2, idleCores: 1, msSinceLastStart: 10_000 }, true],
  ['a core idle, but the last file started a moment ago: not yet', { running: 2, idleCores: 1.5, msSinceLastStart: 500 }, false],
  ['at the maximum: never', { running: 4, idleCores: 2, msSinceLastStart: 10_000 }, false],
];
for (const [name, state, expected] of cases) admission(name, () => assert.is(mayStart(options, state), expected));

admission('a fixed count (TEST_CONCURRENCY) is both the minimum and the maximum', () => {
  const fixed = { ...options, minLanes: 3, maxLanes: 3 };
  assert.ok(mayStart(fixed, { running: 2, idleCores: 0, msSinceLastStart: 0 }));
  assert.not.ok(mayStart(fixed, { running: 3, idleCores: 2, msSinceLastStart: 60_000 }));
});

admission.run();

const machine = suite('idleCoresSampler and readDurations');

machine('idle cores between two looks at /proc/stat; nothing from the first look or an unreadable one', () => {
  // user nice system idle iowait irq softirq steal, for the machine, then each of two cpus.
  const stats = ['cpu 100 0 100 800 0 0 0 0\ncpu0 1\ncpu1 1\n', 'cpu 250 0 150 1000 0 0 0 0\ncpu0 1\ncpu1 1\n', 'garbage'];
  let at = 0;
  const idle = idleCoresSampler(() => stats[at++]!);
  assert.is(idle(), undefined);
  // 400 ticks passed, 200 of them idle: half of two cpus.
  assert.is(idle(), 1);
  assert.is(idle(), undefined);
});

machine('a record missing, unreadable or holding other than durations counts for nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'test-times-'));
  try {
    assert.equal(readDurations(join(dir, 'none.json')), {});
    writeFileSync(join(dir, 'bad.json'), '{');
    assert.equal(readDurations(join(dir, 'bad.json')), {});
    writeFileSync(join(dir, 'mixed.json'), JSON.stringify({ 'a.test.ts': 1200, 'b.test.ts': 'slow', 'c.test.ts': -1 }));
    assert.equal(readDurations(join(dir, 'mixed.json')), { 'a.test.ts': 1200 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

machine.run();
