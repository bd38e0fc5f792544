// What a sent Deprecation or Sunset says about getPet, judged against the specification: a
// Deprecation not after the response, a Sunset on 5 December 2030 in some time zone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatHttpDate } from '../../spec/rules/fields.js';
import type { Exchange } from '../exchange.ts';
import { Ledger } from '../ledger.ts';
import { loadContract } from '../contract.ts';
import { deprecationChecks } from './deprecation.ts';

const contract = await loadContract();
const NOW = Date.UTC(2027, 5, 1, 12);

function outcome(id: string, headers: Record<string, string>): string | undefined {
  const ledger = new Ledger(deprecationChecks.checks);
  const view = ledger.scope(
    deprecationChecks.name,
    deprecationChecks.checks.map((c) => c.id),
  );
  const ex: Exchange = {
    seq: 1,
    operationId: 'getPet',
    purpose: 'get a pet',
    request: { method: 'GET', url: 'http://127.0.0.1:1/v1/pets/1', headers: {} },
    sentAt: NOW,
    receivedAt: NOW,
    response: { status: 200, headers: { 'content-type': 'application/json', date: formatHttpDate(NOW), ...headers }, body: '{}' },
  };
  deprecationChecks.inspect!(ex, { ledger: view, contract, options: { profile: 'full' } });
  return ledger.results({ strict: true, selected: () => undefined }).find((r) => r.id === id)?.outcome;
}

const deprecation = `@${Math.floor(Date.UTC(2026, 0, 1) / 1000)}`;
const cases: Array<[string, string, Record<string, string>, string]> = [
  ['Sunset at noon UTC on the day', 'deprecation.sunset-day', { deprecation, sunset: 'Thu, 05 Dec 2030 12:00:00 GMT' }, 'passed'],
  [
    'Sunset at midnight of the day in UTC+1 (23:00 the day before, UTC)',
    'deprecation.sunset-day',
    { deprecation, sunset: 'Wed, 04 Dec 2030 23:00:00 GMT' },
    'passed',
  ],
  ['Sunset at 11:00 UTC the day after (the day in UTC-12)', 'deprecation.sunset-day', { deprecation, sunset: 'Fri, 06 Dec 2030 11:00:00 GMT' }, 'passed'],
  ['Sunset a day before the day anywhere', 'deprecation.sunset-day', { deprecation, sunset: 'Wed, 04 Dec 2030 09:00:00 GMT' }, 'failed'],
  ['Sunset a year early', 'deprecation.sunset-day', { deprecation, sunset: 'Wed, 05 Dec 2029 12:00:00 GMT' }, 'failed'],
  ['Deprecation in the past', 'deprecation.date-past', { deprecation }, 'passed'],
  ['Deprecation a month after the response', 'deprecation.date-past', { deprecation: `@${Math.floor(NOW / 1000) + 30 * 86400}` }, 'failed'],
];
for (const [name, id, headers, expected] of cases) {
  test(`${name}: ${id} ${expected}`, () => {
    assert.is(outcome(id, headers), expected);
  });
}

test.run();
