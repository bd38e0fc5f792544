// What only the PostgreSQL store has to get right: starting together, refusing what it cannot use,
// acknowledging after COMMIT, and pages that neither repeat nor skip while several instances create.
import { suite } from 'uvu';
import { roundTrips } from '../round-trips.ts';
import * as assert from 'uvu/assert';
import { freePort } from '../../lib/processes.ts';
import type { Pet } from '../types.ts';
import { DatabaseUnavailableError, IncompatibleSchemaError } from './database-errors.ts';
import pg from 'pg';
import { GROUPS_IN_FLIGHT, SECOND_GROUP_MIN } from './postgres-create-groups.ts';
import { PostgresPetStore } from './postgres-store.ts';
import { lockSql, schemaNames } from './postgres-schema.ts';
import { ID_SPACE_SPENT, IdSpaceExhaustedError, LAST_ID } from './id-space.ts';
import { postgresForTests } from '../testing/test-database.ts';

const postgres = await postgresForTests('postgres-store.test.ts');
const db = postgres.db;
const seed: Pet[] = [
  { id: 3, name: 'C', categoryId: 1, status: 'sold' },
  { id: 1, name: 'A', categoryId: 1, status: 'available' },
  { id: 2, name: 'B', categoryId: 2, status: 'pending' },
];
const input = (name: string) => ({ name, categoryId: 1, status: 'available' as const });
const open = (schema: string, pets: readonly Pet[] = seed) => PostgresPetStore.open({ url: db!.url, schema }, pets);

async function refusal(opening: Promise<unknown>): Promise<Error> {
  try {
    await opening;
  } catch (error) {
    return error as Error;
  }
  throw new Error('open() should have been refused');
}

// Needs no PostgreSQL: nothing listens on the port.
const offline = suite('PostgresPetStore: an unreachable database');
offline('open() is refused with database_unavailable, naming the database without its password', async () => {
  const port = await freePort();
  const error = await refusal(PostgresPetStore.open({ url: `postgres://kit:s3cret-pw@127.0.0.1:${port}/pets?schema=east`, connectTimeoutMs: 2_000 }, seed));
  assert.instance(error, DatabaseUnavailableError);
  assert.is((error as DatabaseUnavailableError).code, 'database_unavailable');
  assert.ok(error.message.includes(`postgres://kit:***@127.0.0.1:${port}/pets (schema "east")`), error.message);
  assert.match(error.message, /ECONNREFUSED/);
  assert.not.match(error.message, /s3cret/);
});
offline.run();

const t = suite('PostgresPetStore');
const it = postgres.register(t);
t.after(async () => db?.drop());

it('a database that does not exist is unavailable, named in the message', async () => {
  const url = new URL(db!.url);
  url.pathname = '/adoption_no_such_database';
  const error = await refusal(PostgresPetStore.open({ url: url.href }, seed));
  assert.instance(error, DatabaseUnavailableError);
  assert.match(error.message, /adoption_no_such_database/);
  assert.match(error.message, /3D000/);
});

it('instances that start together create the schema and seed it exactly once', async () => {
  const schema = db!.schema('together');
  const stores = await Promise.all(Array.from({ length: 6 }, () => open(schema)));
  assert.is(await stores[0]!.count(), 3);
  const ids = await Promise.all(stores.map((s) => s.create(input('one each')).then((p) => p.id)));
  assert.equal(
    [...ids].sort((a, b) => a - b),
    [4, 5, 6, 7, 8, 9],
  );
  await Promise.all(stores.map((s) => s.close()));
});

