// The keys a watcher is shown: a page of them, those with findings first, then the busiest, or those a
// search names; and the proxy's counters, bounded, forgetting the least recently active key first.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyRanks, pickLabels, type KeyRank } from './ranks.ts';

const rank = (label: string, requests: number, findings = 0): KeyRank => ({ label, requests, findings });
const KEYS = [rank('calm…', 5), rank('busy…', 90), rank('bad…', 1, 2), rank('Other…', 40), rank('worse…', 3, 1), rank('busy2…', 90)];

const cases: Array<[string, { limit: number; search?: string }, string[], number]> = [
  ['the most findings first, then the busiest, ties by label', { limit: 10 }, ['bad…', 'worse…', 'busy2…', 'busy…', 'Other…', 'calm…'], 6],
  ['a page of them', { limit: 3 }, ['bad…', 'worse…', 'busy2…'], 6],
  ['a search by label, any case', { limit: 10, search: 'BUSY' }, ['busy2…', 'busy…'], 2],
  ['a search within the page', { limit: 1, search: 'o' }, ['worse…'], 2],
  ['a search that names none', { limit: 10, search: 'zzz' }, [], 0],
  ['no page at all still counts', { limit: 0 }, [], 6],
];
for (const [name, query, labels, matched] of cases)
  test(`pickLabels: ${name}`, () => {
    assert.equal(pickLabels(KEYS, query), { labels, matched });
  });

test('pickLabels over 3,000 keys keeps the page, whatever the order they come in', () => {
  const many = Array.from({ length: 3000 }, (_, i) => rank(`k${i}`, (i * 7919) % 3001));
  const { labels } = pickLabels(many, { limit: 50 });
  const expected = [...many].sort((a, b) => b.requests - a.requests || (a.label < b.label ? -1 : 1)).slice(0, 50);
  assert.equal(
    labels,
    expected.map((k) => k.label),
  );
});

test('KeyRanks counts exchanges and findings by label, and forgets the least recently active past its bound', () => {
  const ranks = new KeyRanks(3);
  for (const label of ['a', 'b', 'a', 'c', 'a']) ranks.seen(label);
  ranks.found('b');
  ranks.found('c', 4);
  ranks.found('c', 2);
  ranks.found('never-seen');
  assert.equal(ranks.list({ limit: 10 }), { labels: ['c', 'b', 'a'], total: 3, matched: 3 });
  ranks.seen('d');
  assert.equal(ranks.list({ limit: 10 }).labels, ['c', 'a', 'd'], 'b, the least recently active, is forgotten');
  ranks.forget('c');
  assert.equal(ranks.list({ limit: 10 }), { labels: ['a', 'd'], total: 2, matched: 2 });
});

test.run();
