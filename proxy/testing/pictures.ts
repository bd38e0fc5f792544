// The picture of the proxy guide: the misbehaving client of proxy.test.ts against the reference
// server, judged by the proxy's own judge. Here the client's requests reach the server by inject
// on the same manual clock, so `npm run generate` draws it without a network; proxy.test.ts checks
// that the real proxy, over HTTP, sees exactly these points.
import { loadContract, type Exchange, type OperationId } from '../../judge/index.ts';
import { ManualClock } from '../../server/clock.ts';
import { createServer } from '../../server/server.ts';
import type { Timeline } from '../../spec/rules/timeline-svg.js';
import { TrafficJudge } from '../judge.ts';

export const MISBEHAVING_KEY = 'test-free-key';
export const START_MS = Date.UTC(2026, 5, 1, 12, 0, 0);

/** The misbehaving client's requests: every fourth the deprecated getPet, 100 ms apart, never waiting. */
export function misbehavingRequests(): Array<{ path: string; operationId: OperationId }> {
  return Array.from({ length: 100 }, (_, i) =>
    i % 4 === 0 ? { path: '/v1/pets/1', operationId: 'getPet' as const } : { path: '/v1/pets?limit=1', operationId: 'listPets' as const },
  );
}

/** The misbehaving client's requests, sent by inject to a reference server on `clock` and judged by `judge` as the proxy would. */
export async function playMisbehavingClient(judge: TrafficJudge, clock: ManualClock): Promise<void> {
  const server = await createServer({ host: '127.0.0.1', port: 0, clock, storage: { type: 'memory' }, logger: false });
  try {
    let seq = 0;
    for (const { path, operationId } of misbehavingRequests()) {
      const sentAt = clock.now();
      const res = await server.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${MISBEHAVING_KEY}` } });
      const headers = Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
      const exchange: Exchange = {
        seq: ++seq,
        operationId,
        purpose: `GET ${path}`,
        request: { method: 'GET', url: path, headers: {} },
        response: { status: res.statusCode, headers, body: res.payload },
        sentAt,
        receivedAt: clock.now(),
      };
      judge.observe({ exchange, key: MISBEHAVING_KEY });
      clock.advance(100);
    }
  } finally {
    await server.stop();
  }
}

/** The timeline the proxy draws for the misbehaving client's key. */
export async function misbehavingClientTimeline(): Promise<Timeline> {
  const judge = new TrafficJudge({ contract: await loadContract(), dateHeader: false });
  await playMisbehavingClient(judge, new ManualClock(START_MS));
  const [key] = judge.report();
  return { ...key!.timeline, title: 'A client that never waits, through the proxy to the reference server (free plan, Limit 60)' };
}
