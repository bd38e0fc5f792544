// Which operation a request names, whatever prefix the target serves the API under.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadContract } from '../conformance/openapi.ts';
import { operationOf } from './judge.ts';

const contract = await loadContract();

const cases: Array<[method: string, path: string, expected: string | undefined]> = [
  ['GET', '/v1/pets', 'listPets'],
  ['GET', '/pets', 'listPets'],
  ['GET', '/v1/pets/', 'listPets'],
  ['POST', '/v1/pets', 'createPet'],
  ['get', '/v1/pets/42', 'getPet'],
  ['GET', '/api/v1/pets/abc', 'getPet'],
  ['DELETE', '/v1/pets/42', undefined],
  ['GET', '/v1/pets/42/photos', undefined],
  ['GET', '/healthz', undefined],
  ['GET', '/v1/petsx', undefined],
];
for (const [method, path, expected] of cases) {
  test(`${method} ${path} is ${expected ?? 'no operation of the description'}`, () => {
    assert.is(operationOf(contract, method, path), expected);
  });
}

test.run();
