import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from '../server/index.ts';
import { countStoredPets, generatedPet, petStoreJson, writePetStore } from './stores.ts';

test('the generated store has the file format: nextId above every id, pets in ascending id order', () => {
  const db = JSON.parse(petStoreJson(1000)) as { nextId: number; pets: Array<{ id: number; status: string }> };
  assert.is(db.nextId, 1001);
  assert.is(db.pets.length, 1000);
  assert.equal(db.pets[0], generatedPet(1));
  assert.ok(db.pets.every((p, i) => p.id === i + 1));
  const statuses = new Set(db.pets.map((p) => p.status));
  assert.equal([...statuses].sort(), ['available', 'pending', 'sold']);
});

test('an empty store and a bad count', () => {
  assert.equal(JSON.parse(petStoreJson(0)), { nextId: 1, pets: [] });
  assert.throws(() => petStoreJson(-1), /whole number/);
  assert.throws(() => petStoreJson(1.5), /whole number/);
});

test('countStoredPets reads a store back and refuses anything else', () => {
  assert.is(countStoredPets(petStoreJson(12)), 12);
  assert.throws(() => countStoredPets('[]'), /not a pet store/);
  assert.throws(() => countStoredPets('{"pets":[]}'), /not a pet store/);
  assert.throws(() => countStoredPets('{"nextId":1,"pets":['), SyntaxError);
});

test('the reference server opens a generated 10,000-pet store and lists its first page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-store-'));
  try {
    const path = join(dir, 'db.json');
    await writePetStore(path, 10_000);
    const server = await createServer({ storage: { type: 'file', path }, logger: false });
    const res = await server.inject({ url: '/v1/pets?limit=20', headers: { authorization: 'Bearer test-enterprise-key' } });
    assert.is(res.statusCode, 200);
    assert.equal(JSON.parse(res.payload), Array.from({ length: 20 }, (_, i) => generatedPet(i + 1)));
    assert.is(await server.app.store.count(), 10_000);
    await server.stop();
    // Opening did not rewrite or reseed it.
    assert.is(countStoredPets(readFileSync(path, 'utf8')), 10_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
