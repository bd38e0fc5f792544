import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_AGE_MS, PetCache, pageKey } from './pet-cache.ts';
import type { Pet } from '../types.ts';

const pet = (id: number, name = `Pet ${id}`): Pet => ({ id, name, categoryId: 1, status: 'available' });
const clock = () => {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
};

test('a page read after version v answers requests that saw v or less, never one that saw a later version', () => {
  const c = clock();
  const cache = new PetCache(c.now);
  const page = { pets: [pet(1)], hasMore: false };
  const key = pageKey({ limit: 20 });
  cache.keepPage(key, page, { version: 5, epoch: 1 });
  assert.is(cache.page(key, { version: 5, epoch: 1 }), page);
  assert.is(cache.page(key, { version: 4, epoch: 1 }), page, 'a request that started before the 6th create may get what came after');
  assert.is(cache.page(key, { version: 6, epoch: 1 }), undefined, 'a create was acknowledged after the page was read');
  assert.is(cache.page(key, { version: 5, epoch: 2 }), undefined, 'a reset (or a Redis that lost its data) since');
  assert.is(cache.page(pageKey({ limit: 20, status: 'sold' }), { version: 5, epoch: 1 }), undefined, 'another query');
  c.advance(MAX_AGE_MS);
  assert.is(cache.page(key, { version: 5, epoch: 1 }), undefined, 'older than MAX_AGE_MS');
});

test('a page read after an earlier version never replaces one read after a later one', () => {
  const cache = new PetCache(clock().now);
  const key = pageKey({ limit: 20, afterId: 3 });
  const newer = { pets: [pet(4), pet(5)], hasMore: false };
  cache.keepPage(key, newer, { version: 7, epoch: 1 });
  cache.keepPage(key, { pets: [pet(4)], hasMore: false }, { version: 6, epoch: 1 });
  assert.is(cache.page(key, { version: 7, epoch: 1 }), newer);
});

test('a pet answers every request of its epoch, whatever the creates since, until it is MAX_AGE_MS old', () => {
  const c = clock();
  const cache = new PetCache(c.now);
  const kept = pet(9);
  cache.keepPet(kept, { version: 3, epoch: 1 });
  assert.is(cache.pet(9, { version: 300, epoch: 1 }), kept);
  assert.is(cache.pet(9, { version: 3, epoch: 2 }), undefined);
  assert.is(cache.pet(8, { version: 3, epoch: 1 }), undefined);
  c.advance(MAX_AGE_MS);
  assert.is(cache.pet(9, { version: 3, epoch: 1 }), undefined);
});

test('intern: the same object for a row that says the same, a new one for a row that does not', () => {
  const cache = new PetCache();
  const first = cache.intern(pet(1));
  assert.is(cache.intern(pet(1)), first);
  const renamed = pet(1, 'Other');
  assert.is(cache.intern(renamed), renamed);
  assert.is(cache.intern(pet(1, 'Other')), renamed);
});

test.run();