it('the schema: primary key on id, an index on (status, id) that status pages use, a sequence for ids', async () => {
  const schema = db!.schema('layout');
  const store = await open(schema);
  const indexes = await db!.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname', [schema]);
  assert.equal(
    indexes.map((i) => i.indexdef.replace(/ ON \S+\.pets /, ' ON pets ')),
    ['CREATE UNIQUE INDEX pets_pkey ON pets USING btree (id)', 'CREATE INDEX pets_status_id ON pets USING btree (status, id)'],
  );
  assert.equal(await db!.query('SELECT sequencename FROM pg_sequences WHERE schemaname = $1', [schema]), [{ sequencename: 'pet_ids' }]);

  // Enough pets, few of them sold, for the planner to prefer an index over reading the table.
  await store.reset(Array.from({ length: 3_000 }, (_, i): Pet => ({ id: i + 1, name: `P${i}`, categoryId: 1, status: i % 300 === 0 ? 'sold' : 'available' })));
  await db!.query(`ANALYZE ${schema}.pets`);
  const plan = async (where: string) =>
    (await db!.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM ${schema}.pets WHERE ${where} ORDER BY id LIMIT 8`))
      .map((r) => r['QUERY PLAN'])
      .join('\n');
  assert.match(await plan("id > 100 AND status = 'sold'"), /pets_status_id/);
  assert.match(await plan('id > 100'), /pets_pkey/);
  await store.close();
});

it('the id space ends where the sequence and the CHECK end: at LAST_ID, and a sequence that ends earlier refuses with id_space_exhausted too', async () => {
  const schema = db!.schema('ids');
  const logged: string[] = [];
  const store = await PostgresPetStore.open({ url: db!.url, schema, log: (level, message) => void logged.push(`${level}: ${message}`) }, seed);
  assert.equal(await db!.query(`SELECT max_value::text FROM pg_sequences WHERE schemaname = $1`, [schema]), [{ max_value: String(LAST_ID) }]);
  const check = await db!.query(`INSERT INTO ${schema}.pets VALUES (${LAST_ID + 1}, 'Past', 1, 'sold')`).then(
    () => undefined,
    (e: { code?: string }) => e.code,
  );
  assert.is(check, '23514', 'the CHECK refuses an id past LAST_ID');

  // A sequence altered by hand (or a group from an instance that asks for more ids than are left)
  // meets the sequence's own end: "reached maximum value of sequence", SQLSTATE 2200H.
  await db!.query(`ALTER SEQUENCE ${schema}.pet_ids MAXVALUE 5`);
  assert.is((await store.create(input('Four'))).id, 4);
  const settled = await Promise.allSettled([store.create(input('Five?')), store.create(input('Six?'))]);
  for (const s of settled) assert.ok(s.status === 'rejected' && s.reason instanceof IdSpaceExhaustedError, String(s.status === 'rejected' && s.reason));
  assert.is(await store.count(), 4, 'the refused group stored nothing');
  assert.equal(logged, [`error: ${ID_SPACE_SPENT}`], 'said once');
  await store.close();
});

it('a store that exists is not seeded again, even once every pet is gone; ?schema= picks the schema', async () => {
  const schema = db!.schema('kept');
  const first = await PostgresPetStore.open({ url: `${db!.url}?schema=${schema}` }, seed);
  await first.reset([]);
  await first.close();
  const second = await open(schema);
  assert.is(await second.count(), 0);
  assert.is((await second.create(input('next'))).id, 4, 'the sequence kept its place');
  await second.close();
  const [row] = await db!.query<{ count: string }>(`SELECT count(*) FROM ${schema}.pets`);
  assert.is(row!.count, '1');
});

it('a create resolves only once another connection can see it (after COMMIT)', async () => {
  const schema = db!.schema('commit');
  const store = await open(schema);
  await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      store.create(input(`P${i}`)).then(async (pet) => {
        const rows = await db!.query(`SELECT 1 FROM ${schema}.pets WHERE id = $1`, [pet.id]);
        assert.is(rows.length, 1, `pet ${pet.id} committed when acknowledged`);
      }),
    ),
  );
  await store.close();
});

it('a group of creates is one round trip, and each create gets a row that says what it asked for, quotes and all', async () => {
  const store = await open(db!.schema('group'));
  const names = ["O'Brien", 'back\\slash', 'Same', 'Same', 'Same', '🐕 émoji', "'; DROP TABLE pets; --"];
  const asked = names.map((name, i) => ({ name, categoryId: i % 2 === 0 ? 2 ** 40 + i : -i, status: i % 3 === 0 ? ('sold' as const) : ('pending' as const) }));
  await store.create(input('connects'));
  const before = roundTrips.postgres;
  const created = await Promise.all(asked.map((p) => store.create(p)));
  // The creates asked in one turn of the event loop go together.
  assert.is(roundTrips.postgres - before, 1, 'BEGIN, the lock, the insert and COMMIT in one simple query per group');
  created.forEach((pet, i) => assert.equal({ name: pet.name, categoryId: pet.categoryId, status: pet.status }, asked[i]));
  assert.is(new Set(created.map((p) => p.id)).size, names.length, 'one id each');
  for (const pet of created) assert.equal(await store.get(pet.id), pet, `pet ${pet.id} stored as acknowledged`);
  await store.close();
});

/** Sessions of the store queued on its schema's advisory lock, asked outside any test transaction. */
async function waitingOnLock(schema: string): Promise<number> {
  const [row] = await db!.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'adoption-store-kit' AND wait_event_type = 'Lock' AND query LIKE $1`,
    [`%pg_advisory_xact_lock%${schema}%`],
  );
  return Number(row!.n);
}

/** Polls until `count` sessions wait on the lock, for up to two seconds; returns the last count. */
async function untilWaiting(schema: string, count: number): Promise<number> {
  let seen = 0;
  for (let i = 0; i < 100 && seen < count; i++) {
    seen = await waitingOnLock(schema);
    if (seen < count) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return seen;
}

/** A session of its own that takes the schema's lock in a transaction: `release` commits, `end` closes it. */
async function lockHolder(schema: string): Promise<{ release: () => Promise<unknown>; end: () => Promise<void> }> {
  const holder = new pg.Client({ connectionString: db!.url });
  await holder.connect();
  const lock = lockSql(schemaNames(schema));
  await holder.query('BEGIN');
  await holder.query(lock.text, lock.values);
  return { release: () => holder.query('COMMIT'), end: () => holder.end() };
}

/**
 * Runs `work` on a connected store of its own while another session holds the schema's lock, as a
 * slow commit of another instance would; `work` ends that session's transaction with `release`.
 */
async function whileLockHeld(name: string, work: (store: PostgresPetStore, schema: string, release: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const schema = db!.schema(name);
  const store = await open(schema);
  await store.create(input('connects'));
  const holder = await lockHolder(schema);
  try {
    await work(store, schema, holder.release);
  } finally {
    await holder.end();
    await store.close();
  }
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

it('a second group waits on the lock inside the database while the first commits, and ids still follow commit order', () =>
  whileLockHeld('inflight', async (store, schema, release) => {
    const first = store.create(input('first'));
    await new Promise(setImmediate);
    const second = Promise.all(names('second', SECOND_GROUP_MIN).map((name) => store.create(input(name))));
    const third = (async () => {
      await new Promise(setImmediate);
      return store.create(input('third'));
    })();
    assert.is(await untilWaiting(schema, GROUPS_IN_FLIGHT), GROUPS_IN_FLIGHT, 'two groups sent, both queued on the lock in the database');
    await release();
    const pets = [await first, ...(await second), await third];
    assert.equal(
      pets.map((p) => p.name),
      ['first', ...names('second', SECOND_GROUP_MIN), 'third'],
    );
    assert.is(new Set(pets.map((p) => p.id)).size, pets.length, 'one id each');
    // The third was asked while two groups were in flight: its group was sent after one of them
    // committed and queued on the lock behind the other, so it took its id after both.
    const last = pets.at(-1)!;
    assert.ok(last.id > Math.max(...pets.slice(0, -1).map((p) => p.id)), `third ${last.id} after the first two groups`);
    for (const pet of pets) assert.equal(await store.get(pet.id), pet);
  }));

it('fewer creates than a second group needs wait for the first group to end, then go as one', () =>
  whileLockHeld('fewer', async (store, schema, release) => {
    const first = store.create(input('first'));
    await new Promise(setImmediate);
    const few = names('few', SECOND_GROUP_MIN - 1);
    const waiting = Promise.all(few.map((name) => store.create(input(name))));
    assert.is(await untilWaiting(schema, 1), 1, 'the first group is queued on the lock');
    // Long enough for a second group to have been sent and reached the lock, had it gone.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.is(await waitingOnLock(schema), 1, `${few.length} creates did not go as a group of their own`);
    const before = roundTrips.postgres;
    await release();
    const [pet, pets] = await Promise.all([first, waiting]);
    assert.is(roundTrips.postgres - before, 1, 'the creates that waited went as one group once the first had committed');
    assert.equal(
      pets.map((p) => p.name),
      few,
    );
    assert.ok(Math.min(...pets.map((p) => p.id)) > pet.id, 'after the first');
  }));

it('two instances at the end of the id space, each with two groups queued on the lock: every id left is given once, the rest refused and stored nowhere', async () => {
  const schema = db!.schema('ids-race');
  const left = 10;
  const stores = [await open(schema, [{ id: LAST_ID - left, name: 'Near the end', categoryId: 1, status: 'sold' }]), await open(schema, [])];
  const holder = await lockHolder(schema);
  try {
    const creating: Array<Promise<Pet>> = [];
    // A first group of 6 per instance, then a second of SECOND_GROUP_MIN sent while the first waits.
    for (const [s, store] of stores.entries()) creating.push(...names(`S${s}-a`, 6).map((name) => store.create(input(name))));
    await new Promise(setImmediate);
    for (const [s, store] of stores.entries()) creating.push(...names(`S${s}-b`, SECOND_GROUP_MIN).map((name) => store.create(input(name))));
    assert.is(await untilWaiting(schema, 2 * GROUPS_IN_FLIGHT), 2 * GROUPS_IN_FLIGHT, 'four groups queued on the lock');
    await holder.release();
    const settled = await Promise.allSettled(creating);
    for (const r of settled) if (r.status === 'rejected') assert.instance(r.reason, IdSpaceExhaustedError);
    const ids = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value.id] : []));
    assert.equal(
      [...ids].sort((a, b) => a - b),
      Array.from({ length: left }, (_, i) => LAST_ID - left + 1 + i),
      'the ids left, each once',
    );
    assert.is(await stores[0]!.count(), left + 1, 'the refused creates stored nothing');
  } finally {
    await holder.end();
    for (const store of stores) await store.close();
  }
});

it('close() waits for every group in flight and every create still queued', async () => {
  const store = await open(db!.schema('closing'));
  const creating = Array.from({ length: 20 }, (_, i) => store.create(input(`C${i}`)));
  await store.close();
  const pets = await Promise.all(creating);
  assert.is(new Set(pets.map((p) => p.id)).size, 20);
});

// [case, SQL that builds the unusable layout in schema S]
const incompatible: Array<[string, string, RegExp]> = [
  [
    'id is text',
    'CREATE TABLE S.pets (id text PRIMARY KEY, name text, category_id bigint, status text); CREATE SEQUENCE S.pet_ids',
    /"pets.id" is text, not bigint/,
  ],
  ['a column is missing', 'CREATE TABLE S.pets (id bigint PRIMARY KEY, name text, category_id bigint); CREATE SEQUENCE S.pet_ids', /no column "status"/],
  [
    'name is an integer',
    'CREATE TABLE S.pets (id bigint PRIMARY KEY, name integer, category_id bigint, status text); CREATE SEQUENCE S.pet_ids',
    /"pets.name" is integer, not text/,
  ],
  [
    'an extra NOT NULL column',
    'CREATE TABLE S.pets (id bigint PRIMARY KEY, name text, category_id bigint, status text, owner text NOT NULL); CREATE SEQUENCE S.pet_ids',
    /"pets.owner" is NOT NULL/,
  ],
  ['no primary key', 'CREATE TABLE S.pets (id bigint, name text, category_id bigint, status text); CREATE SEQUENCE S.pet_ids', /primary key/],
  ['a table without its sequence', 'CREATE TABLE S.pets (id bigint PRIMARY KEY, name text, category_id bigint, status text)', /no id sequence "pet_ids"/],
  ['a sequence without its table', 'CREATE SEQUENCE S.pet_ids', /no table "pets"/],
  ['pets is a view', 'CREATE VIEW S.pets AS SELECT 1 AS id', /is not a table/],
  [
    'a sequence behind the ids',
    "CREATE TABLE S.pets (id bigint PRIMARY KEY, name text, category_id bigint, status text); CREATE SEQUENCE S.pet_ids; INSERT INTO S.pets VALUES (5, 'x', 1, 'sold')",
    /would hand out id 1, but "pets" already holds id 5/,
  ],
];
const catalog = (schema: string) =>
  db!.query(
    `SELECT c.relname, c.relkind, a.attname, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
      WHERE n.nspname = $1 ORDER BY 1, 3`,
    [schema],
  );
for (const [name, sql, reason] of incompatible) {
  it(`an unusable schema is refused and left untouched: ${name}`, async () => {
    const schema = db!.schema('unusable');
    await db!.query(`CREATE SCHEMA ${schema}; ${sql.replaceAll('S.', `${schema}.`)}`);
    const before = await catalog(schema);
    const error = await refusal(open(schema));
    assert.instance(error, IncompatibleSchemaError);
    assert.is((error as IncompatibleSchemaError).code, 'incompatible_schema');
    assert.match(error.message, reason);
    assert.ok(error.message.includes(`/${db!.name} (schema "${schema}")`), error.message);
    assert.match(error.message, /left untouched/);
    assert.equal(await catalog(schema), before);
  });
}

it('two instances creating at once: ids distinct and all listed; pages never repeat or skip a pet', async () => {
  const schema = db!.schema('concurrent');
  const [east, west] = [await open(schema), await open(schema)];
  const acknowledged: number[] = [];
  let creating = true;
  const writers = [east, west].map(async (store, w) => {
    for (let round = 0; round < 100; round++) {
      const pets = await Promise.all(Array.from({ length: 3 }, (_, i) => store.create(input(`${w}-${round}-${i}`))));
      acknowledged.push(...pets.map((p) => p.id));
    }
  });
  const walks: Array<{ seen: number[]; knownAtStart: number[] }> = [];
  const walker = (async () => {
    while (creating) {
      const knownAtStart = [...acknowledged];
      const seen: number[] = [];
      let afterId = 0;
      for (;;) {
        const page = await (seen.length % 2 ? east : west).list({ limit: 25, afterId, status: 'available' });
        seen.push(...page.pets.map((p) => p.id));
        if (!page.hasMore) break;
        afterId = page.pets.at(-1)!.id;
      }
      walks.push({ seen, knownAtStart });
    }
  })();
  await Promise.all(writers);
  creating = false;
  await walker;

  assert.is(new Set(acknowledged).size, 600, 'every id distinct');
  const all = (await east.list({ limit: 10_000 })).pets.map((p) => p.id);
  assert.equal(
    all,
    [1, 2, 3, ...acknowledged].sort((a, b) => a - b),
    'every pet listed, in id order',
  );
  assert.ok(walks.length >= 3, `${walks.length} walks ran during the creates`);
  const available = new Set((await east.list({ limit: 10_000, status: 'available' })).pets.map((p) => p.id));
  for (const { seen, knownAtStart } of walks) {
    assert.ok(
      seen.every((id, i) => i === 0 || id > seen[i - 1]!),
      'a walk never repeats or goes back',
    );
    for (const id of knownAtStart) if (available.has(id)) assert.ok(seen.includes(id), `pet ${id}, acknowledged before the walk, was seen`);
    // Visible in id order: every pet now stored up to the last id a walk saw, it saw.
    const last = seen.at(-1) ?? 0;
    assert.equal(
      seen,
      [...available].filter((id) => id <= last).sort((a, b) => a - b),
      'no pet skipped',
    );
  }
  await Promise.all([east.close(), west.close()]);
});

t.run();
