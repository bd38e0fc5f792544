import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contract } from './contract.ts';
import type { PetStatus } from './types.ts';

test('the server reads its enumerations and bounds from the OpenAPI document', () => {
  const statuses: PetStatus[] = ['available', 'pending', 'sold'];
  assert.equal(contract.petStatuses, statuses);
  assert.equal({ ...contract.limit }, { type: 'integer', minimum: 1, maximum: 100, default: 20 });
  assert.is(contract.basePath, '/v1');
  assert.is(contract.apiVersion, '1.0.0');
});

test.run();
