import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { durationsOf, expectedCores, idleCoresSampler, longestFirst, mayStart, readRecord, type AdmissionOptions } from './test-schedule.ts';

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
const options: AdmissionOptions = { minLanes: 2, maxLanes: 6, maxCores: 4, idleCoresToAdmit: 0.75, settleMs: 2_000 };

type State = Parameters<typeof mayStart>[1];
const at = (state: Partial<State>): State => ({ running: 2, cores: 2, nextCores: 1, idleCores: 1, msSinceLastStart: 10_000, ...state });
const cases: Array<[string, State, boolean]> = [
  ['below the minimum: always, however busy the machine', at({ running: 1, cores: 1, idleCores: 0, msSinceLastStart: 0 }), true],
  ['at the minimum on a busy machine: no', at({ idleCores: 0.2 }), false],
  ['at the minimum with a core idle: yes', at({}), true],
  ['a core idle, but the last file started a moment ago: not yet', at({ idleCores: 1.5, msSinceLastStart: 500 }), false],
  ['at the most files: never', at({ running: 6, cores: 0.6, idleCores: 2 }), false],
  ['four whole cores expected busy: no fifth file', at({ running: 4, cores: 4, idleCores: 2 }), false],
  ['four files that mostly wait, cores idle: a fifth', at({ running: 4, cores: 0.8, idleCores: 1.5 }), true],
  ['a file that would take the expected load past the most cores: not yet', at({ running: 3, cores: 3.5, idleCores: 1 }), false],
  ['the same with a file that mostly waits: yes', at({ running: 3, cores: 3.5, nextCores: 0.2, idleCores: 1 }), true],
  ['the expected load low but the machine busy (other work): no', at({ running: 3, cores: 0.3, idleCores: 0.1 }), false],
];
for (const [name, state, expected] of cases) admission(name, () => assert.is(mayStart(options, state), expected));

admission('a fixed count (TEST_CONCURRENCY) is both the minimum and the maximum', () => {
  const fixed = { ...options, minLanes: 3, maxLanes: 3, maxCores: 3 };
  assert.ok(mayStart(fixed, at({ running: 2, cores: 2, idleCores: 0, msSinceLastStart: 0 })));
  assert.not.ok(mayStart(fixed, at({ running: 3, cores: 0.3, idleCores: 2, msSinceLastStart: 60_000 })));
});

admission('a file is expected to keep busy the cores its record says, within a tenth and one', () => {
  assert.is(expectedCores({ ms: 100_000, cpuMs: 7_000 }), 0.1);
  assert.is(expectedCores({ ms: 100_000, cpuMs: 40_000 }), 0.4);
  assert.is(expectedCores({ ms: 40_000, cpuMs: 50_000 }), 1);
  assert.is(expectedCores({ ms: 100_000, cpuMs: 1_000 }), 0.1);
  assert.is(expectedCores({ ms: 100_000 }), 1, 'no CPU on record: a whole core');
  assert.is(expectedCores(undefined), 1, 'no record: a whole core');
});

admission.run();

const machine = suite('idleCoresSampler and readRecord');

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

machine('a record missing, unreadable or holding other than times counts for nothing; older bare numbers are wall times', () => {
  const dir = mkdtempSync(join(tmpdir(), 'test-times-'));
  try {
    assert.equal(readRecord(join(dir, 'none.json')), {});
    writeFileSync(join(dir, 'bad.json'), '{');
    assert.equal(readRecord(join(dir, 'bad.json')), {});
    writeFileSync(
      join(dir, 'mixed.json'),
      JSON.stringify({
        'a.test.ts': 1200,
        'b.test.ts': 'slow',
        'c.test.ts': -1,
        'd.test.ts': { ms: 5000, cpuMs: 2500 },
        'e.test.ts': { ms: 800, cpuMs: 'lots' },
        'f.test.ts': { cpuMs: 10 },
      }),
    );
    const record = readRecord(join(dir, 'mixed.json'));
    assert.equal(record, { 'a.test.ts': { ms: 1200 }, 'd.test.ts': { ms: 5000, cpuMs: 2500 }, 'e.test.ts': { ms: 800 } });
    assert.equal(durationsOf(record), { 'a.test.ts': 1200, 'd.test.ts': 5000, 'e.test.ts': 800 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

machine.run();
