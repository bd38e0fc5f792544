// The flaw harness: which target a flaw runs on, and whether a proxy stands in front of it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { raceBarrier } from '../second-server/test-support.ts';
import { startTarget } from './harness.ts';
import type { ProxyResponse } from './proxy.ts';

const harness = suite('flaw harness');

harness("starts a flaw's secondBuild on the second implementation, with no proxy; the reference keeps the proxy", async () => {
  const barrier = raceBarrier();
  const flaw = { secondBuild: { race: { ids: true, gap: barrier.gap } }, response: (res: ProxyResponse) => ({ ...res, status: 418 }) };
  const second = await startTarget(flaw, 'second');
  try {
    const headers = { authorization: `Bearer ${second.apiKey}`, 'content-type': 'application/json' };
    barrier.arm(2);
    const created = await Promise.all(
      ['Ash', 'Birch'].map((name) => fetch(`${second.baseUrl}/pets`, { method: 'POST', headers, body: JSON.stringify({ name, categoryId: 1 }) })),
    );
    assert.equal(
      created.map((res) => res.status),
      [201, 201],
      'no proxy in front',
    );
    const [a, b] = await Promise.all(created.map(async (res) => ((await res.json()) as { id: number }).id));
    assert.is(a, b, 'the racy build itself');
  } finally {
    await second.stop();
  }
  const reference = await startTarget(flaw);
  try {
    assert.is((await fetch(`${reference.baseUrl}/pets`, { headers: { authorization: `Bearer ${reference.apiKey}` } })).status, 418, 'proxied');
  } finally {
    await reference.stop();
  }
});

harness.run();
