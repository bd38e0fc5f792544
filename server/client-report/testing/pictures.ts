// The picture of the server guide's client report: the badly-behaved client of
// client-report.test.ts (110 requests 10 ms apart, every fourth to getPet, never waiting), as
// `adoption-kit client-report --html` draws it. Driven by inject on a manual clock, so `npm run
// generate` draws the same picture every time.
import { timelineSvg } from '../../../spec/rules/timeline-svg.js';
import { ManualClock } from '../../clock.ts';
import { createServer } from '../../server.ts';
import type { ClientReport } from '../../../judge/client-obligations.ts';

const TOKEN = 'picture-admin-token';

export async function badlyBehavedClientSvg(): Promise<string> {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const server = await createServer({ host: '127.0.0.1', port: 0, clock, storage: { type: 'memory' }, logger: false, adminToken: TOKEN });
  try {
    for (let i = 0; i < 110; i++) {
      await server.inject({ url: i % 4 === 0 ? '/v1/pets/1' : '/v1/pets?limit=1', headers: { authorization: 'Bearer test-free-key' } });
      clock.advance(10);
    }
    const res = await server.inject({ url: '/__admin/clients', headers: { authorization: `Bearer ${TOKEN}` } });
    const [client] = (JSON.parse(res.payload) as { clients: ClientReport[] }).clients;
    return timelineSvg({ key: client!.key, points: client!.timeline, title: `The client report of a client that never waits (${client!.key}, free plan)` });
  } finally {
    await server.stop();
  }
}
