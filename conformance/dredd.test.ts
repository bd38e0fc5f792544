// Proof that the kit's Dredd run asks what the specification asks, no more and no less: plain Dredd
// demands the optional Link header, and without schemas passes a string categoryId or a status
// outside the enumeration (its reader drops allOf and $ref); the hooks' bodySchema catches both.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stringify as toYaml } from 'yaml';
import { derivedDescription, mergeAllOf, runDredd, transactionPlans } from './dredd/run.ts';
import { FLAWS } from './testing/flaws/catalogue.ts';
import { startTarget, type Target } from './testing/flaws/harness.ts';
import { DEFAULT_SPEC_PATH, loadContract, type Contract } from '../judge/contract.ts';

const LIST_200 = '/pets > List animals > 200 > application/json';
let contract: Contract;

const derived = suite('derived description');

derived.before(async () => {
  contract = await loadContract();
});

derived('has no $ref and no allOf, only the statuses one request provokes, and no decision header or parameter', () => {
  const text = JSON.stringify(derivedDescription(contract));
  assert.not.ok(text.includes('$ref'));
  assert.not.ok(text.includes('allOf'));
  const paths = derivedDescription(contract).paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  assert.equal(Object.keys(paths['/pets']!.get!.responses).sort(), ['200', '401']);
  assert.equal(Object.keys(paths['/pets']!.post!.responses).sort(), ['201', '400', '401']);
  assert.equal(Object.keys(paths['/pets/{petId}']!.get!.responses).sort(), ['200', '401', '404']);
  for (const name of ['Link', 'Location', 'Deprecation', 'Sunset', 'cursor']) assert.not.ok(text.includes(`"${name}"`), name);
  assert.ok(text.includes('"X-RateLimit-Remaining"'), 'required headers stay');
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
let dir: string;
let schemaless: string;

proof.before(async () => {
  contract ??= await loadContract();
  clean = await startTarget();
  wrongType = await startTarget(FLAWS.find((f) => f.id === 'categoryid-string')!);
  wrongEnum = await startTarget(FLAWS.find((f) => f.id === 'status-capitalised')!);
  dir = await mkdtemp(join(tmpdir(), 'dredd-proof-'));
  schemaless = join(dir, 'derived.yaml');
  await writeFile(schemaless, toYaml(derivedDescription(contract)));
});
proof.after(async () => {
  await clean?.stop();
  await wrongType?.stop();
  await wrongEnum?.stop();
  await rm(dir, { recursive: true, force: true });
});

const options = (baseUrl: string, rawDescription?: string) => ({
  baseUrl,
  apiKey: 'test-pro-key',
  prefer: false,
  contract,
  specPath: DEFAULT_SPEC_PATH,
  timeoutMs: 60_000,
  ...(rawDescription ? { rawDescription } : {}),
});

proof('the derived run passes every transaction of the unbroken server, none skipped', async () => {
  const outcome = await runDredd(options(clean.baseUrl));
  assert.is(outcome.error, undefined, outcome.log);
  assert.equal(
    outcome.transactions.filter((t) => t.status !== 'pass').map((t) => `${t.name}: ${t.message}`),
    [],
  );
  assert.equal(outcome.transactions.map((t) => t.name).sort(), Object.keys(transactionPlans(contract)).sort());
});

proof('plain Dredd over spec/openapi.yaml fails the unbroken server: it demands the Link header the specification leaves open', async () => {
  const plain = await runDredd(options(clean.baseUrl, DEFAULT_SPEC_PATH));
  const list = plain.transactions.find((t) => t.name === LIST_200 && t.status !== 'skip');
  assert.ok(list, plain.log);
  assert.is(list!.status, 'fail');
  assert.match(list!.message, /link/i);
});

for (const [what, target, pattern] of [
  ['a string categoryId', () => wrongType, /categoryId.*(integer|type)|Invalid type: string \(expected integer\)/],
  ['a status outside PetStatus', () => wrongEnum, /enum|allowed values|No enum match/],
] as const) {
  proof(`Dredd without the hooks' schemas misses ${what}; the kit's Dredd run catches it`, async () => {
    const baseUrl = target().baseUrl;
    const plain = await runDredd(options(baseUrl, schemaless));
    const plainList = plain.transactions.find((t) => t.name === LIST_200 && t.status !== 'skip');
    assert.ok(plainList, plain.log);
    assert.is(plainList!.status, 'pass', `Dredd without schemas was expected to miss the flaw: ${plainList!.message}`);

    const ours = await runDredd(options(baseUrl));
    const ourList = ours.transactions.find((t) => t.name === LIST_200)!;
    assert.is(ourList.status, 'fail');
    assert.match(ourList.message, pattern);
  });
}

proof.run();
