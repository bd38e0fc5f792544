// A check is asserted only by the module that defines it: each area gets a ledger scoped to its
// own ids, which refuses any other. The catalogue is built from the areas, each id defined once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KitError } from '../lib/errors.ts';
import { CATALOGUE, type CheckDef } from '../conformance/catalogue.ts';
import { AREAS } from '../conformance/checks/index.ts';
import type { Exchange } from './exchange.ts';
import { CheckScopeError, Ledger } from './ledger.ts';

const DEFS: CheckDef[] = [
  { id: 'a.one', level: 'must', profile: 'contract', section: 's', title: 't' },
  { id: 'a.two', level: 'should', profile: 'contract', section: 's', title: 't' },
  { id: 'b.one', level: 'must', profile: 'full', section: 's', title: 't' },
];
const all = () => undefined;

test('an area records verdicts for its own checks, and for no other', () => {
  const ledger = new Ledger(DEFS);
  const a = ledger.scope('a', ['a.one', 'a.two']);
  a.pass('a.one');
  a.fail('a.two', 'wrong', [], 'some_rule');
  for (const record of [
    () => a.pass('b.one'),
    () => a.fail('b.one', 'x'),
    () => a.notRun('b.one', 'x'),
    () => a.note('b.one', 'x'),
    () => a.hasFailed('b.one'),
  ]) {
    assert.throws(
      record,
      (e: unknown) => e instanceof CheckScopeError && e instanceof KitError && /a recorded a verdict for b\.one/.test((e as Error).message),
    );
  }
  const results = ledger.results({ strict: false, selected: all });
  assert.equal(
    results.map((r) => r.outcome),
    ['passed', 'warned', 'not-run'],
  );
  assert.is(results[1]!.failures[0]!.rule, 'some_rule');
});

test('one cause, one failure: the same problem on other requests joins the first, every one counted; a pass with nothing judged is impossible', () => {
  const ledger = new Ledger(DEFS);
  const a = ledger.scope('a', ['a.one', 'a.two']);
  const ex = { request: { url: 'http://x/v1/pets' } } as unknown as Exchange;
  a.fail('a.one', 'list without a key: body/code is not one of 25 codes', [ex]);
  a.fail('a.one', 'create without name: body/code is not one of 25 codes', [ex]);
  a.fail('a.one', 'create without name: categoryId is a string', [ex]);
  const [one, two] = ledger.results({ strict: false, selected: all });
  assert.equal(
    one!.failures.map((f) => f.message),
    ['list without a key: body/code is not one of 25 codes', 'create without name: categoryId is a string'],
  );
  assert.equal(one!.failures[0]!.sameCause, ['create without name: body/code is not one of 25 codes']);
  assert.equal([one!.judged, one!.failed], [3, 3]);
  assert.equal([two!.outcome, two!.judged, two!.reason], ['not-run', 0, 'nothing to check']);
});

test('failures that name their causes join by cause, whatever their messages say before it', () => {
  const ledger = new Ledger(DEFS);
  const a = ledger.scope('a', ['a.one']);
  const ex = { request: { url: 'http://x/v1/pets' } } as unknown as Exchange;
  const missing = ['header x-ratelimit-reset is missing'];
  // A purpose with a colon of its own once kept these apart: "is it admitted?: header …" is no cause.
  a.fail('a.one', 'list without parameters: header x-ratelimit-reset is required but missing', [ex], undefined, missing);
  a.fail('a.one', 'list with --rate-limit-key: is it admitted?: header x-ratelimit-reset is required but missing', [ex], undefined, missing);
  a.assert('a.one', false, 'open point: GET /pets/abc (400): X-RateLimit-Reset missing or not a non-negative integer', [ex], missing);
  a.fail('a.one', 'open point: GET /pets/abc: header x-ratelimit-limit is required but missing', [ex], undefined, ['header x-ratelimit-limit is missing']);
  const [one] = ledger.results({ strict: false, selected: all });
  assert.equal(
    one!.failures.map((f) => [f.causes, f.sameCause?.length ?? 0]),
    [
      [missing, 2],
      [['header x-ratelimit-limit is missing'], 0],
    ],
  );
  assert.is(one!.failed, 4);
});

