// The proxy's bounded form: what it finds as exchanges complete, that it tells each finding once, and
// that what it holds stays within its bound however long the traffic.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../exchange.ts';
import { createStoreHistory } from './stream.ts';
import { judgeStoreHistory } from './store-history.ts';
import { createPet, getPet, listPage, pet } from './testing/exchanges.ts';

const a = pet(1, 'a');
const b = pet(2, 'b');

/** Fed in the order the answers came, as the proxy judges them. */
function stream(history: Exchange[], options: Parameters<typeof createStoreHistory>[0] = {}) {
  const store = createStoreHistory(options);
  return [...history].sort((x, y) => x.receivedAt - y.receivedAt).flatMap((ex) => store.add(ex));
}

const BROKEN: Array<[string, () => Exchange[]]> = [
  ['two creates given one id', () => [createPet([0, 5], a), createPet([6, 9], { ...b, id: 1 })]],
  ['a get after the 201 answers 404', () => [createPet([0, 5], a), getPet([6, 9], 1, 404)]],
  ['a get shows another name', () => [createPet([0, 5], a), getPet([6, 9], 1, { ...a, name: 'z' })]],
  ['a short page after the 201 leaves the pet out', () => [createPet([0, 5], a), listPage([6, 9], '?limit=5', [b])]],
  [
    'a refused create shows up, after a complete list showed none',
    () => [listPage([0, 1], '?limit=5', []), createPet([2, 5], a, { status: 400 }), listPage([6, 9], '?limit=5', [{ ...a, id: 9 }])],
  ],
  [
    'a quiet walk after the 201 leaves the pet out',
    () => [createPet([0, 5], a), listPage([6, 9], '?limit=1', [b], '?limit=1&cursor=2'), listPage([10, 12], '?limit=1&cursor=2', [])],
  ],
  [
    'a quiet walk by the same links as an earlier walk during creates leaves a pet out',
    () => [
      createPet([0, 5], a),
      createPet([0, 5], b),
      listPage([2, 3], '?limit=1', [a], '?limit=1&cursor=1'),
      listPage([3, 4], '?limit=1&cursor=1', [b]),
      listPage([10, 11], '?limit=1', [a], '?limit=1&cursor=1'),
      listPage([12, 13], '?limit=1&cursor=1', []),
    ],
  ],
  ['a quiet walk lists a pet twice', () => [listPage([6, 9], '?limit=1', [a], '?limit=1&o=1'), listPage([10, 12], '?limit=1&o=1', [a])]],
  ['a pet found, then not found, while its create runs', () => [createPet([0, 100], a), getPet([20, 30], 1, a), getPet([40, 50], 1, 404)]],
  [
    'two concurrent reads each see the pet the other lacks',
    () => [createPet([0, 100], a), createPet([0, 100], b), listPage([10, 90], '?limit=5', [a]), listPage([10, 90], '?status=available', [b])],
  ],
];

for (const [name, history] of BROKEN) {
  test(`found as it passes, as the whole history finds it: ${name}`, () => {
    const h = history();
    const whole = judgeStoreHistory(h).map((f) => f.rule);
    assert.ok(whole.length > 0);
    assert.equal([...new Set(stream(h).map((f) => f.rule))].sort(), [...new Set(whole)].sort());
  });
}

test('a history an order explains passes as it passes too', () => {
  const h = [
    createPet([0, 5], a),
    getPet([3, 9], 1, 404),
    getPet([6, 9], 1, a),
    listPage([4, 9], '?limit=5', []),
    listPage([6, 9], '?limit=5', [a]),
    createPet([10, 20], b),
    listPage([12, 14], '?limit=1', [a], '?limit=1&cursor=1'),
    listPage([15, 18], '?limit=1&cursor=1', [b]),
  ];
  assert.equal(judgeStoreHistory(h), []);
  assert.equal(stream(h), []);
});

test('a finding is told once, however often its window is judged again', () => {
  const store = createStoreHistory();
  const told = [createPet([0, 5], a), getPet([6, 9], 1, 404), getPet([10, 12], 1, a), getPet([13, 14], 1, a)].flatMap((ex) => store.add(ex));
  assert.equal(
    told.map((f) => f.rule),
    ['acknowledged-readable'],
  );
});

test('a create still in flight keeps a walk from being one read', () => {
  const create = createPet([7, 30], pet(3, 'c'));
  const walk = [listPage([6, 9], '?limit=1', [a], '?limit=1&o=1'), listPage([10, 12], '?limit=1&o=1', [a])];
  const told = (withSent: boolean) => {
    const store = createStoreHistory();
    if (withSent) store.sent({ ...create, response: undefined, receivedAt: create.sentAt });
    return walk.flatMap((ex) => store.add(ex)).map((f) => f.rule);
  };
  assert.equal(told(false), ['walk-repeats']);
  assert.equal(told(true), []);
});

test('a pet a DELETE answered 2xx for is no longer judged', () => {
  const del = getPet([6, 7], 1, 404);
  const history = [
    createPet([0, 5], a),
    { ...del, request: { ...del.request, method: 'DELETE' }, response: { status: 204, headers: {}, body: '' } },
    getPet([8, 9], 1, 404),
  ];
  assert.equal(stream(history), []);
});

test('what it holds stays within its bound, whatever the traffic', () => {
  const store = createStoreHistory({ maxOpsPerResource: 4, maxResources: 50 });
  let most = 0;
  for (let i = 0; i < 5_000; i++) {
    const t = i * 10;
    const p = pet(i + 1, `p${i}`, ['available', 'pending', 'sold'][i % 3]);
    store.add(createPet([t, t + 3], p));
    store.add(getPet([t + 4, t + 5], i + 1, p));
    store.add(getPet([t + 4, t + 5], 1_000_000 + i, 404));
    store.add(listPage([t + 4, t + 6], `?limit=2&status=${p.status}`, [p], '?limit=2&cursor=x'));
    most = Math.max(most, store.size());
  }
  assert.ok(most <= 4 * 50, `held ${most}`);
  assert.ok(store.size() > 0);
});

test.run();
