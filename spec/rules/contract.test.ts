// spec/rules/contract.js is generated from spec/openapi.yaml (scripts/generate.test.ts holds it
// current): its facts are the description's, and a description they cannot be read from is refused.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import { parse } from 'yaml';
import * as assert from 'uvu/assert';
import { contractFacts } from '../contract-facts.ts';
import { BASE_PATH, CUSTOM_PLANS, DEPRECATIONS, LIST_LIMIT, PET_STATUSES, PLAN_LIMITS } from './contract.js';

test('the facts are read from the description, not restated', () => {
  assert.equal([...PET_STATUSES], ['available', 'pending', 'sold']);
  assert.equal({ ...LIST_LIMIT }, { minimum: 1, maximum: 100, default: 20 });
  assert.is(PLAN_LIMITS.free.perMinute, 60);
  assert.is(PLAN_LIMITS.business.perDay, 100_000);
  assert.equal([...CUSTOM_PLANS], ['enterprise']);
  assert.is(DEPRECATIONS.getPet.sunset, '2030-12-05T00:00:00Z');
  assert.equal([...DEPRECATIONS.getPet.decisions], ['since']);
  assert.is(BASE_PATH, '/v1');
});

test('a description the facts cannot be read from is refused, naming what is missing', () => {
  assert.throws(() => contractFacts({ info: { version: '1' } }), /components/);
  const document = parse(readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8')) as Record<string, never>;
  assert.throws(() => contractFacts({ ...document, servers: [{ url: 'https://a.test/v1' }, { url: 'https://b.test/v2' }] }), /servers disagree/);
});

test.run();
