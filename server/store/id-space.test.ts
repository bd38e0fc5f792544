// The end of the id space: the rules themselves, and the file store at the end of it, as the attack of
// issue 30 found it (a journal holding id 2^53 - 2, then creates that were answered with one id three times).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../lib/errors.ts';
import type { Pet } from '../types.ts';
import { CorruptDatabaseError } from './durable-json-file.ts';
import { checkPetIds, ID_SPACE_SPENT, IdSpaceExhaustedError, isId, isNextId, LAST_ID, SPENT } from './id-space.ts';
import { readFileStore } from './database-file.ts';
import { LowPetStore } from './low-pet-store.ts';

const pet = (id: number): Pet => ({ id, name: `P${id}`, categoryId: 1, status: 'sold' });
const line = (id: number) => `${JSON.stringify(pet(id))}\n`;
const input = (name: string) => ({ name, categoryId: 1, status: 'available' as const });

const rules = suite('id space rules');

rules('the last id is the largest integer a double holds exactly, and the spent counter is one past it', () => {
  assert.is(LAST_ID, 9007199254740991);
  assert.is(SPENT, 2 ** 53);
  assert.ok(SPENT + 1 === SPENT, 'past SPENT a double no longer counts: why nothing is ever computed beyond it');
});

// [value, isId, isNextId]
const values: Array<[unknown, boolean, boolean]> = [
  [1, true, true],
  [LAST_ID, true, true],
  [SPENT, false, true],
  [SPENT + 2, false, false],
  [0, false, false],
  [-1, false, false],
  [1.5, false, false],
  ['7', false, false],
  [Number.NaN, false, false],
  [Infinity, false, false],
];
for (const [value, id, nextId] of values) {
  rules(`${String(value)}: ${id ? 'an id' : 'not an id'}, ${nextId ? 'a next id' : 'not a next id'}`, () => {
    assert.is(isId(value), id);
    assert.is(isNextId(value), nextId);
  });
}

rules('pets to store are refused, naming the first bad one, when an id is outside the space or repeats', () => {
  assert.not.throws(() => checkPetIds([pet(1), pet(LAST_ID)], 'Seed'));
  assert.throws(
    () => checkPetIds([pet(1), pet(SPENT)], 'Seed'),
    (e: unknown) => e instanceof UsageError && /Seed: \[1\] has id 9007199254740992/.test(e.message),
  );
  assert.throws(
    () => checkPetIds([pet(2), pet(2)], 'Seed'),
    (e: unknown) => e instanceof UsageError && /\[1\] repeats id 2/.test(e.message),
  );
});

rules.run();

const file = suite('file store at the end of the id space');

function fileStore(snapshot: object, journal = ''): string {
  const path = join(mkdtempSync(join(tmpdir(), 'id-space-')), 'db.json');
  writeFileSync(path, JSON.stringify(snapshot));
  writeFileSync(`${path}.journal`, journal);
  return path;
}

file(
  'the attack: a journal holding 2^53 - 2, then four creates: one gets 2^53 - 1, three are refused, and a restart opens with every acknowledged pet',
  async () => {
    const path = fileStore({ nextId: 2, pets: [pet(1)] }, line(LAST_ID - 1));
    const logged: string[] = [];
    const log = (level: string, message: string) => void logged.push(`${level}: ${message}`);
    const store = await LowPetStore.open({ type: 'file', path }, [], { log });
    const answers: Array<number | string> = [];
    for (let i = 0; i < 4; i++) {
      answers.push(
        await store.create(input(`Attack ${i}`)).then(
          (p) => p.id,
          (e: unknown) => (e as IdSpaceExhaustedError).code,
        ),
      );
    }
    assert.equal(answers, [LAST_ID, 'id_space_exhausted', 'id_space_exhausted', 'id_space_exhausted']);
    assert.equal(logged, [`error: ${ID_SPACE_SPENT}`], 'said once, not once per refusal');
    assert.equal(
      readFileStore(path).map((p) => p.id),
      [1, LAST_ID - 1, LAST_ID],
      'nothing stored for the refusals',
    );
    await store.close();
    assert.is(JSON.parse(readFileSync(path, 'utf8')).nextId, SPENT, 'the snapshot says the space is spent, exactly');

    const again = await LowPetStore.open({ type: 'file', path }, []);
    assert.equal(
      (await again.list({ limit: 10 })).pets.map((p) => p.id),
      [1, LAST_ID - 1, LAST_ID],
    );
    const refused = await again.create(input('After the restart')).catch((e: unknown) => e);
    assert.instance(refused, IdSpaceExhaustedError);
    await again.close();
  },
);

file('creates grouped into one journal write: the one that gets the last id is written, the others refused alone', async () => {
  const path = fileStore({ nextId: LAST_ID - 1, pets: [] });
  const store = await LowPetStore.open({ type: 'file', path }, []);
  const settled = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => store.create(input(`G${i}`))));
  assert.equal(
    settled.map((s) => (s.status === 'fulfilled' ? s.value.id : (s.reason as IdSpaceExhaustedError).code)),
    [LAST_ID - 1, LAST_ID, 'id_space_exhausted', 'id_space_exhausted', 'id_space_exhausted', 'id_space_exhausted'],
  );
  assert.equal(
    readFileStore(path).map((p) => p.id),
    [LAST_ID - 1, LAST_ID],
  );
  await store.close();
});

// [case, snapshot, journal, ids served, or the corruption refused]
const files: Array<[string, object, string, number[] | RegExp]> = [
  ['a snapshot whose counter is spent opens', { nextId: SPENT, pets: [pet(LAST_ID)] }, '', [LAST_ID]],
  ['a journal line with the last id opens, spent', { nextId: 2, pets: [pet(1)] }, line(LAST_ID), [1, LAST_ID]],
  ['a snapshot counter past the spent one is refused', { nextId: SPENT + 2, pets: [] }, '', /"nextId" is not an integer from 1 to 9007199254740992/],
  ['a snapshot pet past the last id is refused', { nextId: SPENT, pets: [pet(SPENT)] }, '', /pets\[0\] is not a valid pet/],
  ['a journal line past the last id is refused', { nextId: 2, pets: [pet(1)] }, `${line(SPENT)}${line(3)}`, /line 1 of the journal is not a pet/],
];
for (const [name, snapshot, journal, expected] of files) {
  file(name, async () => {
    const path = fileStore(snapshot, journal);
    const opening = LowPetStore.open({ type: 'file', path }, []);
    if (expected instanceof RegExp) {
      const error = await opening.then(
        () => assert.unreachable('opened'),
        (e: unknown) => e,
      );
      assert.instance(error, CorruptDatabaseError);
      assert.match((error as Error).message, expected);
      return;
    }
    const store = await opening;
    assert.equal(
      (await store.list({ limit: 10 })).pets.map((p) => p.id),
      expected,
    );
    assert.instance(await store.create(input('None left')).catch((e: unknown) => e), IdSpaceExhaustedError);
    await store.close();
  });
}

file.run();
