import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pet } from '../types.ts';
import { petJson, petsJson } from './json.ts';

const pets: Pet[] = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 2, name: 'Ünïcødé 🐕 "quoted" \\ back', categoryId: 2, status: 'pending' },
  { id: 3, name: 'Tab\there', categoryId: 3, status: 'sold' },
];

const pages: Array<[string, Pet[]]> = [
  ['empty', []],
  ['one', pets.slice(0, 1)],
  ['several, with characters JSON escapes', pets],
];
for (const [name, page] of pages) {
  test(`petsJson is JSON.stringify of the page: ${name}`, () => {
    assert.is(petsJson(page), JSON.stringify(page));
  });
}

test('petJson is JSON.stringify of the pet, made once per pet object', () => {
  for (const pet of pets) assert.is(petJson(pet), JSON.stringify(pet));
  const pet = { ...pets[0]! };
  const first = petJson(pet);
  // A stored pet never changes; the text made for the object is the one served.
  pet.name = 'changed behind the cache';
  assert.is(petJson(pet), first);
  assert.is(petJson({ ...pet }), JSON.stringify(pet));
});

test.run();
