// The list query's memo (validation.ts) gives what the contract's validator gives, every time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadContract } from '../contract.ts';
import { createPetValidation, InvalidInputError } from './validation.ts';

const validation = createPetValidation(await loadContract());
const query = (fields: Record<string, unknown>) => Object.assign(Object.create(null) as Record<string, unknown>, fields);

const accepted: Array<[Record<string, unknown>, Record<string, unknown>]> = [
  [{}, { limit: 20 }],
  [{ limit: '5' }, { limit: 5 }],
  [
    { limit: '5', status: 'sold' },
    { limit: 5, status: 'sold' },
  ],
  [
    { limit: '5', cursor: 'YWZ0ZXI6NQ' },
    { limit: 5, cursor: 'YWZ0ZXI6NQ' },
  ],
  [{ limit: '5', unknown: 'ignored' }, { limit: 5 }],
];
for (const [given, expected] of accepted) {
  test(`listQuery(${JSON.stringify(given)}) is the validator's answer, the first time and the next`, () => {
    assert.equal({ ...validation.listQuery(query(given)) }, expected);
    assert.equal({ ...validation.listQuery(query(given)) }, expected);
  });
}

const refused: Array<Record<string, unknown>> = [{ limit: '' }, { limit: '0' }, { limit: 'many' }, { status: 'lost' }, { limit: ['5', '6'] }];
for (const given of refused) {
  test(`listQuery(${JSON.stringify(given)}) is refused every time, after an accepted query too`, () => {
    validation.listQuery(query({ limit: '5' }));
    for (let i = 0; i < 2; i++)
      assert.throws(
        () => validation.listQuery(query(given)),
        (e: unknown) => e instanceof InvalidInputError,
      );
  });
}

test('listQuery: values that would run together are told apart (the key is length-prefixed)', () => {
  // Joined without lengths, both would read "10x".
  assert.equal({ ...validation.listQuery(query({ limit: '1', cursor: '0x' })) }, { limit: 1, cursor: '0x' });
  assert.equal({ ...validation.listQuery(query({ limit: '10', cursor: 'x' })) }, { limit: 10, cursor: 'x' });
  assert.equal({ ...validation.listQuery(query({ limit: '1', cursor: '0x' })) }, { limit: 1, cursor: '0x' });
});

test('listQuery: a kept answer cannot be changed by the request that got it', () => {
  const first = validation.listQuery(query({ limit: '7' }));
  assert.throws(() => {
    (first as { limit: number }).limit = 100;
  });
  assert.is(validation.listQuery(query({ limit: '7' })).limit, 7);
});

test('listQuery: past the number of answers kept, each is still right', () => {
  for (let round = 0; round < 2; round++) {
    for (let limit = 1; limit <= 100; limit++) {
      for (const status of [undefined, 'available', 'pending', 'sold']) {
        for (const cursor of [undefined, `c${limit}`, `d${limit}`]) {
          const given = query({ limit: String(limit), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
          assert.equal({ ...validation.listQuery(given) }, { limit, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
        }
      }
    }
  }
});

test.run();
