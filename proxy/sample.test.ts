// The exchanges of a key the reports keep: the last `keep`, those around refusals (the one before,
// the refusal, the one after) up to `keep` more, every other one counted; long bodies cut.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../judge/exchange.ts';
import { ExchangeSample, KEPT_BODY_CHARS, slim } from './sample.ts';

function exchange(seq: number, status: number, body = '[]'): Exchange {
  return {
    seq,
    operationId: 'listPets',
    purpose: 'GET /v1/pets',
    request: { method: 'GET', url: 'http://t/v1/pets', headers: {} },
    response: { status, headers: {}, body },
    sentAt: seq,
    receivedAt: seq,
  };
}

/** Statuses in order; the seqs kept, and how many dropped. */
const cases: Array<[what: string, keep: number, statuses: number[], kept: number[], dropped: number]> = [
  ['fewer than keep: all of them', 3, [200, 200], [1, 2], 0],
  ['only admitted: the last keep', 2, [200, 200, 200, 200, 200], [4, 5], 3],
  ['a 429 early on: the one before, the refusal and the one after stay', 3, [200, 200, 429, 200, 200, 200, 200, 200], [2, 3, 4, 6, 7, 8], 2],
  ['a run of refusals (a ban answered 403): kept as far as keep more holds, then counted', 3, [200, 429, 403, 403, 200, 200, 200, 200], [1, 2, 3, 6, 7, 8], 2],
  ['a second episode once the first filled the budget: counted, not kept', 3, [200, 429, 200, 200, 429, 200, 200, 200, 200], [1, 2, 3, 7, 8, 9], 3],
  ['keep 0: nothing kept, everything counted', 0, [200, 429, 200], [], 3],
];
for (const [what, keep, statuses, kept, dropped] of cases) {
  test(what, () => {
    const sample = new ExchangeSample(keep);
    statuses.forEach((status, i) => sample.add(exchange(i + 1, status), status === 429 || status === 403));
    const report = sample.report();
    assert.equal(
      report.exchanges.map((e) => e.seq),
      kept,
    );
    assert.is(report.dropped, dropped);
  });
}

test('a body longer than KEPT_BODY_CHARS is kept cut; a short one as it is, not copied', () => {
  const sample = new ExchangeSample(2);
  const short = exchange(1, 200);
  const long = exchange(2, 200, 'x'.repeat(KEPT_BODY_CHARS * 3));
  sample.add(short, false);
  sample.add(long, false);
  const [first, second] = sample.report().exchanges;
  assert.is(first, short);
  assert.is(second!.response!.body.length, KEPT_BODY_CHARS);
  assert.is(slim(second!), second, 'slimming what is slim changes nothing');
  assert.is(long.response!.body.length, KEPT_BODY_CHARS * 3, 'the exchange judged is not changed');
});

test.run();
