// A 429 is charged to the budget its Error code names in the description's x-refusal-codes; a code
// the description does not name, or a description without them, is charged by the request's
// credentials, so another implementation's codes are never needed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REFUSAL_CODES } from '../spec/rules/contract.js';
import type { Exchange } from '../judge/exchange.ts';
import { Pacer, type PacerOptions } from './pacing.ts';

const NOW = 1_800_000_000_000;
const KEY = 'Bearer run-key';

function pacer(refusalCodes: PacerOptions['refusalCodes']): Pacer {
  return new Pacer({
    clock: { now: () => NOW },
    wait: async () => undefined,
    maxWaitMs: 60_000,
    dateHeader: false,
    clockToleranceSeconds: 1,
    keyAuthorization: KEY,
    refusalCodes,
  });
}

/** A 429 with `code`, answering a request sent with `authorization` (none: without a key). */
function refusal(code: string, authorization?: string): Exchange {
  return {
    seq: 1,
    operationId: 'listPets',
    purpose: 'list',
    request: { method: 'GET', url: 'http://127.0.0.1:3000/v1/pets', headers: authorization ? { authorization } : {} },
    response: {
      status: 429,
      headers: { 'retry-after': '5', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 5) },
      body: JSON.stringify({ code, message: 'refused', status: 429 }),
    },
    sentAt: NOW,
    receivedAt: NOW,
  };
}

async function budgetOf(p: Pacer, exchange: Exchange): Promise<string | undefined> {
  assert.ok(await p.after(exchange), 'a 429 is retried');
  return p.attributed.at(-1)?.budget;
}

test('every refusal code of the description is charged to the budget it names, whatever the request carried', async () => {
  for (const [code, budget] of Object.entries(REFUSAL_CODES)) {
    // Sent with the run's key, an address refusal is still the address's, and the reverse.
    const authorization = budget === 'address' ? KEY : undefined;
    assert.is(await budgetOf(pacer(REFUSAL_CODES), refusal(code, authorization)), budget, code);
  }
});

test('a code the description does not name is charged by the credentials the request carried', async () => {
  assert.is(await budgetOf(pacer(REFUSAL_CODES), refusal('too_many', KEY)), 'key');
  assert.is(await budgetOf(pacer(REFUSAL_CODES), refusal('too_many')), 'address');
});

test('without x-refusal-codes (another description) every 429 is charged by credentials', async () => {
  assert.is(await budgetOf(pacer({}), refusal('rate_limited_ip', KEY)), 'key');
  assert.is(await budgetOf(pacer({}), refusal('key_banned')), 'address');
  // Names inherited by every object are not codes.
  assert.is(await budgetOf(pacer({}), refusal('constructor', KEY)), 'key');
});

test.run();