test('past twenty failures of one cause, the rest are counted, not named: a stream of one mistake stays small', () => {
  const ledger = new Ledger(DEFS);
  const a = ledger.scope('a', ['a.one']);
  const ex = { request: { url: 'http://x/v1/pets' } } as unknown as Exchange;
  for (let i = 0; i < 50; i++) a.fail('a.one', `request ${i}: body/code is wrong`, [ex]);
  const [one] = ledger.results({ strict: false, selected: all });
  assert.is(one!.failures.length, 1);
  assert.is(one!.failures[0]!.sameCause?.length, 20);
  assert.equal([one!.outcome, one!.failed], ['failed', 50]);
});

test('what a check could not judge is never a pass: a failure seen through a body past --max-body is not judged, unless the check reads only status and headers', () => {
  const defs: CheckDef[] = [...DEFS, { id: 'a.headers', level: 'must', profile: 'contract', section: 's', title: 't', reads: 'status-and-headers' }];
  const huge = {
    purpose: 'list',
    request: { url: 'http://x/v1/pets' },
    response: { status: 200, headers: {}, body: '[', tooLarge: { limit: 1024, read: 2048 } },
  } as unknown as Exchange;
  const whole = { purpose: 'get', request: { url: 'http://x/v1/pets/1' }, response: { status: 200, headers: {}, body: '{}' } } as unknown as Exchange;
  const ledger = new Ledger(defs);
  const a = ledger.scope('a', ['a.one', 'a.two', 'a.headers']);
  a.pass('a.one');
  a.fail('a.one', 'list: body is not an array', [huge]);
  a.fail('a.two', 'list: body is not an array', [huge]);
  a.fail('a.two', 'get: name is missing', [whole]);
  a.fail('a.headers', 'list: X-RateLimit-Limit missing', [huge]);
  const [one, two, , headers] = ledger.results({ strict: false, selected: all });
  assert.equal([one!.outcome, one!.unjudged, one!.failed, one!.failures], ['not-run', 1, 0, []]);
  assert.match(one!.reason ?? '', /^could not judge: list: body too large to judge: more than 2048 bytes read, past --max-body 1024.*; 1 judged and passed$/);
  // A failure seen whole is a finding, whatever else could not be judged.
  assert.equal([two!.outcome, two!.unjudged, two!.failed], ['warned', 1, 1]);
  assert.equal([headers!.outcome, headers!.unjudged, headers!.failed], ['failed', undefined, 1]);
});

// A check the run did not get to judge because the target refused a request it needed is no skip
// the user chose: it could not judge (exit 2), in the target's words, whatever the Error code.
const answer = (status: number, body: string, headers: Record<string, string> = {}) =>
  ({ purpose: 'list', request: { method: 'GET', url: 'http://x/v1/pets' }, response: { status, headers, body } }) as unknown as Exchange;
const notRunCases: Array<[string, Exchange[], { unjudged?: number; reason: RegExp }]> = [
  [
    'a 429 ban',
    [answer(429, '{"code":"key_banned","message":"banned for a while"}', { 'retry-after': '402' })],
    {
      unjudged: 1,
      reason:
        /^could not judge: the list answered 429: the target refused it: GET http:\/\/x\/v1\/pets answered 429 \(key_banned: banned for a while\), Retry-After 402$/,
    },
  ],
  ['a 403 ban of another server', [answer(403, '{"code":"FORBIDDEN_BANNED"}')], { unjudged: 1, reason: /answered 403 \(FORBIDDEN_BANNED\)$/ }],
  ['a key refused', [answer(200, '[]'), answer(401, 'no')], { unjudged: 1, reason: /answered 401 \(no body\)$/ }],
  ['an answer that is no refusal', [answer(500, '{}')], { reason: /^the list answered 429$/ }],
  ['no evidence', [], { reason: /^the list answered 429$/ }],
];
for (const [name, evidence, expected] of notRunCases) {
  test(`not run for want of an answer, ${name}: ${expected.unjudged ? 'could not judge' : 'not run'}`, () => {
    const ledger = new Ledger(DEFS);
    ledger.scope('a', ['a.one']).notRun('a.one', 'the list answered 429', evidence);
    const [one] = ledger.results({ strict: false, selected: all });
    assert.equal([one!.outcome, one!.unjudged], ['not-run', expected.unjudged]);
    assert.match(one!.reason ?? '', expected.reason);
  });
}

