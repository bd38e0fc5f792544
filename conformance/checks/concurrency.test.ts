// The concurrency checks' verdicts, read from the window rules: each table row is fed to the rules in
// the order written and in shuffled orders, and must get the same verdict, word for word, every time.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readSnapshot, type Snapshot } from '../../spec/rules/snapshot.js';
import { createWindowRules } from '../../judge/rules/window-rules.js';
import { judgeAtOnce, judgeBurst, type Answered, type Before, type Verdict } from './concurrency-verdicts.ts';

const RESET = 1_767_225_660;
const LIMIT = 60;
/** Well inside the window: nothing can have freed a slot yet. */
const INSIDE = (RESET - 30) * 1000;
/** Just past the Reset: a sliding window frees its oldest slot, a fixed one ends. */
const AT_RESET = RESET * 1000 + 300;

interface Answer {
  status?: number;
  remaining?: number | null;
  reset?: number;
  operation?: string;
  atMs?: number;
}

let refs = 0;
/** One answer as the kit reads it (no Date header: the client's clock), with a ref of its own. */
function snapshot({ status = 200, remaining = null, reset = RESET, atMs = INSIDE }: Answer): Snapshot {
  const headers: Record<string, string> = { 'x-ratelimit-limit': String(LIMIT), 'x-ratelimit-reset': String(reset) };
  if (remaining !== null) headers['x-ratelimit-remaining'] = String(remaining);
  if (status === 429) {
    headers['retry-after'] = String(Math.max(1, reset - Math.floor(atMs / 1000)));
    headers['cache-control'] = 'no-store';
  }
  return readSnapshot({ status, headers, receivedAtMs: atMs, sentAtMs: atMs, ref: `answer ${++refs}` }, { dateHeader: false });
}

const ok = (remaining: number, more: Answer = {}): Answer => ({ remaining, ...more });
const no = (remaining = 0, more: Answer = {}): Answer => ({ status: 429, remaining, ...more });
/** A correct limiter's answers to `sent` requests at once when `left` remained: left-1 down to 0, then 429s. */
const exact = (left: number, sent: number, more: Answer = {}) => Array.from({ length: sent }, (_, i) => (i < left ? ok(left - 1 - i, more) : no(0, more)));

