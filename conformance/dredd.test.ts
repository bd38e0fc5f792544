// Proof that the kit's Dredd run validates bodies against the full schemas: plain Dredd over
// spec/openapi.yaml falls back to comparing keys with the example (its OpenAPI 3 reader drops allOf
// and the $ref'd PetStatus), so a string categoryId or a status outside the enumeration passes;
// the derived description with the hooks' bodySchema catches both.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { derivedDescription, mergeAllOf, runDredd, transactionPlans } from './dredd.ts';
import { FAULTS } from './faults/catalogue.ts';
import { startTarget, type Target } from './faults/harness.ts';
import { DEFAULT_SPEC_PATH, loadContract, type Contract } from './openapi.ts';

const LIST_200 = '/pets > List animals > 200 > application/json';
let contract: Contract;

const derived = suite('derived description');

derived.before(async () => {
  contract = await loadContract();
});

derived('has no $ref and no allOf, and only the statuses one request can provoke', () => {
  const text = JSON.stringify(derivedDescription(contract));
  assert.not.ok(text.includes('$ref'));
  assert.not.ok(text.includes('allOf'));
  const paths = derivedDescription(contract).paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  assert.equal(Object.keys(paths['/pets']!.get!.responses).sort(), ['200', '401']);
  assert.equal(Object.keys(paths['/pets']!.post!.responses).sort(), ['201', '400', '401']);
  assert.equal(Object.keys(paths['/pets/{petId}']!.get!.responses).sort(), ['200', '401', '404']);
});

derived('mergeAllOf unites properties and required of every part', () => {
  const merged = mergeAllOf({
    allOf: [
      { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
    ],
  }) as { type: string; required: string[]; properties: Record<string, unknown> };
  assert.is(merged.type, 'object');
  assert.equal(merged.required.sort(), ['id', 'name']);
  assert.equal(Object.keys(merged.properties).sort(), ['id', 'name']);
});

derived('every planned transaction carries a draft-07 schema that requires the Pet id', () => {
  const plans = transactionPlans(contract);
  assert.is(Object.keys(plans).length, 8);
  const schema = plans[LIST_200]!.bodySchema as { $schema: string; items: { allOf: Array<{ required?: string[] }> } };
  assert.is(schema.$schema, 'http://json-schema.org/draft-07/schema#');
  assert.ok(schema.items.allOf.some((part) => part.required?.includes('id')));
});

derived.run();

const proof = suite('Dredd against the reference server');
let clean: Target;
let wrongType: Target;
let wrongEnum: Target;

proof.before(async () => {
  contract ??= await loadContract();
  clean = await startTarget();
  wrongType = await startTarget(FAULTS.find((f) => f.id === 'categoryid-string')!);
  wrongEnum = await startTarget(FAULTS.find((f) => f.id === 'status-capitalised')!);
});
proof.after(async () => {
  await clean?.stop();
  await wrongType?.stop();
  await wrongEnum?.stop();
});

proof('the derived run passes every transaction of the unbroken server, none skipped', async () => {
  const outcome = await runDredd({ baseUrl: clean.baseUrl, apiKey: 'test-pro-key', prefer: false, contract, specPath: DEFAULT_SPEC_PATH, timeoutMs: 60_000 });
  assert.is(outcome.error, undefined, outcome.log);
  assert.equal(outcome.transactions.filter((t) => t.status !== 'pass').map((t) => `${t.name}: ${t.message}`), []);
  assert.equal(outcome.transactions.map((t) => t.name).sort(), Object.keys(transactionPlans(contract)).sort());
});

for (const [what, target, pattern] of [
  ['a string categoryId', () => wrongType, /categoryId.*(integer|type)|Invalid type: string \(expected integer\)/],
  ['a status outside PetStatus', () => wrongEnum, /enum|allowed values|No enum match/],
] as const) {
  proof(`plain Dredd misses ${what}; the kit's Dredd run catches it`, async () => {
    const baseUrl = target().baseUrl;
    const plain = await runDredd({ baseUrl, apiKey: 'test-pro-key', prefer: false, contract, specPath: DEFAULT_SPEC_PATH, timeoutMs: 60_000, rawDescription: DEFAULT_SPEC_PATH });
    const plainList = plain.transactions.find((t) => t.name === LIST_200 && t.status !== 'skip');
    assert.ok(plainList, plain.log);
    assert.is(plainList!.status, 'pass', `plain Dredd was expected to miss the fault: ${plainList!.message}`);

    const ours = await runDredd({ baseUrl, apiKey: 'test-pro-key', prefer: false, contract, specPath: DEFAULT_SPEC_PATH, timeoutMs: 60_000 });
    const ourList = ours.transactions.find((t) => t.name === LIST_200)!;
    assert.is(ourList.status, 'fail');
    assert.match(ourList.message, pattern);
  });
}

proof.run();
