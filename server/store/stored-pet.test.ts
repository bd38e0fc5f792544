// The shape both the snapshot and the journal require of a pet read back from disk.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isStoredPet } from './stored-pet.ts';

const PET = { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' };

const cases: Array<[string, unknown, boolean]> = [
  ['a pet', PET, true],
  ['null', null, false],
  ['an array', [PET], false],
  ['id 0', { ...PET, id: 0 }, false],
  ['an id beyond safe integers', { ...PET, id: 2 ** 53 }, false],
  ['an id as text', { ...PET, id: '1' }, false],
  ['no name', { ...PET, name: undefined }, false],
  ['a fractional category', { ...PET, categoryId: 1.5 }, false],
  ['no status', { ...PET, status: undefined }, false],
];
for (const [what, value, expected] of cases) test(`${what}: ${expected ? 'a pet' : 'not a pet'}`, () => assert.is(isStoredPet(value), expected));

test.run();
