// The order-free judgement of answers sent at once: each table row is judged in the order written
// and in shuffled orders, and must get the same verdict, word for word, every time.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { judgeCount, judgeRemaining, type Answer, type Before, type Verdict } from './concurrency.ts';

const RESET = 1_767_225_660;
const LIMIT = 60;

const ok = (remaining: number, more: Partial<Answer> = {}): Answer => ({ operation: 'listPets', status: 200, limit: LIMIT, remaining, reset: RESET, ...more });
const no = (remaining = 0, more: Partial<Answer> = {}): Answer => ({ operation: 'listPets', status: 429, limit: LIMIT, remaining, reset: RESET, ...more });
/** A correct limiter's answers to `sent` requests at once when `left` remained: left-1 down to 0, then 429s. */
const exact = (left: number, sent: number) => Array.from({ length: sent }, (_, i) => (i < left ? ok(left - 1 - i) : no()));

/** Orders the answers could have arrived in: as written, reversed, rotated and shuffled (seeded). */
function orders(answers: readonly Answer[]): Answer[][] {
  let seed = 7;
  const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
  const shuffled = () => {
    const copy = [...answers];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  };
  const half = Math.floor(answers.length / 2);
  return [[...answers], [...answers].reverse(), [...answers.slice(half), ...answers.slice(0, half)], shuffled(), shuffled(), shuffled(), shuffled()];
}

type Expected = 'pass' | 'unjudged' | RegExp;

function holds(verdict: Verdict, expected: Expected, what: string): void {
  if (expected === 'unjudged') return assert.not.ok(verdict.judged, `${what}: judged ${JSON.stringify(verdict)}`);
  assert.ok(verdict.judged, `${what}: not judged (${verdict.judged ? '' : verdict.why})`);
  const problems = verdict.judged ? verdict.problems : [];
  if (expected === 'pass') assert.equal(problems, [], what);
  else assert.ok(problems.length > 0 && problems.some((p) => expected.test(p)), `${what}: ${problems.join(' | ')}`);
}

/** The same verdict whatever order the answers arrived in, and the one expected. */
function orderFree(judge: (answers: Answer[]) => Verdict, answers: readonly Answer[], expected: Expected): void {
  const [first, ...others] = orders(answers).map(judge);
  holds(first!, expected, 'as written');
  for (const [i, verdict] of others.entries()) assert.equal(verdict, first, `order ${i + 1} judged otherwise`);
}

const remaining = suite('judgeRemaining: no Remaining twice among answers admitted at once in one window');

