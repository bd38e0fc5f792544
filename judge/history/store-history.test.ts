// Each rule of the store's history: a history that breaks it, and one beside it that an order
// consistent with real time explains (overlaps are where a judge turns unfair).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../exchange.ts';
import { judgeStoreHistory, type HistoryRule } from './store-history.ts';
import { createPet, getPet, listPage, pet, shuffled } from './testing/exchanges.ts';

const a = pet(1, 'a');
const b = pet(2, 'b');

interface Case {
  name: string;
  history: () => Exchange[];
  found: HistoryRule[];
  tracked?: (name: string) => boolean;
}

const CASES: Case[] = [
  // ids-unique
  { name: 'two creates given one id', history: () => [createPet([0, 5], a), createPet([6, 9], { ...b, id: 1 })], found: ['ids-unique'] },
  { name: 'two creates given their own ids', history: () => [createPet([0, 5], a), createPet([6, 9], b)], found: [] },
  // fields-kept
  { name: 'a get shows another name', history: () => [createPet([0, 5], a), getPet([6, 9], 1, { ...a, name: 'z' })], found: ['fields-kept'] },
  {
    name: 'a list shows another status',
    history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=5', [{ ...a, status: 'sold' }])],
    found: ['fields-kept'],
  },
  {
    name: 'a 201 without a status, a get with one',
    history: () => {
      const ex = createPet([0, 5], a);
      return [{ ...ex, response: { ...ex.response!, body: JSON.stringify({ id: 1, name: 'a', categoryId: 1 }) } }, getPet([6, 9], 1, a)];
    },
    found: [],
  },
  { name: 'a get shows the pet as created', history: () => [createPet([0, 5], a), getPet([6, 9], 1, a)], found: [] },
  {
    name: 'another name on a pet the run does not track',
    history: () => [createPet([0, 5], a), getPet([6, 9], 1, { ...a, name: 'z' })],
    tracked: (name) => name.startsWith('run-'),
    found: [],
  },
  // refused-invisible
  {
    name: 'a refused create shows up',
    history: () => [createPet([0, 5], a, { status: 400 }), listPage([6, 9], '?limit=5', [{ ...a, id: 9 }])],
    tracked: () => true,
    found: ['refused-invisible'],
  },
  {
    name: 'a refused name anyone may use shows up, after a complete list showed none',
    history: () => [listPage([0, 1], '?limit=5', [b]), createPet([2, 5], a, { status: 400 }), listPage([6, 9], '?limit=5', [b, { ...a, id: 9 }])],
    found: ['refused-invisible'],
  },
  {
    name: 'a refused name anyone may use shows up, with no complete list before',
    history: () => [createPet([2, 5], a, { status: 400 }), listPage([6, 9], '?limit=5', [b, { ...a, id: 9 }])],
    found: [],
  },
  {
    name: 'a refused name anyone may use shows up, listed before the create too',
    history: () => [listPage([0, 1], '?limit=5', [{ ...a, id: 9 }]), createPet([2, 5], a, { status: 400 }), listPage([6, 9], '?limit=5', [{ ...a, id: 9 }])],
    found: [],
  },
  {
    name: 'a create refused with 429 shows up',
    history: () => [createPet([0, 5], a, { status: 429 }), getPet([6, 9], 9, { ...a, id: 9 })],
    tracked: () => true,
    found: ['refused-invisible'],
  },
  {
    name: 'a refused name another create carried shows up',
    history: () => [createPet([0, 5], a, { status: 400 }), createPet([0, 5], { ...a, id: 9 }), listPage([6, 9], '?limit=5', [{ ...a, id: 9 }])],
    found: [],
  },
  {
    name: 'a refused name shows up in a read answered before the create was sent',
    history: () => [listPage([0, 3], '?limit=5', [{ ...a, id: 9 }]), createPet([6, 9], a, { status: 400 })],
    found: [],
  },
  {
    name: 'a refused name the run does not track',
    history: () => [createPet([0, 5], a, { status: 400 }), listPage([6, 9], '?limit=5', [{ ...a, id: 9 }])],
    tracked: () => false,
    found: [],
  },
  // acknowledged-readable
  { name: 'a get after the 201 answers 404', history: () => [createPet([0, 5], a), getPet([6, 9], 1, 404)], found: ['acknowledged-readable'] },
  { name: 'a get overlapping the create answers 404', history: () => [createPet([0, 5], a), getPet([3, 9], 1, 404)], found: [] },
  { name: 'a get sent the millisecond the 201 came answers 404', history: () => [createPet([0, 5], a), getPet([5, 9], 1, 404)], found: [] },
  { name: 'a get with a trailing slash answers 404', history: () => [createPet([0, 5], a), respell(getPet([6, 9], 1, 404), '/v1/pets/1/')], found: [] },
  { name: 'a get of the id spelled 01 answers 404', history: () => [createPet([0, 5], a), respell(getPet([6, 9], 1, 404), '/v1/pets/01')], found: [] },
  { name: 'a get under another base answers 404', history: () => [createPet([0, 5], a), respell(getPet([6, 9], 1, 404), '/v2/pets/1')], found: [] },
  {
    name: 'a get with the method in lower case answers 404',
    history: () => {
      const ex = getPet([6, 9], 1, 404);
      return [createPet([0, 5], a), { ...ex, request: { ...ex.request, method: 'get' } }];
    },
    found: [],
  },
  { name: 'a get of an id nobody created answers 404', history: () => [createPet([0, 5], a), getPet([6, 9], 7, 404)], found: [] },
  // acknowledged-listed
  {
    name: 'a short page after the 201 leaves the pet out',
    history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=5', [b])],
    found: ['acknowledged-listed'],
  },
  {
    name: 'a short page of its status leaves the pet out',
    history: () => [createPet([0, 5], a), listPage([6, 9], '?status=available', [])],
    found: ['acknowledged-listed'],
  },
  { name: 'a page of another status leaves the pet out', history: () => [createPet([0, 5], a), listPage([6, 9], '?status=sold', [])], found: [] },
  { name: 'a page overlapping the create leaves the pet out', history: () => [createPet([0, 5], a), listPage([4, 9], '?limit=5', [])], found: [] },
  { name: 'a full page without a next link leaves the pet out', history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=1', [b])], found: [] },
  {
    name: 'a server without paging answers more than the limit and leaves the pet out',
    history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=2', [b, pet(3, 'c'), pet(4, 'd')])],
    found: [],
  },
  { name: 'a page whose query the contract does not describe', history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=5&sort=name', [])], found: [] },
  { name: 'an invalid limit answered 200', history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=0', [])], found: [] },
  {
    name: 'a quiet walk after the 201 leaves the pet out',
    history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=1', [b], '?limit=1&cursor=2'), listPage([10, 12], '?limit=1&cursor=2', [])],
    found: ['acknowledged-listed'],
  },
  {
    name: 'a walk during another create leaves the pet out',
    history: () => [
      createPet([0, 5], a),
      listPage([6, 9], '?limit=1', [b], '?limit=1&cursor=2'),
      createPet([8, 11], pet(3, 'c')),
      listPage([10, 12], '?limit=1&cursor=2', [pet(3, 'c')]),
    ],
    found: [],
  },
  {
    name: 'a walk while a create with no answer may land leaves the pet out',
    history: () => [
      createPet([0, 5], a),
      createPet([1, 2], pet(3, 'c'), 'none'),
      listPage([6, 9], '?limit=1', [b], '?limit=1&cursor=2'),
      listPage([10, 12], '?limit=1&cursor=2', []),
    ],
    found: [],
  },
  {
    name: 'a walk whose next page was never fetched',
    history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=1', [b], '?limit=1&cursor=2')],
    found: [],
  },
  {
    name: 'a next page fetched before the first was answered is no walk',
    history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=1', [b], '?limit=1&cursor=2'), listPage([7, 8], '?limit=1&cursor=2', [])],
    found: [],
  },
  // walk-repeats
  {
    name: 'a quiet walk lists a pet twice',
    history: () => [createPet([0, 5], a), listPage([6, 9], '?limit=1', [a], '?limit=1&o=1'), listPage([10, 12], '?limit=1&o=1', [a])],
    found: ['walk-repeats'],
  },
  {
    name: 'a walk during a create lists a pet twice (offset paging, newest first)',
    history: () => [
      createPet([0, 5], a),
      listPage([6, 9], '?limit=1', [a], '?limit=1&o=1'),
      createPet([7, 8], pet(3, 'c')),
      listPage([10, 12], '?limit=1&o=1', [a], '?limit=1&o=2'),
      listPage([13, 14], '?limit=1&o=2', []),
    ],
    found: [],
  },
  {
    name: 'one page lists a pet twice, while a create runs',
    history: () => [createPet([0, 20], b), listPage([6, 9], '?limit=5', [a, a])],
    found: ['walk-repeats'],
  },
  // real-time-order
  {
    name: 'two concurrent reads each see the pet the other lacks',
    history: () => [createPet([0, 100], a), createPet([0, 100], b), listPage([10, 90], '?limit=5', [a]), listPage([10, 90], '?status=available', [b])],
    found: ['real-time-order'],
  },
  {
    name: 'two concurrent reads, one sees one pet, the other both',
    history: () => [createPet([0, 100], a), createPet([0, 100], b), listPage([10, 90], '?limit=5', [a]), listPage([10, 90], '?status=available', [a, b])],
    found: [],
  },
  {
    name: 'a pet found, then not found, while its create runs',
    history: () => [createPet([0, 100], a), getPet([20, 30], 1, a), getPet([40, 50], 1, 404)],
    found: ['real-time-order'],
  },
  {
    name: 'a pet not found, then found, while its create runs',
    history: () => [createPet([0, 100], a), getPet([20, 30], 1, 404), getPet([40, 50], 1, a)],
    found: [],
  },
  {
    name: 'a pet found, then not found by overlapping reads, while its create runs',
    history: () => [createPet([0, 100], a), getPet([20, 45], 1, a), getPet([40, 50], 1, 404)],
    found: [],
  },
  {
    name: 'a read shows a pet before its create was sent',
    history: () => [getPet([0, 3], 1, a), createPet([10, 20], a)],
    found: ['real-time-order'],
  },
  // creates whose outcome is unknown
  {
    name: 'a create with no answer seen, then missing from a complete list',
    history: () => [createPet([0, 5], a, 'none'), listPage([50, 60], '?limit=5', [a]), listPage([70, 80], '?limit=5', [])],
    found: ['real-time-order'],
  },
  {
    name: 'a create refused with 429, sent again with no answer, seen, then missing',
    history: () => [
      createPet([0, 2], a, { status: 429 }),
      createPet([3, 5], a, 'none'),
      listPage([50, 60], '?limit=5', [a]),
      listPage([70, 80], '?limit=5', []),
    ],
    found: ['real-time-order'],
  },
  { name: 'a create with no answer never seen', history: () => [createPet([0, 5], a, 'none'), listPage([70, 80], '?limit=5', [])], found: [] },
  { name: 'a create answered 503 seen later', history: () => [createPet([0, 5], a, { status: 503 }), listPage([70, 80], '?limit=5', [a])], found: [] },
  {
    name: 'a create with no answer missing, then seen',
    history: () => [createPet([0, 5], a, 'none'), listPage([50, 60], '?limit=5', []), getPet([70, 80], 1, a)],
    found: [],
  },
  // other operations, other people's pets
  { name: 'a pet nobody here created', history: () => [listPage([0, 5], '?limit=5', [pet(40, 'x')]), getPet([6, 9], 41, 404)], found: [] },
  {
    name: 'a DELETE answered 204 takes the pet out of judgement',
    history: () => [createPet([0, 5], a), deletePet([6, 7], 1), getPet([8, 9], 1, 404)],
    found: [],
  },
  {
    name: 'an answer shaped by Prefer: a 201 with an example pet, a list of examples',
    history: () => [shaped(createPet([0, 5], a)), shaped(listPage([6, 9], '?limit=5', [pet(77, 'example')])), getPet([10, 12], 1, 404)],
    found: [],
  },
  {
    name: 'an answer that says it was injected: a 404',
    history: () => {
      const ex = getPet([6, 9], 1, 404);
      return [createPet([0, 5], a), { ...ex, response: { ...ex.response!, headers: { ...ex.response!.headers, 'x-fault-injected': 'code=404' } } }];
    },
    found: [],
  },
  {
    name: 'an id given again after a DELETE answered 204',
    history: () => [createPet([0, 5], a), deletePet([6, 7], 1), createPet([8, 9], { ...b, id: 1 })],
    found: [],
  },
  { name: 'HEAD carries no body', history: () => [createPet([0, 5], a), headList([6, 9])], found: [] },
];

function shaped(ex: Exchange): Exchange {
  return { ...ex, request: { ...ex.request, headers: { ...ex.request.headers, Prefer: 'example=first' } } };
}

function respell(ex: Exchange, path: string): Exchange {
  return { ...ex, request: { ...ex.request, url: `http://store.test${path}` } };
}

function deletePet(at: [number, number], id: number): Exchange {
  const ex = getPet(at, id, 404);
  return {
    ...ex,
    operationId: 'getPet',
    request: { ...ex.request, method: 'DELETE' },
    response: { status: 204, headers: {}, body: '' },
    outside: 'not in the description',
  };
}

function headList(at: [number, number]): Exchange {
  const ex = listPage(at, '?limit=5', []);
  return { ...ex, request: { ...ex.request, method: 'HEAD' }, response: { ...ex.response!, body: '' } };
}

for (const c of CASES) {
  test(`${c.found.length ? 'finds' : 'passes'}: ${c.name}`, () => {
    const history = c.history();
    const findings = judgeStoreHistory(history, c.tracked ? { tracked: c.tracked } : {});
    assert.equal(
      findings.map((f) => f.rule),
      c.found,
      findings.map((f) => f.message).join('\n'),
    );
    // Whatever order the exchanges are given in.
    for (let seed = 1; seed <= 3; seed++)
      assert.equal(
        judgeStoreHistory(shuffled(history, seed), c.tracked ? { tracked: c.tracked } : {}).map((f) => f.rule),
        c.found,
      );
    for (const f of findings) {
      assert.ok(f.exchanges.length > 0);
      assert.equal(
        f.exchanges.map((e) => e.seq),
        [...f.exchanges].sort((x, y) => x.sentAt - y.sentAt || x.seq - y.seq).map((e) => e.seq),
      );
    }
  });
}

test('a finding names the requests and when they were answered', () => {
  const [finding] = judgeStoreHistory([
    createPet([100, 112], a),
    listPage([120, 125], '?limit=1', [b], '?limit=1&cursor=2'),
    listPage([126, 130], '?limit=1&cursor=2', []),
  ]);
  assert.ok(finding);
  assert.match(finding.message, /^pet 1 \(created by request \d+, answered 201 at \+12 ms\) was missing from the complete list walk of requests \d+-\d+/);
  assert.match(finding.message, /after the 201$/);
  assert.equal(finding.exchanges.length, 3);
});

test('the chain of a contradiction is the fewest exchanges that force it', () => {
  const history = [
    createPet([0, 100], a),
    createPet([0, 100], b),
    listPage([10, 90], '?limit=5', [a]),
    listPage([10, 90], '?status=available', [b]),
    getPet([10, 90], 7, 404),
  ];
  const [finding] = judgeStoreHistory(history);
  assert.equal(finding?.exchanges.length, 4);
  assert.match(finding!.message, /created after itself/);
});

test.run();
