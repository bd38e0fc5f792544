// The journal beside the file store's snapshot: replay after a crash, a torn last line, damage,
// and folding into the snapshot while creates go on.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CorruptDatabaseError } from './durable-json-file.ts';
import { LowPetStore, readFileStore } from './pet-store.ts';
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

test('a last line cut short by a crash was never acknowledged: it is dropped, the rest kept', async () => {
  const path = store(2, `${line(2)}{"id":3,"name":"Half`);
  const opened = await LowPetStore.open({ type: 'file', path }, []);
  assert.equal(
    (await opened.list({ limit: 10 })).pets.map((p) => p.id),
    [1, 2],
  );
  assert.is((await opened.create({ name: 'Next', categoryId: 1, status: 'sold' })).id, 3);
  await opened.close();
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
