import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PartitionList, type ListedPartition } from './partition-list.ts';

interface Entry extends ListedPartition {
  idle: boolean;
}
const entry = (id: string, idle = false): Entry => ({ id, prev: null, next: null, idle });
const ids = (list: PartitionList<Entry>) => [...list].map((e) => e.id);
const filled = (...names: string[]) => {
  const list = new PartitionList<Entry>();
  const entries = names.map((n) => entry(n, n.startsWith('idle')));
  for (const e of entries) list.append(e);
  return { list, entries };
};

// [case, operation on (list, entries), order after, first after]
const cases: Array<[string, (list: PartitionList<Entry>, e: Entry[]) => void, string[]]> = [
  ['append keeps arrival order', () => {}, ['a', 'b', 'c']],
  ['remove the first', (l, e) => l.remove(e[0]!), ['b', 'c']],
  ['remove the middle', (l, e) => l.remove(e[1]!), ['a', 'c']],
  ['remove the last', (l, e) => l.remove(e[2]!), ['a', 'b']],
  ['remove twice is harmless', (l, e) => (l.remove(e[1]!), l.remove(e[1]!)), ['a', 'c']],
  ['move the first to the end', (l, e) => l.moveToEnd(e[0]!), ['b', 'c', 'a']],
  ['move the last to the end', (l, e) => l.moveToEnd(e[2]!), ['a', 'b', 'c']],
  ['an entry removed is not moved back in', (l, e) => (l.remove(e[0]!), l.moveToEnd(e[0]!)), ['b', 'c']],
  ['clear', (l) => l.clear(), []],
];
for (const [name, operate, order] of cases) {
  test(`list: ${name}`, () => {
    const { list, entries } = filled('a', 'b', 'c');
    operate(list, entries);
    assert.equal(ids(list), order);
    assert.is(list.size, order.length);
    assert.is(list.first()?.id, order[0]);
    for (const id of order) assert.ok(list.get(id), `${id} found by id`);
  });
}

test('a pass examines at most its budget per step and removes only idle entries', () => {
  const { list } = filled('idle1', 'a', 'idle2', 'b', 'idle3');
  list.startPass();
  assert.equal(
    list.passStep(2, (e) => e.idle),
    { examined: 2, removed: 1 },
  );
  assert.ok(list.passing);
  assert.equal(
    list.passStep(10, (e) => e.idle),
    { examined: 3, removed: 2 },
  );
  assert.not.ok(list.passing);
  assert.equal(ids(list), ['a', 'b']);
});

test('a pass goes on past an entry removed or moved under its cursor', () => {
  const { list, entries } = filled('a', 'b', 'c', 'd');
  list.startPass();
  list.passStep(1, () => false); // the cursor stands on b
  list.remove(entries[1]!);
  assert.equal(
    list.passStep(1, () => false),
    { examined: 1, removed: 0 },
  ); // c
  list.moveToEnd(entries[3]!); // d, under the cursor, moves to the end: still examined once
  assert.equal(
    list.passStep(10, () => false),
    { examined: 1, removed: 0 },
  );
  assert.not.ok(list.passing);
});

test.run();
