import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from '../server/index.ts';
import { checkDurability, countStoredPets, generatedPet, petArrayJson, petStoreJson, storedIds, writePetStore, type Durability } from './stores.ts';

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

test('the pets as a plain array (PostgreSQL seed, json-server) are the same pets', () => {
  const pets = JSON.parse(petArrayJson(30)) as unknown[];
  assert.equal(pets, (JSON.parse(petStoreJson(30)) as { pets: unknown[] }).pets);
  assert.equal(storedIds(petStoreJson(3)), [1, 2, 3]);
});

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const durability: Array<[string, Parameters<typeof checkDurability>[0], Partial<Durability>]> = [
  [
    'every acknowledged create stored once, two in flight stored too',
    { before: 10, acknowledged: 5, acknowledgedIds: range(11, 15), storedIds: range(1, 17), inFlightBound: 4 },
    { ok: true, after: 17, missing: 0, duplicated: 0, unacknowledged: 2, idsChecked: true },
  ],
  [
    'an acknowledged create missing after SIGKILL',
    { before: 10, acknowledged: 5, acknowledgedIds: range(11, 15), storedIds: range(1, 14), inFlightBound: 4 },
    { ok: false, missing: 1, problem: '1 acknowledged or original pets missing after SIGKILL' },
  ],
  [
    'one of the original pets gone',
    { before: 10, acknowledged: 2, acknowledgedIds: [11, 12], storedIds: [...range(2, 10), 11, 12], inFlightBound: 4 },
    { ok: false, missing: 1 },
  ],
  [
    'an id stored twice',
    { before: 10, acknowledged: 2, acknowledgedIds: [11, 12], storedIds: [...range(1, 12), 12], inFlightBound: 4 },
    { ok: false, duplicated: 1, problem: '1 ids stored or acknowledged twice' },
  ],
  [
    'one id acknowledged for two creates',
    { before: 10, acknowledged: 2, acknowledgedIds: [11, 11], storedIds: range(1, 11), inFlightBound: 4 },
    { ok: false, duplicated: 1 },
  ],
  [
    'more unacknowledged pets than creates could be in flight',
    { before: 10, acknowledged: 1, acknowledgedIds: [11], storedIds: range(1, 20), inFlightBound: 4 },
    { ok: false, unacknowledged: 9, problem: '9 pets stored without an acknowledgement, more than the 4 creates that can be in flight' },
  ],
  [
    'counts only (no ids from the generator): enough pets is durable',
    { before: 10, acknowledged: 5, acknowledgedIds: undefined, storedIds: range(1, 16), inFlightBound: 4 },
    { ok: true, missing: 0, unacknowledged: 1, idsChecked: false },
  ],
  [
    'counts only: too few pets',
    { before: 10, acknowledged: 5, acknowledgedIds: undefined, storedIds: range(1, 13), inFlightBound: 4 },
    { ok: false, missing: 2 },
  ],
  [
    'a store that cannot be read back proves nothing durable',
    { before: 10, acknowledged: 5, acknowledgedIds: range(11, 15), storedIds: new Error('unexpected end of JSON'), inFlightBound: 4 },
    { ok: false, after: -1, missing: 5, idsChecked: false, problem: 'store unreadable after SIGKILL: unexpected end of JSON' },
  ],
];
for (const [name, input, expected] of durability) {
  test(`durability: ${name}`, () => {
    const d = checkDurability(input);
    for (const [key, value] of Object.entries(expected)) assert.equal(d[key as keyof Durability], value, key);
  });
}

test('the reference server opens a generated 10,000-pet store and lists its first page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-store-'));
  try {
    const path = join(dir, 'db.json');
    await writePetStore(path, 10_000);
    const server = await createServer({ storage: { type: 'file', path }, logger: false });
    const res = await server.inject({ url: '/v1/pets?limit=20', headers: { authorization: 'Bearer test-enterprise-key' } });
    assert.is(res.statusCode, 200);
    assert.equal(
      JSON.parse(res.payload),
      Array.from({ length: 20 }, (_, i) => generatedPet(i + 1)),
    );
    assert.is(await server.app.store.count(), 10_000);
    await server.stop();
    // Opening did not rewrite or reseed it.
    assert.is(countStoredPets(readFileSync(path, 'utf8')), 10_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
