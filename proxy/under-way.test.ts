// The list of exchanges under way: the order finished ones are handed on in, --timeout's cut, and what
// stop() is given to cut.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UnderWay, type UnderWayEntry } from './under-way.ts';

const t = suite('proxy: the exchanges under way');

class Entry implements UnderWayEntry {
  prevArrived: UnderWayEntry | undefined = undefined;
  nextArrived: UnderWayEntry | undefined = undefined;
  dueAtMs = 0;
  over = false;
  constructor(readonly seq: number) {}
}

function listOf(timeoutMs = 60_000) {
  const handed: number[] = [];
  const expired: number[] = [];
  const list = new UnderWay<Entry>(timeoutMs, { handOn: (e) => handed.push(e.seq), expire: (e) => expired.push(e.seq) });
  const entries = new Map<number, Entry>();
  const arrive = (...seqs: number[]) => {
    for (const seq of seqs) {
      const entry = new Entry(seq);
      entries.set(seq, entry);
      list.arrived(entry);
    }
  };
  const finish = (...seqs: number[]) => {
    for (const seq of seqs) list.finished(entries.get(seq)!);
  };
  return { list, handed, expired, arrive, finish, entries };
}

const orders: Array<{ name: string; finished: number[]; handed: number[]; waiting: number }> = [
  { name: 'in arrival order', finished: [1, 2, 3, 4, 5], handed: [1, 2, 3, 4, 5], waiting: 0 },
  { name: 'out of order', finished: [3, 1, 5, 2, 4], handed: [1, 2, 3, 4, 5], waiting: 0 },
  { name: 'the first still under way', finished: [2, 3, 4, 5], handed: [], waiting: 4 },
  { name: 'one in the middle under way', finished: [1, 2, 4, 5], handed: [1, 2], waiting: 2 },
  { name: 'finished twice', finished: [1, 1, 2, 2], handed: [1, 2], waiting: 0 },
];

for (const { name, finished, handed, waiting } of orders)
  t(`finished exchanges are handed on in the order their requests arrived: ${name}`, () => {
    const run = listOf();
    run.arrive(1, 2, 3, 4, 5);
    run.finish(...finished);
    assert.equal(run.handed, handed);
    assert.is(run.list.waiting, waiting);
    assert.is(run.list.open, 5 - new Set(finished).size);
  });

t('a handed-on exchange keeps no link to the list (a dead one in the old generation holds no young one)', () => {
  const run = listOf();
  run.arrive(1, 2, 3);
  run.finish(2, 1);
  for (const seq of [1, 2]) {
    assert.is(run.entries.get(seq)!.prevArrived, undefined);
    assert.is(run.entries.get(seq)!.nextArrived, undefined);
  }
  assert.is(run.entries.get(3)!.prevArrived, undefined, 'the first under way is first on the list');
});

t('one whose handing on throws holds up none after it', () => {
  const handed: number[] = [];
  const list = new UnderWay<Entry>(60_000, {
    handOn: (e) => {
      handed.push(e.seq);
      if (e.seq === 1) throw new Error('a bug in the judge');
    },
    expire: () => {},
  });
  const [a, b] = [new Entry(1), new Entry(2)];
  list.arrived(a);
  list.arrived(b);
  list.finished(b);
  list.finished(a);
  assert.equal(handed, [1, 2]);
});

t('stop() is given the ones not over, in arrival order', () => {
  const run = listOf();
  run.arrive(1, 2, 3, 4);
  run.finish(2, 4);
  assert.equal(
    run.list.openOnes().map((e) => e.seq),
    [1, 3],
  );
});

t('an exchange past the timeout is expired once; one finished before it never is; the sweep stops with none open', async () => {
  const run = listOf(20);
  run.arrive(1, 2);
  run.finish(2);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(run.expired, [1], 'expired once, though the sweep ran again while it was not finished');
  run.arrive(3);
  run.finish(3);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(run.expired, [1]);
  run.finish(1);
  assert.equal(run.handed, [1, 2, 3]);
  assert.is(run.list.open, 0);
});

t('a cut that finishes the exchange at once, during the sweep, ends it cleanly', async () => {
  const handed: number[] = [];
  const list: UnderWay<Entry> = new UnderWay<Entry>(10, { handOn: (e) => handed.push(e.seq), expire: (e) => list.finished(e) });
  const entries = [1, 2, 3].map((seq) => new Entry(seq));
  for (const entry of entries) list.arrived(entry);
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(handed, [1, 2, 3]);
  assert.is(list.open, 0);
});

t.run();