const REMAINING: Array<[string, Answer[], Before | undefined, Expected]> = [
  ['a correct burst past the allowance', exact(5, 8), { remaining: 5, reset: RESET }, 'pass'],
  [
    'a correct burst inside the allowance (the run key: nothing known before)',
    exact(40, 8).map((a) => ({ ...a, remaining: a.remaining! + 200 })),
    undefined,
    'pass',
  ],
  ['values falling further than one (another client of the key in between)', [ok(9), ok(7), ok(4), ok(3)], undefined, 'pass'],
  ['a racy counter: three answers read the same count', [ok(4), ok(4), ok(4), ok(3), no()], undefined, /Remaining 4 on 3 answers/],
  ['two repeated values, both named', [ok(4), ok(4), ok(2), ok(2), ok(1)], undefined, /Remaining 2 on 2 answers/],
  [
    'a value not below what the window had before the burst',
    [ok(5), ok(4), ok(3)],
    { remaining: 5, reset: RESET },
    /Remaining 5 after a burst sent when the window had 5 left/,
  ],
  [
    'a new window during the burst: the same value in two windows is no repeat',
    [ok(1), ok(0), ok(59, { reset: RESET + 60 }), ok(58, { reset: RESET + 60 }), ok(1, { reset: RESET + 60 })],
    undefined,
    'pass',
  ],
  [
    'a sliding window that freed room: another Reset, so the same value again is no repeat',
    [ok(3), ok(2), ok(2, { reset: RESET + 1 }), ok(1, { reset: RESET + 1 })],
    undefined,
    'pass',
  ],
  [
    'limits per operation (left open): the same value for a create and a list is no repeat',
    [ok(7), ok(7, { operation: 'createPet', status: 201 })],
    undefined,
    'unjudged',
  ],
  [
    'per operation, a repeat within one operation still is',
    [ok(7), ok(7), ok(7, { operation: 'createPet', status: 201 }), ok(6, { operation: 'createPet', status: 201 })],
    undefined,
    /Remaining 7 on 2 answers admitted at once \(listPets/,
  ],
  ['refusals all say 0: not admitted, not counted', [ok(0), no(), no(), no()], undefined, 'unjudged'],
  ['one admitted answer: nothing to compare', [ok(3), no()], undefined, 'unjudged'],
  ['answers without the headers', [ok(3, { remaining: null }), ok(2, { remaining: null })], undefined, 'unjudged'],
  ['one admitted answer, but the window before is known: it must be below', [ok(3), no(), no()], { remaining: 3, reset: RESET }, /Remaining 3 after a burst/],
];

for (const [name, answers, before, expected] of REMAINING) remaining(name, () => orderFree((a) => judgeRemaining(a, before), answers, expected));

remaining.run();

const count = suite('judgeCount: exactly the allowance admitted, each refusal at Remaining 0, by counts alone');

const BEFORE: Before = { remaining: 5, reset: RESET };

const COUNT: Array<[string, Answer[], Before, Expected]> = [
  ['Remaining + 3 sent: the allowance admitted, three refused', exact(5, 8), BEFORE, 'pass'],
  ['fewer sent than the allowance: all admitted', exact(5, 4).map((a, i) => ({ ...a, remaining: 4 - i })), BEFORE, 'pass'],
  ['nothing left: every request refused', exact(0, 3), { remaining: 0, reset: RESET }, 'pass'],
  [
    'a racy limiter serves two past the allowance',
    [...exact(5, 5), ok(0), ok(0), no()],
    BEFORE,
    /7 of 8 requests sent at once were admitted when the window had 5 left: over-admitted/,
  ],
  ['a 429 inside the allowance', [...exact(5, 4), no(), no(), no(), no()], BEFORE, /4 of 8 .* refused inside the allowance/],
  ['a refusal that says room is left', [...exact(5, 5), no(0), no(2), no(1)], BEFORE, /2 refusal\(s\) of the burst announce Remaining 1, 2, not 0/],
  ['a 403 during a ban counts as a refusal', [...exact(5, 5), no(0, { status: 403 }), no(), no()], BEFORE, 'pass'],
  ['a 503 among the answers: the count is not known', [...exact(5, 7), ok(0, { status: 503 })], BEFORE, 'unjudged'],
  ['no answer at all to one request', [...exact(5, 7), { operation: 'listPets', status: 0, limit: null, remaining: null, reset: null }], BEFORE, 'unjudged'],
  ['the window moved during the burst', [...exact(5, 5), ok(59, { reset: RESET + 60 }), ok(58, { reset: RESET + 60 }), no()], BEFORE, 'unjudged'],
  ['answers without Reset', exact(5, 8).map((a) => ({ ...a, reset: null })), BEFORE, 'unjudged'],
];

for (const [name, answers, before, expected] of COUNT) count(name, () => orderFree((a) => judgeCount(a, before), answers, expected));

count('the words of a verdict do not depend on the order either', () => {
  const racy = [ok(4), ok(4), ok(3), ok(3), no(2), no(1), ok(9, { operation: 'createPet' }), ok(9, { operation: 'createPet' })];
  const seen = new Set(orders(racy).map((a) => JSON.stringify([judgeRemaining(a), judgeCount(a, BEFORE)])));
  assert.is(seen.size, 1);
});

count.run();