test('what a check outside the run could not judge is not counted as unjudged: it changes no exit status', () => {
  const ledger = new Ledger(DEFS);
  ledger.scope('a', ['a.one']).unjudged('a.one', 'refused');
  const [one] = ledger.results({ strict: false, selected: (def) => (def.id === 'a.one' ? 'needs --ban-check' : undefined) });
  assert.equal([one!.outcome, one!.reason, one!.unjudged], ['not-run', 'needs --ban-check', undefined]);
});

test('a scope naming a check that does not exist is refused', () => {
  assert.throws(() => new Ledger(DEFS).scope('c', ['c.nothing']), /c: unknown check id c\.nothing/);
});

test('strict turns should-level failures into failures; notRun never hides a verdict', () => {
  const ledger = new Ledger(DEFS);
  const a = ledger.scope('a', ['a.one', 'a.two']);
  a.notRun('a.one', 'not yet');
  a.pass('a.one');
  a.fail('a.two', 'wrong');
  assert.equal(
    ledger.results({ strict: true, selected: all }).map((r) => r.outcome),
    ['passed', 'failed', 'not-run'],
  );
});

test('the catalogue is the checks of the areas, each id defined by exactly one area', () => {
  assert.equal(
    CATALOGUE.map((c) => c.id),
    AREAS.flatMap((a) => a.checks.map((c) => c.id)),
  );
  const owners = new Map<string, string[]>();
  for (const area of AREAS) for (const c of area.checks) owners.set(c.id, [...(owners.get(c.id) ?? []), area.name]);
  for (const [id, areas] of owners) assert.is(areas.length, 1, `${id} is defined by ${areas.join(', ')}`);
});

// Reports and CI configurations name checks by id: none may disappear or change level.
const STABLE: Array<[string, 'must' | 'should']> = [
  ['list.200', 'must'],
  ['create.201', 'must'],
  ['create.400-missing', 'must'],
  ['create.400-invalid', 'must'],
  ['get.200', 'must'],
  ['get.404', 'must'],
  ['auth.401-missing', 'must'],
  ['auth.401-scheme', 'must'],
  ['auth.www-authenticate', 'should'],
  ['headers.rate-limit', 'must'],
  ['errors.status-field', 'must'],
  ['schema.every-response', 'must'],
  ['dredd.transactions', 'must'],
  ['auth.401-unknown-key', 'must'],
  ['create.echo', 'must'],
  ['create.retrievable', 'must'],
  ['create.unique-ids', 'must'],
  ['create.listed', 'must'],
  ['list.limit', 'must'],
  ['list.limit-bounds', 'should'],
  ['list.status-filter', 'must'],
  ['list.status-invalid', 'should'],
  ['list.next-link', 'must'],
  ['get.404-unknown', 'must'],
  ['deprecation.header', 'should'],
  ['deprecation.sunset', 'should'],
  ['deprecation.scope', 'should'],
  ['ratelimit.ietf-fields', 'should'],
  ['ratelimit.limit-constant', 'must'],
  ['ratelimit.remaining-decrements', 'must'],
  ['ratelimit.reset-future', 'must'],
  ['ratelimit.reset-stable', 'must'],
  ['ratelimit.exhaustion-exact', 'must'],
  ['ratelimit.429', 'must'],
  ['ratelimit.retry-after-valid', 'must'],
  ['ratelimit.retry-after-consistent', 'must'],
  ['ratelimit.retry-after-integer', 'should'],
  ['ratelimit.429-no-store', 'should'],
  ['ratelimit.readmitted', 'must'],
  ['ratelimit.refused-until-retry', 'must'],
  ['ratelimit.ban-lifts', 'must'],
  ['schema.reference-decisions', 'should'],
];
for (const [id, level] of STABLE) {
  test(`check ${id} is still in the catalogue, at level ${level}`, () => assert.is(CATALOGUE.find((c) => c.id === id)?.level, level));
}

