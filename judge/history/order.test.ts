// Points in intervals with "not before" and "before" between them: placed when they can be, and each
// contradiction returned with the fewest edges that force it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contradictions, type Edge, type Interval } from './order.ts';

const le = (from: number, to: number): Edge<string> => ({ from, to, strict: false, label: `${from}<=${to}` });
const lt = (from: number, to: number): Edge<string> => ({ from, to, strict: true, label: `${from}<${to}` });
const found = (points: Interval[], edges: Edge<string>[]) => contradictions(points, edges).map((c) => `${c.kind}: ${c.chain.map((e) => e.label).join(' ')}`);

const CASES: Array<[string, Interval[], Edge<string>[], string[]]> = [
  [
    'overlapping points in either order',
    [
      { lo: 0, hi: 10 },
      { lo: 5, hi: 15 },
    ],
    [lt(1, 0)],
    [],
  ],
  [
    'a point after one that cannot come before its end',
    [
      { lo: 0, hi: 10 },
      { lo: 11, hi: 15 },
    ],
    [lt(1, 0)],
    ['bound: 1<0'],
  ],
  [
    'not before, at the same moment',
    [
      { lo: 5, hi: 10 },
      { lo: 0, hi: 5 },
    ],
    [le(0, 1), le(1, 0)],
    [],
  ],
  [
    'before, at the only common moment',
    [
      { lo: 5, hi: 10 },
      { lo: 0, hi: 5 },
    ],
    [lt(0, 1)],
    ['bound: 0<1'],
  ],
  [
    'an open upper bound takes any push',
    [
      { lo: 50, hi: 60 },
      { lo: 0, hi: Infinity },
    ],
    [lt(0, 1)],
    [],
  ],
  [
    'a cycle of not-before',
    [
      { lo: 0, hi: 10 },
      { lo: 0, hi: 10 },
      { lo: 0, hi: 10 },
    ],
    [le(0, 1), le(1, 2), le(2, 0)],
    [],
  ],
  [
    'a cycle with one strict edge',
    [
      { lo: 0, hi: 10 },
      { lo: 0, hi: 10 },
      { lo: 0, hi: 10 },
    ],
    [le(0, 1), lt(1, 2), le(2, 0)],
    ['cycle: 1<2 2<=0 0<=1'],
  ],
  [
    'the fewest edges, not the first chain found',
    [
      { lo: 20, hi: 30 },
      { lo: 0, hi: 100 },
      { lo: 0, hi: 100 },
      { lo: 0, hi: 100 },
      { lo: 0, hi: 15 },
    ],
    [lt(0, 1), le(1, 2), le(2, 3), le(3, 4), lt(0, 4)],
    ['bound: 0<4'],
  ],
];

for (const [name, points, edges, expected] of CASES) test(name, () => assert.equal(found(points, edges), expected));

test.run();
