import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KitError } from '../../lib/errors.ts';
import { fixturePets } from '../fixtures.ts';
import type { Pet } from '../types.ts';
import { CorruptDatabaseError, DurableJsonFile } from './durable-json-file.ts';
import { readFileStore, type Database } from './database-file.ts';
import { LowPetStore } from './low-pet-store.ts';
import type { StorageOptions } from './pet-store.ts';

const seed: Pet[] = [
  { id: 1, name: 'A', categoryId: 1, status: 'available' },
  { id: 2, name: 'B', categoryId: 2, status: 'sold' },
  { id: 5, name: 'C', categoryId: 1, status: 'available' },
];
const tempDir = () => mkdtempSync(join(tmpdir(), 'pet-store-'));
const readDb = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Database;

// The contract both adapters honour.
const contract = suite('PetStore contract (memory and file)');
const storages: Array<[string, () => StorageOptions]> = [
  ['memory', () => ({ type: 'memory' })],
  ['file', () => ({ type: 'file', path: join(tempDir(), 'db.json') })],
];
for (const [kind, storage] of storages) {
  contract(`${kind}: seeds, lists in id order, filters, pages after an id`, async () => {
    const store = await LowPetStore.open(storage(), [...seed].reverse());
    assert.equal(
      (await store.list({ limit: 10 })).pets.map((p) => p.id),
      [1, 2, 5],
    );
    assert.equal(
      (await store.list({ limit: 10, status: 'available' })).pets.map((p) => p.id),
      [1, 5],
    );
    assert.equal(await store.list({ limit: 1, afterId: 1 }), { pets: [seed[1]], hasMore: true });
    assert.equal(await store.list({ limit: 1, afterId: 2 }), { pets: [seed[2]], hasMore: false });
    assert.equal(await store.list({ limit: 5, afterId: 5 }), { pets: [], hasMore: false });
    await store.close();
  });

  contract(`${kind}: ids come from the counter and are never reused, even across a reset`, async () => {
    const store = await LowPetStore.open(storage(), seed);
    const a = await store.create({ name: 'D', categoryId: 3, status: 'pending' });
    assert.is(a.id, 6);
    assert.equal(await store.get(6), a);
    await store.reset(seed);
    assert.is(await store.get(6), undefined);
    const b = await store.create({ name: 'E', categoryId: 3, status: 'pending' });
    assert.is(b.id, 7);
    assert.is(await store.count(), 4);
    await store.close();
  });
}

const file = suite('file store');

file('a new file is created and seeded; a restart reads it back with its counter', async () => {
  const path = join(tempDir(), 'nested', 'db.json');
  const first = await LowPetStore.open({ type: 'file', path }, fixturePets());
  assert.is(readDb(path).pets.length, 10);
  await first.create({ name: 'Mochi', categoryId: 2, status: 'available' });
  await first.close();

  const second = await LowPetStore.open({ type: 'file', path }, []);
  assert.is(await second.count(), 11);
  assert.equal(await second.get(11), { id: 11, name: 'Mochi', categoryId: 2, status: 'available' });
  assert.is((await second.create({ name: 'Next', categoryId: 1, status: 'sold' })).id, 12);
  assert.equal(
    readFileStore(path)
      .map((p) => p.id)
      .slice(-2),
    [11, 12],
    'the create is durable in the journal',
  );
  await second.close();
  assert.is(readDb(path).nextId, 13, 'closing folds the journal into the snapshot');
  assert.is(readFileSync(`${path}.journal`, 'utf8'), '');
});

