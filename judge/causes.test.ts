// One cause, many failures: failures that share a cause are told once, under one check, and every
// verdict stays what it was. Unit cases first, then a server that never sends X-RateLimit-Reset.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { causeKey, groupCauses } from './causes.ts';
import { missingHeaderCauses } from '../conformance/checks/dredd.ts';
import type { CheckResult, Failure, Outcome } from './ledger.ts';
import { formatConsole } from '../conformance/report/console.ts';
import { formatHtml } from '../conformance/report/html.ts';
import { formatJson } from '../conformance/report/json.ts';
import { formatJUnit } from '../conformance/report/junit.ts';
import type { Exchange } from './exchange.ts';
import { FLAWS } from '../conformance/testing/flaws/catalogue.ts';
import { conformOn, startTarget } from '../conformance/testing/flaws/harness.ts';

const ex = { request: { url: 'http://x/v1/pets' } } as unknown as Exchange;
const MISSING = causeKey.headerMissing('X-RateLimit-Reset');
const STATUS_ENUM = causeKey.body('/3/status', 'must be equal to one of the allowed values');

function result(id: string, outcome: Outcome, failures: Array<Partial<Failure>>): CheckResult {
  return {
    id,
    level: outcome === 'warned' ? 'should' : 'must',
    profile: 'contract',
    section: 's',
    title: 't',
    outcome,
    judged: failures.length,
    failed: failures.length,
    failures: failures.map((f) => ({ message: 'm', evidence: [ex], ...f })),
    notes: [],
  };
}

const keys = suite('cause keys');

keys('name what is wrong apart from the answer: a header by its name in any case, a body place without array indices', () => {
  assert.is(causeKey.headerMissing('X-RateLimit-Reset'), causeKey.headerMissing('x-ratelimit-reset'));
  assert.is(causeKey.body('/0/status', 'm'), causeKey.body('/17/status', 'm'));
  assert.is.not(causeKey.body('/status', 'm'), causeKey.body('/0/status', 'm'));
  assert.is.not(causeKey.body('', "must have required property 'id'"), causeKey.body('', "must have required property 'name'"));
  assert.is.not(causeKey.headerMissing('X-RateLimit-Reset'), causeKey.headerMissing('X-RateLimit-Limit'));
});

const GAVEL = "headers: At '/x-ratelimit-reset' Missing required property: x-ratelimit-reset";
const gavel: Array<[string, string, Record<string, string>, string[] | undefined]> = [
  ['only the header missing', GAVEL, { 'x-ratelimit-limit': '60' }, [MISSING]],
  ['the header missing, and the body wrong too', `${GAVEL}\nbody: At '/id' Missing required property: id`, {}, undefined],
  ['the header there after all (another reading)', GAVEL, { 'X-RateLimit-Reset': '1' }, undefined],
  ['a status Dredd did not expect', 'statusCode: Expected status code 200, but got 500.', {}, undefined],
];
for (const [name, message, headers, causes] of gavel) {
  keys(`a Dredd transaction's failure has the kit's cause when Gavel found only headers missing: ${name}`, () => {
    assert.equal(missingHeaderCauses({ message, response: { statusCode: 200, headers } }), causes);
  });
}

keys.run();

const grouping = suite('grouping failures by cause across checks');

const cases: Array<{
  name: string;
  results: CheckResult[];
  owner?: string;
  followsFrom: Record<string, string[] | undefined>;
  distinct: number;
}> = [
  {
    name: 'a header missing everywhere: told under the check that saw it most, the others follow from it',
    results: [
      result('list.200', 'failed', [{ causes: [MISSING] }]),
      result('get.404', 'failed', [{ causes: [MISSING] }]),
      result('headers.rate-limit', 'failed', [{ causes: [MISSING], sameCause: ['a', 'b'] }]),
    ],
    owner: 'headers.rate-limit',
    followsFrom: { 'list.200': ['headers.rate-limit'], 'get.404': ['headers.rate-limit'], 'headers.rate-limit': undefined },
    distinct: 1,
  },
  {
    name: 'as often in two checks: the first in the catalogue',
    results: [result('a', 'failed', [{ causes: [MISSING] }]), result('b', 'failed', [{ causes: [MISSING] }])],
    owner: 'a',
    followsFrom: { a: undefined, b: ['a'] },
    distinct: 1,
  },
  {
    name: 'a failed check before a warned one that saw it more often',
    results: [result('w', 'warned', [{ causes: [MISSING], sameCause: ['x', 'y', 'z'] }]), result('f', 'failed', [{ causes: [MISSING] }])],
    owner: 'f',
    followsFrom: { w: ['f'], f: undefined },
    distinct: 1,
  },
  {
    name: 'a check with a failure of its own besides the shared cause does not follow: only that failure does',
    results: [
      result('a', 'failed', [{ causes: [MISSING], sameCause: ['x'] }]),
      result('b', 'failed', [{ causes: [MISSING] }, { message: 'expected 201, got 200' }]),
    ],
    owner: 'a',
    followsFrom: { a: undefined, b: undefined },
    distinct: 2,
  },
  {
    name: 'failures without a cause key, or with keys seen by one check only, are causes of their own',
    results: [
      result('a', 'failed', [{ message: 'expected 404, got 200' }]),
      result('b', 'failed', [{ message: 'expected 404, got 200' }]),
      result('c', 'failed', [{ causes: [STATUS_ENUM] }]),
    ],
    followsFrom: { a: undefined, b: undefined, c: undefined },
    distinct: 3,
  },
  {
    name: 'a check whose failures were not all kept (the ledger stood one in for the rest) does not follow',
    results: [
      result('a', 'failed', [{ causes: [MISSING], sameCause: ['x'] }]),
      result('b', 'failed', [{ causes: [MISSING] }, { message: '(further failures not shown)', evidence: [] }]),
    ],
    owner: 'a',
    followsFrom: { a: undefined, b: undefined },
    distinct: 1,
  },
  {
    name: 'a failure of two causes follows only when each is told elsewhere',
    results: [result('a', 'failed', [{ causes: [MISSING] }, { causes: [STATUS_ENUM] }]), result('b', 'failed', [{ causes: [MISSING, STATUS_ENUM] }])],
    owner: 'a',
    followsFrom: { a: undefined, b: ['a'] },
    distinct: 2,
  },
];

