// When the contract phase's create is not the 201 with a pet the behaviour checks need, those checks
// are not run, and their reason says what the create answered instead: a 200 with a pet that has
// an id is told it is a 200, not that its pet had no id.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FLAWS } from '../testing/flaws/catalogue.ts';
import { conformOn, startTarget } from '../testing/flaws/harness.ts';
import type { FlawBehaviour } from '../testing/flaws/proxy.ts';

const test = suite('what the create answered, in the reason of the checks that needed it');

const createPet = (url: string, method: string) => method === 'POST' && /\/pets$/.test(url);

const CASES: Array<{ what: string; flaw: FlawBehaviour; reason: RegExp; not?: RegExp }> = [
  {
    what: 'a 200 with a pet that has an id',
    flaw: FLAWS.find((f) => f.id === 'create-answers-200')!,
    reason: /the create answered 200 where 201 is required; its pet has id \d+/,
    not: /did not return a pet with an id/,
  },
  {
    what: 'a 201 whose pet has no id',
    flaw: {
      response: (res, req) => {
        if (!createPet(req.url, req.method) || res.status !== 201) return res;
        const { id: _id, ...pet } = JSON.parse(res.body) as Record<string, unknown>;
        return { ...res, body: JSON.stringify(pet) };
      },
    },
    reason: /the create answered 201 with no pet with an integer id/,
  },
  {
    what: 'a 400',
    flaw: {
      response: (res, req) =>
        createPet(req.url, req.method) && res.status === 201
          ? { ...res, status: 400, body: JSON.stringify({ status: 400, code: 'bad_request', message: 'no' }) }
          : res,
    },
    reason: /the create answered 400 where 201 is required, with no pet/,
  },
];

for (const { what, flaw, reason, not } of CASES) {
  test(`a create answered with ${what}`, async () => {
    const target = await startTarget(flaw);
    try {
      const report = await conformOn(target, { phases: [] });
      assert.is(report.results.find((r) => r.id === 'create.201')!.outcome, 'failed');
      for (const id of ['create.echo', 'create.retrievable', 'create.unique-ids', 'create.listed', 'create.server-assigns-id']) {
        const result = report.results.find((r) => r.id === id)!;
        assert.is(result.outcome, 'not-run', id);
        assert.match(result.reason ?? '', reason, id);
        if (not) assert.not.match(result.reason ?? '', not, id);
      }
    } finally {
      await target.stop();
    }
  });
}

test.run();
