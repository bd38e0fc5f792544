// The journal beside the file store's snapshot: replay after a crash, a last line without its
// newline (kept when whole, else cut off into a side file, logged either way), damage, and folding
// into the snapshot while creates go on. The kill -9 proof of the same is journal-recovery.test.ts.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import { CorruptDatabaseError } from './durable-json-file.ts';
import { readFileStore } from './database-file.ts';
import { LowPetStore } from './low-pet-store.ts';
import type { Pet } from '../types.ts';

const seed: Pet[] = [{ id: 1, name: 'A', categoryId: 1, status: 'available' }];
const line = (id: number) => `${JSON.stringify({ id, name: `P${id}`, categoryId: 1, status: 'sold' })}\n`;

function store(snapshotNextId = 2, journal = '') {
  const path = join(mkdtempSync(join(tmpdir(), 'journal-')), 'db.json');
  writeFileSync(path, JSON.stringify({ nextId: snapshotNextId, pets: seed }));
  writeFileSync(`${path}.journal`, journal);
  return path;
}

test('a restart replays the journal, folds it into the snapshot and empties it', async () => {
  const path = store(2, line(2) + line(3));
  const opened = await LowPetStore.open({ type: 'file', path }, []);
  assert.is(await opened.count(), 3);
  assert.is((await opened.create({ name: 'Next', categoryId: 1, status: 'sold' })).id, 4);
  await opened.close();
  assert.equal(
    JSON.parse(readFileSync(path, 'utf8')).pets.map((p: Pet) => p.id),
    [1, 2, 3, 4],
  );
});

interface TailCase {
  /** What the journal holds after its last whole line (pet 2's). */
  tail: string | Buffer;
  /** Ids served after the start. */
  served: number[];
  /** The id the next create gets. */
  next: number;
  /** The log line, matched. */
  logged: RegExp;
  /** Whether the tail was cut off into a side file (else kept in the journal). */
  cut: boolean;
}

const garbage = Buffer.alloc(1024 * 1024, 'x');
const tails: Array<[string, TailCase]> = [
  [
    "a whole pet without its newline (the disk lost the line's last byte): kept, the newline added",
    {
      tail: line(3).slice(0, -1),
      served: [1, 2, 3],
      next: 4,
      logged: /^warn: The journal \S+ ended in pet 3's whole line without its newline \(51 bytes, left by a crash\); the pet was kept and the newline added\.$/,
      cut: false,
    },
  ],
  [
    'a line cut short: cut off into a side file, and its id never given again',
    {
      tail: '{"id":3,"name":"Half',
      served: [1, 2],
      next: 4,
      logged:
        /^warn: The journal \S+ ended in 20 bytes without a newline \(left by a crash\) that do not parse as a pet: the start of pet 3's line, cut short\. They were cut from the journal and kept in \S+\.journal\.torn-2026-01-01T000000\.000Z\. Id 3 will not be given again\.$/,
      cut: true,
    },
  ],
  [
    'a megabyte of garbage: cut off into a side file, whole',
    {
      tail: garbage,
      served: [1, 2],
      next: 3,
      logged:
        /^warn: .* ended in 1048576 bytes without a newline \(left by a crash\) that do not parse as a pet\. They were cut from the journal and kept in \S+\.torn-\S+\.$/,
      cut: true,
    },
  ],
  [
    'a whole pet whose id goes back: not a line the journal could hold, so cut off',
    {
      tail: line(2).slice(0, -1),
      served: [1, 2],
      next: 3,
      logged: /that parse as pet 2, which repeats or goes back to id 2 in the journal\. They were cut from the journal and kept in \S+\.torn-\S+\.$/,
      cut: true,
    },
  ],
  [
    'a whole pet past the last id: not a pet, so cut off, and its id not counted',
    {
      tail: line(2 ** 53).slice(0, -1),
      served: [1, 2],
      next: 3,
      logged: /that do not parse as a pet\. They were cut from the journal and kept in \S+\.torn-\S+\.$/,
      cut: true,
    },
  ],
];
for (const [name, { tail, served, next, logged, cut }] of tails) {
  test(`a start that finds a last line without its newline says so: ${name}`, async () => {
    const path = store(2, line(2));
    appendFileSync(`${path}.journal`, tail);
    const before = readFileSync(`${path}.journal`);
    const log: string[] = [];
    const opened = await LowPetStore.open({ type: 'file', path }, [], {
      clock: new ManualClock(),
      log: (level, message) => void log.push(`${level}: ${message}`),
    });
    assert.equal(
      (await opened.list({ limit: 10 })).pets.map((p) => p.id),
      served,
    );
    assert.is(log.length, 1, log.join('\n'));
    assert.match(log[0]!, logged);
    const sideFiles = readdirSync(dirname(path)).filter((f) => f.includes('.torn-'));
    if (cut) {
      assert.equal(sideFiles, ['db.json.journal.torn-2026-01-01T000000.000Z']);
      const kept = readFileSync(join(dirname(path), sideFiles[0]!));
      assert.ok(Buffer.concat([Buffer.from(line(2)), kept]).equals(before), 'the journal as found is the lines kept plus the side file');
    } else {
      assert.equal(sideFiles, []);
    }
    assert.is((await opened.create({ name: 'Next', categoryId: 1, status: 'sold' })).id, next);
    await opened.close();
    const again = await LowPetStore.open({ type: 'file', path }, []);
    assert.equal(
      (await again.list({ limit: 10 })).pets.map((p) => p.id),
      [...served, next],
    );
    await again.close();
  });
}

