// The HAR file is written as the traffic passes: a full disk (Linux's /dev/full answers every write
// with ENOSPC, for real) must not end the run or throw; close() says the file could not be completed.
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../judge/exchange.ts';
import { HarWriter } from './har.ts';
import { eventually } from '../lib/testing/eventually.ts';

const exchange: Exchange = {
  seq: 1,
  operationId: 'listPets',
  purpose: 'GET /v1/pets',
  request: { method: 'GET', url: 'http://t/v1/pets', headers: {} },
  response: { status: 200, headers: { 'content-type': 'application/json' }, body: '[]' },
  sentAt: 1000,
  receivedAt: 1010,
};

test('a disk that is full: every exchange is counted, none throws, close() names the error', async () => {
  if (!existsSync('/dev/full')) throw new Error('/dev/full is missing: this test needs Linux');
  const writer = await HarWriter.open('/dev/full');
  // Enough to pass the stream's buffer, so the writes reach the disk and fail there.
  for (let i = 0; i < 2000; i++) writer.add({ ...exchange, seq: i + 1 });
  // The failure comes back from the disk when it comes (later on a busy machine): only then is the next one counted.
  await eventually(() => writer.error !== undefined, 'the write to /dev/full failing');
  writer.add(exchange);
  const result = await writer.close();
  assert.match(result.error ?? '', /ENOSPC/);
  assert.ok(result.skipped >= 1, 'the exchanges after the failure are counted, not written');
});

test.run();
