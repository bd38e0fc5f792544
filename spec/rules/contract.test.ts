// spec/rules/contract.js is generated from spec/openapi.yaml (scripts/generate.test.ts holds it
// current): its facts are the description's, and a description they cannot be read from is refused.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import { parse } from 'yaml';
import * as assert from 'uvu/assert';
import { contractFacts, contractModule, headerIdentifier } from '../contract-facts.ts';
import {
  BASE_PATH,
  CUSTOM_PLANS,
  DEPRECATIONS,
  HEADERS,
  INJECTABLE_CODES,
  INJECTED_ANSWERS,
  LIST_LIMIT,
  LOWER_HEADERS,
  OPERATIONS,
  PET_STATUSES,
  PLAN_LIMITS,
  REFUSAL_CODES,
} from './contract.js';

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

test("every header the responses name, by the name they are sent under, then x-extra-headers and x-fault-injection's", () => {
  assert.equal(Object.values(HEADERS), [
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'Retry-After',
    'Location',
    'Link',
    'Deprecation',
    'Sunset',
    'WWW-Authenticate',
    'RateLimit',
    'RateLimit-Policy',
    'Prefer',
    'X-Fault-Injected',
  ]);
  for (const [id, name] of Object.entries(HEADERS)) assert.is(LOWER_HEADERS[id as keyof typeof LOWER_HEADERS], name.toLowerCase(), id);
});

const IDENTIFIERS: Array<[string, string]> = [
  ['X-RateLimit-Limit', 'rateLimitLimit'],
  ['RateLimit-Policy', 'rateLimitPolicy'],
  ['RateLimit', 'rateLimit'],
  ['WWW-Authenticate', 'wwwAuthenticate'],
  ['Retry-After', 'retryAfter'],
  ['x-fault-injected', 'faultInjected'],
];
for (const [name, id] of IDENTIFIERS) {
  test(`headerIdentifier: ${name} is ${id}`, () => assert.is(headerIdentifier(name), id));
}

test('two header names that would share an identifier are refused', () => {
  const document = described();
  document['x-extra-headers'] = { 'RateLimit-Limit': 'clashes with X-RateLimit-Limit' };
  assert.throws(() => contractFacts(document), /X-RateLimit-Limit and RateLimit-Limit would both be called rateLimitLimit/);
});

test("the injected faults are the description's x-fault-injection", () => {
  assert.equal([...INJECTABLE_CODES], [429, 500, 503]);
  assert.equal({ ...INJECTED_ANSWERS[503] }, { code: 'service_unavailable', message: INJECTED_ANSWERS[503].message, retryAfter: '1' });
  assert.is(REFUSAL_CODES[INJECTED_ANSWERS[429].code], 'key');
});

test('x-fault-injection is optional for a description, not for the generated module', () => {
  const document = described();
  delete document['x-fault-injection'];
  const facts = contractFacts(document);
  assert.is(facts.faultInjection, null);
  assert.is(facts.headers.prefer, undefined);
  assert.throws(() => contractModule(facts), /no x-fault-injection/);
});

const BAD_FAULTS: Array<[string, (fault: any) => void, RegExp]> = [
  ['a 429 code that is no refusal code', (f) => (f.answers['429'].code = 'internal_error'), /answers\.429\.code internal_error is not one of x-refusal-codes/],
  ['a code that is no Error.code', (f) => (f.answers['500'].code = 'oops'), /answers\.500\.code oops is not one of Error\.code/],
  ['a code without its answer', (f) => f.codes.push(502), /x-fault-injection\.answers\.502/],
  ['an answer without a message', (f) => delete f.answers['503'].message, /answers\.503\.message/],
  ['no codes', (f) => (f.codes = []), /lists no status/],
];
for (const [what, spoil, error] of BAD_FAULTS) {
  test(`x-fault-injection with ${what} is refused`, () => {
    const document = described();
    spoil(document['x-fault-injection']);
    assert.throws(() => contractFacts(document), error);
  });
}

test.run();
