import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtureApiKeys } from './fixtures.ts';
import { loadContract } from './contract.ts';
import { KeyRing, type ApiKeyRecord } from './keys.ts';

const { plans } = await loadContract();

test('the fixture keys map to their plans and the specification limits', () => {
  const ring = new KeyRing(fixtureApiKeys(), plans);
  const table: Array<[string, string, number, number]> = [
    ['test-free-key', 'free', 60, 1_000],
    ['test-pro-key', 'pro', 300, 10_000],
    ['test-business-key', 'business', 1_000, 100_000],
  ];
  for (const [key, plan, perMinute, perDay] of table) {
    const found = ring.lookup(key);
    assert.ok(found, key);
    assert.is(found.plan, plan);
    assert.equal(found.limits, { perMinute, perDay });
  }
  const enterprise = ring.lookup('test-enterprise-key');
  assert.is(enterprise?.plan, 'enterprise');
  assert.equal(enterprise?.limits, fixtureApiKeys().find((r) => r.plan === 'enterprise')?.limits);
});

test('unknown, near-miss and empty tokens are not found', () => {
  const ring = new KeyRing(fixtureApiKeys(), plans);
  for (const token of ['', 'test-free-ke', 'test-free-key ', 'TEST-FREE-KEY', 'x'.repeat(10_000)]) {
    assert.is(ring.lookup(token), undefined, JSON.stringify(token.slice(0, 20)));
  }
});

test('the keyId is a stable hash, never the key itself', () => {
  const a = new KeyRing(fixtureApiKeys(), plans).lookup('test-free-key');
  const b = new KeyRing(fixtureApiKeys(), plans).lookup('test-free-key');
  assert.is(a?.keyId, b?.keyId);
  assert.match(a!.keyId, /^[0-9a-f]{16}$/);
  assert.not.ok(JSON.stringify(a).includes('test-free-key'));
});

const invalid: Array<[string, ApiKeyRecord[]]> = [
  ['enterprise without limits', [{ key: 'enterprise-1', plan: 'enterprise' }]],
  ['unknown plan', [{ key: 'some-key-1', plan: 'gold' as never }]],
  [
    'duplicate keys',
    [
      { key: 'same-key-1', plan: 'free' },
      { key: 'same-key-1', plan: 'pro' },
    ],
  ],
  ['short key', [{ key: 'abc', plan: 'free' }]],
  ['a minute limit above the day limit (never reachable)', [{ key: 'enterprise-1', plan: 'enterprise', limits: { perMinute: 1000, perDay: 999 } }]],
  ['no keys', []],
];
for (const [name, records] of invalid) {
  test(`an invalid key list is refused: ${name}`, () => {
    assert.throws(() => new KeyRing(records, plans), /Invalid API key list/);
  });
}

test('the refusal of a minute limit above the day limit names both', () => {
  assert.throws(
    () => new KeyRing([{ key: 'enterprise-1', plan: 'enterprise', limits: { perMinute: 1000, perDay: 999 } }], plans),
    /perDay" must be greater than or equal to ref:perMinute/,
  );
});

test.run();