for (const c of cases) {
  grouping(c.name, () => {
    const before = c.results.map((r) => [r.id, r.outcome, r.failed]);
    const grouped = groupCauses(c.results);
    assert.equal(
      grouped.results.map((r) => [r.id, r.outcome, r.failed]),
      before,
      'the verdicts and the counts of failures stay',
    );
    assert.equal(Object.fromEntries(grouped.results.map((r) => [r.id, r.followsFrom])), c.followsFrom);
    assert.is(grouped.distinct, c.distinct);
    if (c.owner) {
      const missing = grouped.causes.find((g) => g.key === MISSING) ?? grouped.causes[0]!;
      assert.is(missing.check, c.owner);
      assert.ok(grouped.results.find((r) => r.id === c.owner)!.failures.some((f) => f.alsoBroke?.length));
    } else assert.equal(grouped.causes, []);
    assert.ok(
      c.results.every((r) => r.followsFrom === undefined && r.failures.every((f) => f.follows === undefined)),
      'the results given are not changed',
    );
  });
}

grouping.run();

const flawed = suite('a server that never sends X-RateLimit-Reset');

flawed('fails every check it failed before, under one cause told once in the console, the HTML, JUnit and JSON', async () => {
  const flaw = FLAWS.find((f) => f.id === 'no-rate-limit-reset')!;
  const target = await startTarget(flaw);
  try {
    const report = await conformOn(target, { seed: 1, dredd: true });
    const failed = report.results.filter((r) => r.outcome === 'failed').map((r) => r.id);
    for (const id of ['list.200', 'get.200', 'get.404', 'auth.401-missing', 'headers.rate-limit', 'schema.every-response', 'dredd.transactions']) {
      assert.ok(failed.includes(id), `${id} still fails`);
    }
    assert.is(report.exitCode, 1);
    const [cause, ...others] = report.causes ?? [];
    assert.equal(others, []);
    assert.is(cause!.key, MISSING);
    const told = cause!.check;
    const problems = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned').map((r) => r.id);
    assert.equal([told, ...cause!.alsoBroke].sort(), [...problems].sort(), 'every check that failed or warned is the cause or broken by it');
    assert.is(report.counts.causes, 1);
    for (const id of problems.filter((id) => id !== told)) {
      assert.equal(report.results.find((r) => r.id === id)!.followsFrom, [told], id);
    }

    // A check that follows keeps its notes: they are told nowhere else.
    const follower = report.results.find((r) => r.id === 'get.404')!;
    follower.notes.push('a note of get.404');
    const console = formatConsole(report);
    assert.match(console, /FAIL get\.404 \(must; [^\n]*\): follows from [^\n]*\n {4}note: a note of get\.404\n/);
    assert.match(console, new RegExp(`FAIL  must +get\\.404 .*follows from ${told.replace('.', '\\.')}\\)`));
    assert.match(console, /also broke: .*list\.200.*get\.404/);
    assert.match(console, new RegExp(`failed +${failed.length} \\(1 distinct cause: the others follow from them\\)`));
    // The request and the response are shown once, under the check the cause is told under.
    assert.is((console.match(/^ {6}< 200$/gm) ?? []).length, 1);

    const junit = formatJUnit(report);
    assert.match(junit, new RegExp(`<failure message="follows from ${told}: header x-ratelimit-reset is required but missing"`));
    assert.match(junit, /<property name="distinct-causes" value="1"\/>/);
    assert.is((junit.match(/<failure /g) ?? []).length, failed.length, 'still one failure per failed check');

    const html = formatHtml(report);
    assert.match(html, new RegExp(`follows from <a href="#${told}">`));
    assert.match(html, /also broke: <a href="#list\.200">/);

    const json = JSON.parse(formatJson(report)) as { causes: Array<{ key: string }>; results: Array<{ id: string; failures: Array<{ causes?: string[] }> }> };
    assert.equal(
      json.causes.map((c) => c.key),
      [MISSING],
    );
    assert.equal(json.results.find((r) => r.id === 'get.404')!.failures[0]!.causes, [MISSING]);
  } finally {
    await target.stop();
  }
});

flawed.run();