test('every check says where its rule comes from and what it demands', () => {
  for (const c of CATALOGUE) {
    assert.match(c.id, /^[a-z0-9]+\.[a-z0-9-]+$/);
    assert.ok(c.title.length > 20 && c.section.length > 3, c.id);
  }
});

// Each verdict is charged the time since the previous one (or the last lap): a fake clock's steps.
const TIMES: Array<{ steps: Array<[at: number, record: 'lap' | 'a.one' | 'a.two' | 'b.one']>; ms: Record<string, number> }> = [
  {
    steps: [
      [5, 'a.one'],
      [7, 'a.two'],
      [17, 'a.one'],
    ],
    ms: { 'a.one': 15, 'a.two': 2, 'b.one': 0 },
  },
  {
    steps: [
      [5, 'lap'],
      [7, 'a.two'],
      [100, 'lap'],
      [101, 'b.one'],
    ],
    ms: { 'a.one': 0, 'a.two': 2, 'b.one': 1 },
  },
];
for (const { steps, ms } of TIMES) {
  test(`each check is charged the time since the last verdict or lap: ${steps.map(([at, what]) => `${what}@${at}`).join(' ')}`, () => {
    let now = 0;
    const ledger = new Ledger(DEFS, { now: () => now });
    const a = ledger.scope('a', ['a.one', 'a.two']);
    const b = ledger.scope('b', ['b.one']);
    for (const [at, what] of steps) {
      now = at;
      if (what === 'lap') ledger.lap();
      else (what === 'b.one' ? b : a).pass(what);
    }
    const durations = Object.fromEntries(ledger.results({ strict: false, selected: all }).map((r) => [r.id, r.durationMs]));
    assert.equal(durations, ms);
  });
}

test('without a clock no check has a duration', () => {
  const ledger = new Ledger(DEFS);
  ledger.scope('a', ['a.one']).pass('a.one');
  assert.is(ledger.results({ strict: false, selected: all })[0]!.durationMs, undefined);
});

test('every failure is told as it is recorded, and only failures', () => {
  const told: string[] = [];
  const ledger = new Ledger(DEFS, { onFailure: (id) => told.push(id) });
  const a = ledger.scope('a', ['a.one', 'a.two']);
  a.pass('a.one');
  a.notRun('a.two', 'x');
  a.fail('a.two', 'wrong');
  a.fail('a.one', 'list: wrong');
  a.fail('a.one', 'get: wrong');
  assert.equal(told, ['a.two', 'a.one', 'a.one']);
});

test('a halted run reports every check of the run without a failure as not run, with what it judged; failures stay', () => {
  for (const unjudged of [true, false]) {
    const ledger = new Ledger(DEFS);
    const a = ledger.scope('a', ['a.one', 'a.two']);
    a.pass('a.one');
    a.fail('a.two', 'wrong');
    ledger.halt('the run stopped', { unjudged });
    const results = ledger.results({ strict: false, selected: (def) => (def.id === 'b.one' ? 'left out' : undefined) });
    const [one, two, three] = results;
    assert.equal([one!.outcome, one!.reason, one!.unjudged], ['not-run', 'the run stopped; 1 judged and passed before that', unjudged ? 1 : undefined]);
    assert.is(two!.outcome, 'warned');
    assert.equal([three!.outcome, three!.reason, three!.unjudged], ['not-run', 'left out', undefined]);
  }
});

test.run();