file('every create is on disk when its promise resolves; concurrent creates share file writes', async () => {
  const path = join(tempDir(), 'db.json');
  const store = await LowPetStore.open({ type: 'file', path }, seed);
  const created = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      store.create({ name: `P${i}`, categoryId: 1, status: 'available' }).then((pet) => {
        // At the moment this create is acknowledged, the files already hold it.
        assert.ok(
          readFileStore(path).some((p) => p.id === pet.id),
          `pet ${pet.id} on disk when acknowledged`,
        );
        return pet;
      }),
    ),
  );
  assert.is(new Set(created.map((p) => p.id)).size, 200);
  assert.is(readFileStore(path).length, 203);
  assert.ok(readFileSync(`${path}.journal`, 'utf8').split('\n').length < 200 + 2, 'one line per create');
  await store.close();
  assert.equal(readDb(path).nextId, 206);
});

file('grouping: 200 concurrent creates take far fewer than 200 file writes', async () => {
  const path = join(tempDir(), 'db.json');
  const adapter = new DurableJsonFile<{ n: number }>(path);
  const data = { n: 0 };
  await Promise.all(
    Array.from({ length: 200 }, () => {
      data.n += 1;
      return adapter.write(data);
    }),
  );
  assert.is(JSON.parse(readFileSync(path, 'utf8')).n, 200);
  assert.ok(adapter.writesCompleted <= 2, `${adapter.writesCompleted} writes`);
});

file('a failed write is not acknowledged and its pet is not kept; later writes still work', async () => {
  const dir = tempDir();
  const path = join(dir, 'db.json');
  const store = await LowPetStore.open({ type: 'file', path }, seed);
  // An immutable journal (chattr +i, which even root cannot write): the next append fails.
  execFileSync('chattr', ['+i', `${path}.journal`]);
  let failed = false;
  try {
    await store.create({ name: 'Lost', categoryId: 1, status: 'available' }).catch(() => (failed = true));
  } finally {
    execFileSync('chattr', ['-i', `${path}.journal`]);
  }
  assert.ok(failed);
  assert.is(await store.count(), 3);
  assert.is(await store.get(6), undefined);
  const kept = await store.create({ name: 'Kept', categoryId: 1, status: 'available' });
  assert.is(kept.id, 7);
  assert.equal(
    readFileStore(path).map((p) => p.id),
    [1, 2, 5, 7],
  );
  await store.close();
});

const corrupt: Array<[string, string]> = [
  ['not JSON', '{"nextId": 3, "pets": ['],
  ['empty file', ''],
  ['a JSON array', '[]'],
  ['no pets array', '{"nextId": 3}'],
  ['pets not an array', '{"nextId": 3, "pets": {}}'],
  ['nextId missing', '{"pets": []}'],
  ['nextId not above every id', '{"nextId": 2, "pets": [{"id": 2, "name": "A", "categoryId": 1, "status": "sold"}]}'],
  [
    'ids out of order',
    '{"nextId": 9, "pets": [{"id": 2, "name": "A", "categoryId": 1, "status": "sold"}, {"id": 1, "name": "B", "categoryId": 1, "status": "sold"}]}',
  ],
  ['a pet without a name', '{"nextId": 9, "pets": [{"id": 2, "categoryId": 1, "status": "sold"}]}'],
];
for (const [name, text] of corrupt) {
  file(`a corrupt database is refused with a clear message and left untouched: ${name}`, async () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(path, text);
    try {
      await LowPetStore.open({ type: 'file', path }, seed);
      assert.unreachable('should refuse');
    } catch (error) {
      assert.instance(error, CorruptDatabaseError);
      assert.instance(error, KitError);
      assert.is((error as CorruptDatabaseError).code, 'corrupt_database');
      assert.ok((error as Error).message.includes(path));
      assert.match((error as Error).message, /left untouched/);
    }
    assert.is(readFileSync(path, 'utf8'), text);
  });
}

file('an unreadable database path is refused, not replaced', async () => {
  const path = join(tempDir(), 'db.json');
  mkdirSync(path);
  try {
    await LowPetStore.open({ type: 'file', path }, seed);
    assert.unreachable('should refuse');
  } catch (error) {
    assert.instance(error, CorruptDatabaseError);
  }
  assert.ok(existsSync(path));
});

contract.run();
file.run();
