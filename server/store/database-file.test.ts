import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pet } from '../types.ts';
import { DatabaseSerializer, type Database } from './database-file.ts';

const pet = (id: number): Pet => ({ id, name: `Pet "${id}" \u00e9`, categoryId: (id % 7) + 1, status: 'available' });

test('matches JSON.stringify through appends, a replaced array, a removal and an empty store', () => {
  const serializer = new DatabaseSerializer();
  const db: Database = { nextId: 1, pets: [] };
  const check = (step: string) => assert.is(Buffer.concat(serializer.serialize(db)).toString('utf8'), JSON.stringify(db), step);

  check('empty');
  for (let id = 1; id <= 50; id++) {
    db.pets.push(pet(id));
    db.nextId = id + 1;
    if (id % 7 === 0) check(`after ${id} appends`);
  }
  db.pets.push(pet(51), pet(52), pet(53));
  db.nextId = 54;
  check('a group of three');

  db.pets.splice(db.pets.length - 2, 1);
  serializer.forget();
  check('a rolled-back create in the middle of a group');

  db.pets = [pet(1), pet(2)];
  check('a reset to a new array');

  db.pets = [];
  check('a reset to nothing');
  db.pets.push(pet(60));
  db.nextId = 61;
  check('the first pet after a reset');
});

test('a store larger than the first buffer grows it without losing bytes', () => {
  const serializer = new DatabaseSerializer();
  const db: Database = { nextId: 1, pets: [] };
  for (let id = 1; id <= 3_000; id++) {
    db.pets.push(pet(id));
    db.nextId = id + 1;
    if (id % 1_000 === 0) assert.is(Buffer.concat(serializer.serialize(db)).toString('utf8'), JSON.stringify(db), `${id} pets`);
  }
});

test('only the pets appended since the last write are stringified', () => {
  const serializer = new DatabaseSerializer();
  const db: Database = { nextId: 3, pets: [pet(1), pet(2)] };
  serializer.serialize(db);
  // A pet already written that (wrongly) changed is not re-read: proof the prefix is reused.
  db.pets[0]!.name = 'changed';
  db.pets.push(pet(3));
  db.nextId = 4;
  assert.ok(Buffer.concat(serializer.serialize(db)).toString('utf8').includes('Pet \\"1\\"'));
});

test.run();