/** Orders the answers could have arrived in: as written, reversed, rotated and shuffled (seeded). */
function orders<T>(answers: readonly T[]): T[][] {
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

/** A verdict in words: what is compared across orders (refs name answers, not what they say). */
const words = (v: Verdict): { judged: boolean; problems?: string[]; why?: string } =>
  v.judged ? { judged: true, problems: v.problems.map((p) => `${p.kind}: ${p.detail}`) } : v;

function holds(verdict: Verdict, expected: Expected, what: string): void {
  if (expected === 'unjudged') return assert.not.ok(verdict.judged, `${what}: judged ${JSON.stringify(words(verdict))}`);
  assert.ok(verdict.judged, `${what}: not judged (${verdict.judged ? '' : verdict.why})`);
  const problems = words(verdict).problems ?? [];
  if (expected === 'pass') assert.equal(problems, [], what);
  else assert.ok(problems.length > 0 && problems.some((p) => expected.test(p)), `${what}: ${problems.join(' | ')}`);
}

// ---------------------------------------------------------------------------------------------

const burst = suite('judgeBurst: burst-exact and burst-remaining-distinct read from the window rules on a burst past the allowance');

/** The verdicts of the rules on a burst sent when the key's last answer said `before`, fed in the given order. */
function judgeBurstIn(before: Before, answers: readonly Answer[]) {
  const rules = createWindowRules();
  rules.observe([snapshot(ok(before.remaining, { reset: before.reset, atMs: INSIDE - 1000 }))]);
  const snapshots = answers.map(snapshot);
  return judgeBurst(rules.observe(snapshots), snapshots, before);
}

const BEFORE: Before = { remaining: 5, reset: RESET };

const BURSTS: Array<[string, Before, Answer[], { exact: Expected; distinct: Expected }]> = [
  ['Remaining + 3 sent: the allowance admitted, three refused', BEFORE, exact(5, 8), { exact: 'pass', distinct: 'pass' }],
  ['nothing left: every request refused', { remaining: 0, reset: RESET }, exact(0, 3), { exact: 'pass', distinct: 'unjudged' }],
  [
    'a racy counter: Remaining repeated, and more admitted than the allowance',
    BEFORE,
    [ok(4), ok(4), ok(3), ok(3), ok(1), ok(0), no(), no()],
    { exact: /over_admitted: request 61 admitted in the window resetting at \d+ with Limit 60/, distinct: /remaining_not_decremented: Remaining 4 after 4/ },
  ],
  [
    'over-admission: two served past the allowance',
    BEFORE,
    [...exact(5, 5), ok(0), ok(0), no()],
    { exact: /over_admitted: request 61 admitted/, distinct: /remaining_not_decremented: Remaining 0 after 0/ },
  ],
  [
    'under-admission: a 429 inside the allowance',
    BEFORE,
    [...exact(5, 4), no(), no(), no(), no()],
    { exact: /under_admitted: 429 after only 59 of 60/, distinct: 'pass' },
  ],
  [
    'a 429 that says room is left',
    BEFORE,
    [...exact(5, 5), no(0), no(2), no(1)],
    { exact: /remaining_nonzero_on_429: 429 with Remaining [12]/, distinct: 'pass' },
  ],
  [
    'a sliding window that freed a slot mid-burst: a new Reset, the same Remaining again is no repeat',
    BEFORE,
    [...[4, 3, 2].map((r) => ok(r, { atMs: AT_RESET })), ...exact(3, 5, { reset: RESET + 5, atMs: AT_RESET })],
    { exact: 'pass', distinct: 'pass' },
  ],
  [
    'the window moved before the burst was decided: a new window with room, nothing refused',
    BEFORE,
    Array.from({ length: 8 }, (_, i) => ok(59 - i, { reset: RESET + 60, atMs: AT_RESET })),
    { exact: 'unjudged', distinct: 'pass' },
  ],
  ['a 503 among the answers: the count is not known', BEFORE, [...exact(5, 7), { status: 503 }], { exact: 'unjudged', distinct: 'pass' }],
  ['no answer at all to one request', BEFORE, [...exact(5, 7), { status: 0 }], { exact: 'unjudged', distinct: 'pass' }],
  ['answers without Remaining', BEFORE, exact(5, 8).map((a) => ({ ...a, remaining: null })), { exact: 'unjudged', distinct: 'unjudged' }],
];

for (const [name, before, answers, expected] of BURSTS) {
  burst(name, () => {
    const [first, ...others] = orders(answers).map((order) => judgeBurstIn(before, order));
    holds(first!.exact, expected.exact, 'burst-exact, as written');
    holds(first!.distinct, expected.distinct, 'burst-remaining-distinct, as written');
    for (const [i, verdict] of others.entries()) {
      assert.equal(words(verdict.exact), words(first!.exact), `burst-exact: order ${i + 1} judged otherwise`);
      assert.equal(words(verdict.distinct), words(first!.distinct), `burst-remaining-distinct: order ${i + 1} judged otherwise`);
    }
  });
}

burst('a burst that could not be judged says why', () => {
  const moved = judgeBurstIn(BEFORE, BURSTS[7]![2]);
  assert.ok(!moved.exact.judged && /the window moved during the burst/.test(moved.exact.why), JSON.stringify(moved.exact));
  const unknown = judgeBurstIn(BEFORE, BURSTS[8]![2]);
  assert.ok(!unknown.exact.judged && /1 of the 8 answers were neither admitted nor refused \(503\)/.test(unknown.exact.why), JSON.stringify(unknown.exact));
});

burst.run();

// ---------------------------------------------------------------------------------------------

const atOnce = suite('judgeAtOnce: no Remaining repeated or risen among answers of --api-key sent at once, per operation');

const list = (remaining: number, more: Answer = {}): Answer => ok(remaining, { operation: 'listPets', ...more });
const create = (remaining: number, more: Answer = {}): Answer => ok(remaining, { status: 201, operation: 'createPet', ...more });

const BATCHES: Array<[string, Answer[], Answer[], Expected]> = [
  // Without an answer before them, answers built after the others were counted (Remaining as of the answer) explain a repeat.
  ['three answers with the same count, nothing before them: Remaining as of the answer', [], [list(4), list(4), list(4), list(3)], 'pass'],
  [
    'a racy counter: three answers read the same count after one that had left 5',
    [list(5)],
    [list(4), list(4), list(4), list(3)],
    /remaining_not_decremented: Remaining 4/,
  ],
  ['distinct values, falling further than one (other clients of the key in between)', [], [list(9), list(7), list(4), list(3)], 'pass'],
  [
    'a value not below what the last answer before the batch had left',
    [list(5)],
    [list(5), list(4), list(3)],
    /Remaining 5 after 5 for an admitted request \(listPets, 3 answer\(s\) sent at once after one with Remaining 5\)/,
  ],
  ['limits per operation (left open): the same value for a create and a list is no repeat', [], [list(7), create(7)], 'unjudged'],
  ['per operation, from the last answer of that operation before the batch', [list(9), create(12)], [list(7), list(8), create(7), create(11)], 'pass'],
  ["another operation's answer before the batch says nothing of this one's counter", [create(3)], [list(7), list(6)], 'pass'],
  ['per operation, a repeat within one operation still is', [list(8)], [list(7), list(7), create(7), create(6)], /Remaining 7 .*\(listPets, 2 answer/],
  [
    'a sliding window that freed a slot: a new Reset, the same Remaining again is no repeat',
    [],
    [list(3, { atMs: AT_RESET }), list(2, { atMs: AT_RESET }), list(2, { reset: RESET + 5, atMs: AT_RESET }), list(1, { reset: RESET + 5, atMs: AT_RESET })],
    'pass',
  ],
  [
    'a fixed window that ended during the batch: Remaining rises with the new window',
    [],
    [
      list(1, { atMs: AT_RESET }),
      list(0, { atMs: AT_RESET }),
      list(59, { reset: RESET + 60, atMs: AT_RESET }),
      list(58, { reset: RESET + 60, atMs: AT_RESET }),
    ],
    'pass',
  ],
  ['a refusal among them is no repeat', [], [list(1), list(0), no(0, { operation: 'listPets' }), no(0, { operation: 'listPets' })], 'pass'],
  ['one answer, nothing before it: nothing to compare', [], [list(3)], 'unjudged'],
  ['answers without Remaining', [], [list(3, { remaining: null }), list(2, { remaining: null })], 'unjudged'],
];

for (const [name, before, answers, expected] of BATCHES) {
  atOnce(name, () => {
    const known = new Map(before.map((a) => [a.operation!, snapshot({ ...a, atMs: (a.atMs ?? INSIDE) - 1000 })]));
    const batch: Answered[] = answers.map((a) => ({ operation: a.operation ?? 'listPets', snapshot: snapshot(a) }));
    const [first, ...others] = orders(batch).map((order) => judgeAtOnce(order, known));
    holds(first!, expected, 'as written');
    for (const [i, verdict] of others.entries()) assert.equal(words(verdict), words(first!), `order ${i + 1} judged otherwise`);
  });
}

atOnce.run();
