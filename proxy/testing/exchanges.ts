// Exchanges as the judge's object ops read them, for the tests that feed a judge directly.
import type { Exchange } from '../../judge/index.ts';

/** GET /v1/pets answered 200 with an empty list, sent at 1,000 + seq ms and answered a millisecond later. */
export function listedExchange(seq: number): Exchange {
  return {
    seq,
    operationId: 'listPets',
    purpose: 'GET /v1/pets',
    request: { method: 'GET', url: 'http://t/v1/pets', headers: {} },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: '[]' },
    sentAt: 1_000 + seq,
    receivedAt: 1_001 + seq,
  };
}
