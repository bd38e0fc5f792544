import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isErrorBody, isPet, isPetList, jsonBody } from './shapes.js';

for (const [value, expected] of [
  [{ id: 1, name: 'Biscuit', categoryId: 1, status: 'available' }, true],
  [{ id: 1, name: 'Biscuit', categoryId: 1 }, true],
  [{ id: 1, name: 'Biscuit', categoryId: 1, status: 'adopted' }, false],
  [{ id: '1', name: 'Biscuit', categoryId: 1 }, false],
  [{ id: 1.5, name: 'Biscuit', categoryId: 1 }, false],
  [{ name: 'Biscuit', categoryId: 1 }, false],
  [{ id: 1, name: 7, categoryId: 1 }, false],
  [[{ id: 1, name: 'Biscuit', categoryId: 1 }], false],
  [null, false],
] as const) {
  test(`isPet(${JSON.stringify(value)}) is ${expected}`, () => {
    assert.is(isPet(value), expected);
  });
}

test('isPetList wants a bare array of pets, not a wrapper', () => {
  assert.ok(isPetList([]));
  assert.ok(isPetList([{ id: 1, name: 'a', categoryId: 2 }]));
  assert.not.ok(isPetList({ items: [] }));
  assert.not.ok(isPetList([{ id: 1 }]));
});

test('isErrorBody wants code, message and the HTTP status', () => {
  assert.ok(isErrorBody({ code: 'unauthorized', message: 'no key', status: 401 }, 401));
  assert.not.ok(isErrorBody({ code: 'unauthorized', message: 'no key', status: 401 }, 400));
  assert.not.ok(isErrorBody({ message: 'no key', status: 401 }));
  assert.not.ok(isErrorBody('unauthorized'));
});

test('jsonBody never throws', () => {
  assert.equal(jsonBody('[1]'), [1]);
  assert.is(jsonBody('{'), undefined);
  assert.is(jsonBody(null), undefined);
});

test.run();
