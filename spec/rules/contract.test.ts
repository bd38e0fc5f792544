// spec/rules/contract.js is generated from spec/openapi.yaml (scripts/generate.test.ts holds it
// current): its facts are the description's, and a description they cannot be read from is refused.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import { parse } from 'yaml';
import * as assert from 'uvu/assert';
import { contractFacts } from '../contract-facts.ts';
import { BASE_PATH, CUSTOM_PLANS, DEPRECATIONS, LIST_LIMIT, OPERATIONS, PET_STATUSES, PLAN_LIMITS, REFUSAL_CODES } from './contract.js';

test('the facts are read from the description, not restated', () => {
  assert.equal([...PET_STATUSES], ['available', 'pending', 'sold']);
  assert.equal({ ...LIST_LIMIT }, { minimum: 1, maximum: 100, default: 20 });
  assert.is(PLAN_LIMITS.free.perMinute, 60);
  assert.is(PLAN_LIMITS.business.perDay, 100_000);
  assert.equal([...CUSTOM_PLANS], ['enterprise']);
  assert.is(DEPRECATIONS.getPet.sunset, '2030-12-05T00:00:00Z');
  assert.equal([...DEPRECATIONS.getPet.decisions], ['since']);
  assert.is(BASE_PATH, '/v1');
  assert.equal(Object.keys(OPERATIONS), ['listPets', 'createPet', 'getPet']);
  assert.equal({ ...OPERATIONS.createPet }, { method: 'POST', path: '/pets' });
  assert.equal(
    { ...REFUSAL_CODES },
    { rate_limited_minute: 'key', rate_limited_day: 'key', key_banned: 'key', rate_limited_ip: 'address', ip_blocked: 'address' },
  );
});

const described = () => parse(readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8')) as Record<string, any>;

test('x-refusal-codes is optional: a description without it has none, and demands nothing', () => {
  const document = described();
  delete document.components.responses.TooManyRequests['x-refusal-codes'];
  assert.equal(contractFacts(document).refusalCodes, {});
  document.components.responses = undefined;
  assert.equal(contractFacts(document).refusalCodes, {});
});

test('x-refusal-codes names a budget for each code: anything but key or address is refused', () => {
  const document = described();
  document.components.responses.TooManyRequests['x-refusal-codes'] = { slow_down: 'client' };
  assert.throws(() => contractFacts(document), /slow_down is neither "key" nor "address"/);
});

test("x-refusal-codes names exactly the codes of the 429 response's examples", () => {
  const tooMany = described().components.responses.TooManyRequests;
  const examples = Object.values(tooMany.content['application/json'].examples).map((e: any) => e.value.code);
  assert.equal(examples.sort(), Object.keys(tooMany['x-refusal-codes']).sort());
});

test('a description the facts cannot be read from is refused, naming what is missing', () => {
  assert.throws(() => contractFacts({ info: { version: '1' } }), /components/);
  const document = parse(readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8')) as Record<string, never>;
  assert.throws(() => contractFacts({ ...document, servers: [{ url: 'https://a.test/v1' }, { url: 'https://b.test/v2' }] }), /servers disagree/);
});

test.run();
