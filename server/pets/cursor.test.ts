import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeCursor, encodeCursor } from './cursor.ts';

test('a cursor round-trips the id it was made from', () => {
  for (const id of [0, 1, 42, 9_007_199_254_740_991]) assert.is(decodeCursor(encodeCursor(id)), id);
});

test('a cursor is the same text each time, past the number of cursors kept', () => {
  const first = Array.from({ length: 5000 }, (_, i) => encodeCursor(i));
  for (let i = 0; i < 5000; i++) {
    assert.is(encodeCursor(i), first[i]);
    assert.is(decodeCursor(first[i]!), i);
  }
});

test('a cursor is opaque: URL-safe, not the bare id', () => {
  const cursor = encodeCursor(17);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.not.equal(cursor, '17');
});

const foreign: Array<[string, string]> = [
  ['empty', ''],
  ['bare number', '17'],
  ['wrong prefix', Buffer.from('before:3').toString('base64url')],
  ['negative', Buffer.from('after:-3').toString('base64url')],
  ['leading zero', Buffer.from('after:03').toString('base64url')],
  ['beyond safe integers', Buffer.from('after:99999999999999999').toString('base64url')],
  ['not base64url', 'a+b/c='],
  ['too long', 'A'.repeat(100)],
];
for (const [name, cursor] of foreign) {
  test(`a cursor this server did not issue is refused: ${name}`, () => {
    assert.is(decodeCursor(cursor), undefined);
  });
}

test.run();