test('two starts that cut a tail in the same millisecond keep both, in two side files', async () => {
  const path = store(2, `${line(2)}{"id":3,"na`);
  const clock = new ManualClock();
  await (await LowPetStore.open({ type: 'file', path }, [], { clock })).close();
  appendFileSync(`${path}.journal`, '{"id":9,"na');
  await (await LowPetStore.open({ type: 'file', path }, [], { clock })).close();
  const dir = dirname(path);
  assert.equal(
    readdirSync(dir)
      .filter((f) => f.includes('.torn-'))
      .sort(),
    ['db.json.journal.torn-2026-01-01T000000.000Z', 'db.json.journal.torn-2026-01-01T000000.000Z.2'],
  );
  assert.is(readFileSync(join(dir, 'db.json.journal.torn-2026-01-01T000000.000Z.2'), 'utf8'), '{"id":9,"na');
});

test('readFileStore serves what a restart would: a whole last pet without its newline, not a torn one', () => {
  assert.equal(
    readFileStore(store(2, line(2) + line(3).slice(0, -1))).map((p) => p.id),
    [1, 2, 3],
  );
  assert.equal(
    readFileStore(store(2, `${line(2)}{"id":3,"na`)).map((p) => p.id),
    [1, 2],
  );
});

test('lines the snapshot already holds (a crash between a fold and its truncation) are skipped', async () => {
  const path = store(4, line(2) + line(3) + line(4));
  const opened = await LowPetStore.open({ type: 'file', path }, []);
  assert.equal(
    (await opened.list({ limit: 10 })).pets.map((p) => p.id),
    [1, 4],
  );
  await opened.close();
});

for (const [name, journal] of [
  ['a damaged line in the middle', `${line(2)}garbage\n${line(3)}`],
  ['ids going back', line(3) + line(2)],
]) {
  test(`${name} is refused as corrupt, and nothing is written`, async () => {
    const path = store(2, journal);
    const before = readFileSync(`${path}.journal`, 'utf8');
    try {
      await LowPetStore.open({ type: 'file', path }, []);
      assert.unreachable();
    } catch (error) {
      assert.instance(error, CorruptDatabaseError);
    }
    assert.is(readFileSync(`${path}.journal`, 'utf8'), before);
  });
}

test('folding while creates go on loses and duplicates nothing', async () => {
  const path = store();
  const opened = await LowPetStore.open({ type: 'file', path }, []);
  // 30,000 creates push the journal past its fold size at least once while others are in flight.
  const ids: number[] = [];
  for (let batch = 0; batch < 30; batch++) {
    const created = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => opened.create({ name: `N${batch}-${i}-${'x'.repeat(40)}`, categoryId: 1, status: 'pending' })),
    );
    ids.push(...created.map((p) => p.id));
  }
  const durable = readFileStore(path).map((p) => p.id);
  assert.is(new Set(durable).size, durable.length, 'no id twice');
  const stored = new Set(durable);
  assert.ok(
    ids.every((id) => stored.has(id)),
    'every acknowledged create is durable',
  );
  assert.is(durable.length, 30_001);
  assert.ok(JSON.parse(readFileSync(path, 'utf8')).pets.length > 1, 'the snapshot was folded during the run');
  await opened.close();
  assert.is(readFileStore(path).length, 30_001);
});

test.run();
