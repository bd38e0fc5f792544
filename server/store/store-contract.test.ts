// The PetStore contract, one table of cases run against every store: LowPetStore in memory and in a
// file, and PostgresPetStore (each case in a schema of its own). A store that answers any case
// differently from the others fails here.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../lib/errors.ts';
import type { Pet } from '../types.ts';
import { IdSpaceExhaustedError, LAST_ID } from './id-space.ts';
import { openPetStore } from './open.ts';
import type { ListQuery, PetStore, StorageOptions } from './pet-store.ts';
import { postgresForTests } from '../testing/test-database.ts';

const postgres = await postgresForTests('store-contract.test.ts');

const seed: Pet[] = [
  { id: 8, name: 'Pepper', categoryId: 3, status: 'pending' },
  { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' },
  { id: 2, name: 'Luna "the loud"', categoryId: 2, status: 'sold' },
  { id: 9, name: 'Ünï 🐈 \\ back\\slash', categoryId: Number.MAX_SAFE_INTEGER, status: 'available' },
  { id: 5, name: '', categoryId: 1, status: 'available' },
];
const byId = new Map(seed.map((p) => [p.id, p]));

interface Kind {
  name: string;
  /** Whether a store opened again on the same storage finds its pets (memory does not). */
  persistent: boolean;
  /** A fresh storage for one case, or null when this kind cannot run here. */
  storage(): StorageOptions | null;
}

const kinds: Kind[] = [
  { name: 'memory', persistent: false, storage: () => ({ type: 'memory' }) },
  { name: 'file', persistent: true, storage: () => ({ type: 'file', path: join(mkdtempSync(join(tmpdir(), 'store-contract-')), 'db.json') }) },
  {
    name: 'postgres',
    persistent: true,
    storage: () => (postgres.db ? { type: 'postgres', url: postgres.db.url, schema: postgres.db.schema('contract') } : null),
  },
];

// [case, query, ids expected in order, hasMore]
const pages: Array<[string, ListQuery, number[], boolean]> = [
  ['every pet, in id order', { limit: 10 }, [1, 2, 5, 8, 9], false],
  ['a limit equal to the matches', { limit: 5 }, [1, 2, 5, 8, 9], false],
  ['a limit one short of the matches', { limit: 4 }, [1, 2, 5, 8], true],
  ['limit 0 with matches left', { limit: 0 }, [], true],
  ['limit 0 with nothing left', { limit: 0, afterId: 9 }, [], false],
  ['after an id', { limit: 2, afterId: 2 }, [5, 8], true],
  ['after an id no pet has', { limit: 10, afterId: 3 }, [5, 8, 9], false],
  ['after 0', { limit: 10, afterId: 0 }, [1, 2, 5, 8, 9], false],
  ['after a negative id', { limit: 10, afterId: -5 }, [1, 2, 5, 8, 9], false],
  ['after a fraction', { limit: 10, afterId: 2.5 }, [5, 8, 9], false],
  ['after the last id', { limit: 10, afterId: 9 }, [], false],
  ['after an id beyond any integer a number holds', { limit: 10, afterId: 1e20 }, [], false],
  ['by status', { limit: 10, status: 'available' }, [1, 5, 9], false],
  ['by status, one page of two', { limit: 2, status: 'available' }, [1, 5], true],
  ['by status, after an id', { limit: 1, status: 'available', afterId: 1 }, [5], true],
  ['by status, the last match', { limit: 1, status: 'available', afterId: 5 }, [9], false],
  ['by status, nothing after', { limit: 10, status: 'pending', afterId: 8 }, [], false],
  ['by status, the only match before the id', { limit: 10, status: 'sold', afterId: 2 }, [], false],
];

const input = (name: string, categoryId = 4): Pick<Pet, 'name' | 'categoryId' | 'status'> => ({ name, categoryId, status: 'pending' });

const pet = (id: number): Pet => ({ id, name: `Pet ${id}`, categoryId: 1, status: 'sold' });

/** Rejects with IdSpaceExhaustedError, the error every store refuses a create with once its ids are used up. */
async function refusedForWantOfIds(creating: Promise<Pet>): Promise<void> {
  const error = await creating.then(
    (created) => assert.unreachable(`created ${JSON.stringify(created)}`),
    (e: unknown) => e,
  );
  assert.instance(error, IdSpaceExhaustedError);
  assert.is((error as IdSpaceExhaustedError).code, 'id_space_exhausted');
}

type Case = (open: (seedPets: readonly Pet[]) => Promise<PetStore>, kind: Kind) => Promise<void>;
const cases: Array<[string, Case]> = [
  ...pages.map(([name, query, ids, hasMore]): [string, Case] => [
    `list: ${name}`,
    async (open) => {
      const store = await open(seed);
      try {
        assert.equal(await store.list(query), { pets: ids.map((id) => byId.get(id)), hasMore });
      } finally {
        await store.close();
      }
    },
  ]),
  [
    'get: a pet comes back exactly as stored; an unknown or fractional id is absent',
    async (open) => {
      const store = await open(seed);
      for (const pet of seed) assert.equal(await store.get(pet.id), pet);
      assert.is(await store.get(3), undefined);
      assert.is(await store.get(1.5), undefined);
      assert.is(await store.count(), seed.length);
      await store.close();
    },
  ],
  [
    'create: ids continue after the highest seeded id, and a pet round-trips exactly',
    async (open) => {
      const store = await open(seed);
      const a = await store.create(input('Nova', Number.MAX_SAFE_INTEGER));
      const b = await store.create(input(' spaced\ttab "quoted" é'));
      assert.equal([a.id, b.id], [10, 11]);
      assert.equal(a, { id: 10, name: 'Nova', categoryId: Number.MAX_SAFE_INTEGER, status: 'pending' });
      assert.equal(await store.get(11), b);
      assert.equal(await store.list({ limit: 2, afterId: 9 }), { pets: [a, b], hasMore: false });
      assert.equal(await store.list({ limit: 10, status: 'pending' }), { pets: [byId.get(8), a, b], hasMore: false });
      await store.close();
    },
  ],
  [
    'reset: replaces every pet; the id counter never goes back, and moves past higher ids',
    async (open) => {
      const store = await open(seed);
      await store.create(input('Gone'));
      await store.reset([seed[1]!, seed[2]!]);
      assert.equal(
        (await store.list({ limit: 10 })).pets.map((p) => p.id),
        [1, 2],
      );
      assert.is(await store.get(10), undefined);
      assert.is((await store.create(input('After reset'))).id, 11);
      await store.reset([{ id: 40, name: 'High', categoryId: 1, status: 'sold' }]);
      assert.is((await store.create(input('After a higher reset'))).id, 41);
      await store.reset([]);
      assert.is(await store.count(), 0);
      assert.is((await store.create(input('After an empty reset'))).id, 42);
      await store.close();
    },
  ],
  [
    'id space: creates asked together with one id left get it once, the others are refused and store nothing; reopened, the store keeps them and still refuses',
    async (open, kind) => {
      const store = await open([pet(LAST_ID - 1)]);
      const settled = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => store.create(input(`Last ${i}`))));
      const created = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      assert.equal(
        created.map((p) => p.id),
        [LAST_ID],
      );
      for (const s of settled) if (s.status === 'rejected') assert.instance(s.reason, IdSpaceExhaustedError);
      await refusedForWantOfIds(store.create(input('After the last')));
      assert.is(await store.count(), 2);
      assert.equal((await store.list({ limit: 10 })).pets, [pet(LAST_ID - 1), created[0]]);
      assert.equal(await store.get(LAST_ID), created[0]);
      await store.close();
      if (!kind.persistent) return;
      const again = await open([]);
      assert.equal((await again.list({ limit: 10 })).pets, [pet(LAST_ID - 1), created[0]]);
      await refusedForWantOfIds(again.create(input('After a restart')));
      assert.is(await again.count(), 2);
      await again.close();
    },
  ],
  [
    'id space: a reset to the last id uses the space up, and a reset to lower ids does not give it back',
    async (open) => {
      const store = await open(seed);
      await store.reset([pet(LAST_ID)]);
      await refusedForWantOfIds(store.create(input('None left')));
      await store.reset([pet(3)]);
      await refusedForWantOfIds(store.create(input('Still none')));
      assert.equal((await store.list({ limit: 10 })).pets, [pet(3)]);
      await store.close();
    },
  ],
  [
    'id space: a seed or a reset with an id outside it (0, past the last, a fraction) or repeated is refused, and changes nothing',
    async (open) => {
      const outside = [0, LAST_ID + 1, 2 ** 60, 1.5];
      for (const id of outside) {
        const error = await open([pet(id)]).then(
          (s) => s.close().then(() => assert.unreachable(`opened with id ${id}`)),
          (e: unknown) => e,
        );
        assert.instance(error, UsageError, `seed with id ${id}`);
      }
      const store = await open(seed);
      for (const pets of [...outside.map((id) => [pet(1), pet(id)]), [pet(4), pet(4)]]) {
        const error = await store.reset(pets).then(
          () => assert.unreachable(`reset to ${pets.map((p) => p.id).join(', ')}`),
          (e: unknown) => e,
        );
        assert.instance(error, UsageError);
      }
      assert.equal(
        (await store.list({ limit: 10 })).pets,
        [...seed].sort((a, b) => a.id - b.id),
      );
      assert.is((await store.create(input('Next'))).id, 10);
      await store.close();
    },
  ],
  [
    'an empty seed starts ids at 1',
    async (open) => {
      const store = await open([]);
      assert.equal(await store.list({ limit: 10 }), { pets: [], hasMore: false });
      assert.is((await store.create(input('First'))).id, 1);
      await store.close();
    },
  ],
  [
    'opened again, a kept store has its pets and counter and is not seeded again',
    async (open, kind) => {
      const first = await open(seed);
      await first.create(input('Kept'));
      await first.reset([seed[0]!]);
      await first.close();
      const second = await open([{ id: 99, name: 'Not seeded', categoryId: 1, status: 'sold' }]);
      if (kind.persistent) {
        assert.equal((await second.list({ limit: 10 })).pets, [seed[0]]);
        assert.is((await second.create(input('Next'))).id, 11);
      } else {
        assert.equal(
          (await second.list({ limit: 10 })).pets.map((p) => p.id),
          [99],
        );
      }
      await second.close();
    },
  ],
];

for (const kind of kinds) {
  const t = suite(`PetStore contract: ${kind.name}`);
  const register = kind.name === 'postgres' ? postgres.register(t) : t;
  for (const [name, run] of cases) {
    register(`${kind.name}: ${name}`, async () => {
      const storage = kind.storage();
      if (!storage) throw new Error('no storage for this kind');
      await run((seedPets) => openPetStore(storage, seedPets), kind);
    });
  }
  if (kind.name === 'postgres') t.after(async () => postgres.db?.drop());
  t.run();
}
