// The flaw proxy when the implementation fails it: a connection closed or reset still ends in the
// flaw's response hook, so that what a flaw counts in flight comes back down.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CONCURRENCY_FLAWS } from './concurrency.ts';
import { startFlawProxy, type ProxyResponse } from './proxy.ts';

const proxy = suite('flaw proxy: a target that closes the connection');

/** An implementation that drops every connection without answering, as one closing after a 413 or reset may. */
async function closingTarget(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req) => req.socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

proxy('answers 502 through the response hook, which sees the 502 and has the last word', async () => {
  const { origin, server } = await closingTarget();
  const seen: number[] = [];
  const flawed = await startFlawProxy(origin, {
    response: (res: ProxyResponse) => {
      seen.push(res.status);
      return { ...res, headers: { ...res.headers, 'x-flaw-hook': 'ran' } };
    },
  });
  try {
    const res = await fetch(`${flawed.origin}/v1/pets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.is(res.status, 502);
    assert.match(await res.text(), /^flaw proxy: /);
    assert.is(res.headers.get('x-flaw-hook'), 'ran');
    assert.equal(seen, [502]);
  } finally {
    await flawed.close();
    server.close();
  }
});

proxy('a failed request leaves racy-limiter nothing in flight: its memory of the key is gone', async () => {
  const { origin, server } = await closingTarget();
  const racy = CONCURRENCY_FLAWS.find((f) => f.id === 'racy-limiter')!;
  let memory: Map<string, unknown> | undefined;
  const flawed = await startFlawProxy(origin, {
    request: (req, state) => {
      memory = state.memory;
      return racy.request!(req, state);
    },
    response: racy.response!,
  });
  try {
    for (const key of ['a', 'b']) {
      const res = await fetch(`${flawed.origin}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
      assert.is(res.status, 502, key);
    }
    assert.equal([...memory!.keys()], []);
  } finally {
    await flawed.close();
    server.close();
  }
});

proxy.run();
