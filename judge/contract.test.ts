// The validator reads every rule of the description: allOf, enum, required, integer types and the
// documented headers; Dredd alone ignores most of them. At must level it leaves out what the
// description marks x-decision (the reference server's choices); at should level it keeps them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decisionProblems, documentedResponse, loadContract, toJsonSchema, validateResponse, type Contract, type SchemaLevel } from './contract.ts';

const test = suite('contract validation');
let contract: Contract;
test.before(async () => {
  contract = await loadContract();
});

const RL = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1767225660' };
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const pet = { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' };
const error404 = { code: 'not_found', message: 'Pet 9 was not found.', status: 404 };

const cases: Array<[string, 'listPets' | 'createPet' | 'getPet', number, Record<string, string>, unknown, RegExp | null, SchemaLevel?]> = [
  ['a valid list', 'listPets', 200, { ...RL, ...JSON_TYPE }, [pet], null],
  ['an empty list', 'listPets', 200, { ...RL, ...JSON_TYPE }, [], null],
  ['a list wrapped in an object', 'listPets', 200, { ...RL, ...JSON_TYPE }, { pets: [pet] }, /body must be array/],
  ['a Pet without id (allOf)', 'getPet', 200, { ...RL, ...JSON_TYPE }, { name: 'x', categoryId: 1 }, /required property 'id'/],
  ['a fractional id', 'getPet', 200, { ...RL, ...JSON_TYPE }, { ...pet, id: 1.5 }, /body\/id must be integer/],
  ['a status outside the enum', 'getPet', 200, { ...RL, ...JSON_TYPE }, { ...pet, status: 'adopted' }, /allowed values \(available, pending, sold\)/],
  ['a string categoryId', 'createPet', 201, { ...RL, ...JSON_TYPE }, { ...pet, categoryId: '1' }, /categoryId must be integer/],
  ['an Error without status', 'getPet', 404, { ...RL, ...JSON_TYPE }, { code: 'x', message: 'y' }, /required property 'status'/],
  ['a valid 404', 'getPet', 404, { ...RL, ...JSON_TYPE }, error404, null],
  ['an undocumented status falls back to default (Error)', 'listPets', 502, { ...RL, ...JSON_TYPE }, { ...error404, status: 502 }, null],
  ["must: a 503 without Retry-After is the implementation's choice", 'listPets', 503, { ...RL, ...JSON_TYPE }, { ...error404, status: 503 }, null, 'must'],
  [
    "should: the reference server's 503 carries Retry-After",
    'listPets',
    503,
    { ...RL, ...JSON_TYPE },
    { ...error404, status: 503 },
    /retry-after is required/,
    'should',
  ],
  [
    'missing X-RateLimit-Reset',
    'listPets',
    200,
    { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', ...JSON_TYPE },
    [],
    /x-ratelimit-reset is required/,
  ],
  ['a negative Remaining', 'listPets', 200, { ...RL, 'x-ratelimit-remaining': '-1', ...JSON_TYPE }, [], /x-ratelimit-remaining .*must be >= 0/],
  ['a non-integer Limit', 'listPets', 200, { ...RL, 'x-ratelimit-limit': '60.0', ...JSON_TYPE }, [], /x-ratelimit-limit .*must be integer/],
  ['a 429 without Retry-After', 'listPets', 429, { ...RL, ...JSON_TYPE }, { code: 'r', message: 'm', status: 429 }, /retry-after is required/],
  ['text/plain instead of JSON', 'listPets', 200, { ...RL, 'content-type': 'text/plain' }, [], /expected application\/json/],
  [
    'a 429 with Remaining 1 (the contract says 0)',
    'listPets',
    429,
    { ...RL, 'retry-after': '5', ...JSON_TYPE },
    { code: 'r', message: 'm', status: 429 },
    /x-ratelimit-remaining .*must be <= 0/,
  ],
  ["must: an error code of its own is the implementation's choice", 'getPet', 404, { ...RL, ...JSON_TYPE }, error404, null, 'must'],
  [
    "should: the reference server's error codes",
    'getPet',
    404,
    { ...RL, ...JSON_TYPE },
    error404,
    /body\/code must be equal to one of the allowed values/,
    'should',
  ],
  ["must: a 101-character name is the implementation's choice", 'getPet', 200, { ...RL, ...JSON_TYPE }, { ...pet, name: 'x'.repeat(101) }, null, 'must'],
  [
    'should: names of at most 100 characters',
    'getPet',
    200,
    { ...RL, ...JSON_TYPE },
    { ...pet, name: 'x'.repeat(101) },
    /body\/name must NOT have more than 100 characters/,
    'should',
  ],
  ['must: Deprecation: true (x-decision: true header) is not checked', 'getPet', 200, { ...RL, ...JSON_TYPE, deprecation: 'true' }, pet, null, 'must'],
  ['should: Deprecation is @epoch', 'getPet', 200, { ...RL, ...JSON_TYPE, deprecation: 'true' }, pet, /header deprecation .*must match pattern/, 'should'],
  ["must: id 0 is the implementation's choice", 'getPet', 200, { ...RL, ...JSON_TYPE }, { ...pet, id: 0 }, null, 'must'],
  ['should: ids from 1', 'getPet', 200, { ...RL, ...JSON_TYPE }, { ...pet, id: 0 }, /body\/id must be >= 1/, 'should'],
];

for (const [name, operationId, status, headers, body, problem, level] of cases) {
  test(name, () => {
    const problems = validateResponse(contract, operationId, { status, headers, body: JSON.stringify(body) }, level);
    const text = problems.map((p) => `${p.where} ${p.message}`).join('; ');
    if (problem === null) assert.is(text, '');
    else assert.match(text, problem);
  });
}

test('values come from the description, not restated: statuses and the limit bounds', () => {
  assert.equal(contract.petStatuses, ['available', 'pending', 'sold']);
  assert.equal(contract.listLimit, { minimum: 1, maximum: 100, default: 20 });
  assert.ok(contract.operations.get('getPet')!.deprecated);
  assert.is(contract.operations.get('getPet')!.deprecation?.sunset, '2030-12-05T00:00:00Z');
  assert.not.ok(contract.operations.get('listPets')!.deprecated);
  assert.is(documentedResponse(contract, 'createPet', 418)?.key, 'default');
});

test('decisionProblems names only what the full description adds to the must level', () => {
  const problems = decisionProblems(contract, 'getPet', {
    status: 200,
    headers: { ...RL, ...JSON_TYPE },
    body: JSON.stringify({ ...pet, name: '', status: 'adopted' }),
  });
  assert.equal(problems.map((p) => p.where).sort(), ['body/name', 'body/name']);
});

test('toJsonSchema at must drops the keywords x-decision names, and whole elements marked x-decision: true', () => {
  const schema = { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', 'x-decision': ['maxLength', 'pattern'] };
  assert.equal(toJsonSchema(schema, 'must'), { type: 'string', minLength: 1 });
  assert.equal(toJsonSchema(schema, 'should'), { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' });
  assert.equal(toJsonSchema({ type: 'string', 'x-decision': true }, 'must'), {});
  assert.equal(toJsonSchema({ properties: { maxLength: { type: 'integer', maximum: 3, 'x-decision': ['maximum'] } } }, 'must'), {
    properties: { maxLength: { type: 'integer' } },
  });
});

test('toJsonSchema drops OpenAPI annotations and expands nullable', () => {
  assert.equal(toJsonSchema({ type: 'string', nullable: true, example: 'x', 'x-internal': 1, properties: { example: { type: 'integer', example: 1 } } }), {
    type: ['string', 'null'],
    properties: { example: { type: 'integer' } },
  });
});

test.run();
