import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { roundTripsLine } from '../server/round-trips.ts';
import { parseRoundTrips } from './round-trips.ts';

test('the last counts of each process are kept, whatever the log lines around them', () => {
  const text = [
    '{"level":30,"msg":"round trips: pid 1 postgres 9 redis 9"}',
    roundTripsLine(11, { postgres: 5, redis: 7 }),
    roundTripsLine(12, { postgres: 1, redis: 2 }),
    roundTripsLine(11, { postgres: 6, redis: 8 }),
  ].join('\n');
  assert.equal(
    [...parseRoundTrips(text)],
    [
      [11, { postgres: 6, redis: 8 }],
      [12, { postgres: 1, redis: 2 }],
    ],
  );
});

test.run();
