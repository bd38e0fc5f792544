// "Redis restarted empty under load": two server instances share a redis-server of the round's own
// (a free port, nothing saved), which is killed under load and started again without its data. The
// pro key's admitted requests over the whole round, all in one window (the instances' clock is a
// manual one that never moves), must stay within the bound the fail-open rule states: the number of
// instances times the key's limit (server/README.md, Decisions). The round stops both instances and
// its redis-server, also after a failure.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Server } from '@hapi/hapi';
import { freePort } from '../../../lib/processes.ts';
import { within } from '../../../lib/testing/eventually.ts';
import { killRedis, startRedis } from '../private-redis.ts';
import { ManualClock } from '../../clock.ts';
import type { FailoverCounters } from '../../rate-limit/failover-counters.ts';
import type { RedisCounters } from '../../rate-limit/redis-counters.ts';
import { createServer } from '../../server.ts';
import { request } from './tally.ts';

const PRO = 'Bearer test-pro-key';
const PRO_PER_MINUTE = 300;
const INSTANCES = 2;
/** Requests in flight at once, half of them on each instance. */
const CONCURRENCY = 8;
/** A request that neither answers nor fails within this is hung. */
const HANG_BOUND_MS = 10_000;
/** Every phase ends within this many requests and this long, whatever the server does. */
const PHASE_MAX_REQUESTS = 2_000;
const PHASE_MAX_MS = 30_000;

export interface RedisEmptyRound {
  /** Pro-key requests answered 200, over the whole round. */
  admitted: number;
  /** Admitted before Redis was killed, while it was away, and after it came back empty. */
  phases: { before: number; away: number; after: number };
  /** What the fail-open rule allows in one window: instances × the key's limit. */
  bound: number;
  sent: number;
  hung: number;
  /** Answers other than 200 and 429 (a 5xx would say the outage reached the API). */
  other: number;
  checks: Record<string, boolean>;
}

export async function redisRestartedEmpty(): Promise<RedisEmptyRound> {
  const port = await freePort();
  const clock = new ManualClock();
  const servers: Server[] = [];
  let redis: ChildProcess | undefined;
  let sent = 0;
  let hung = 0;
  let other = 0;
  try {
    redis = await startRedis(port);
    const prefix = `adoption-test:chaos-redis:${randomUUID()}:`;
    for (let i = 0; i < INSTANCES; i++) {
      const server = await createServer({
        host: '127.0.0.1',
        port: 0,
        logger: false,
        clock,
        redisUrl: `redis://127.0.0.1:${port}`,
        rateLimit: { redisPrefix: prefix },
      });
      servers.push(server);
      await server.start();
    }
    const counters = servers.map((s) => s.plugins['rate-limit']!.counters as FailoverCounters<RedisCounters>);

    /** Load on every instance until `done` says so (asked before each request), bounded in requests and time. */
    const load = async (done: (admitted: number, refusedBy: readonly number[]) => boolean): Promise<number> => {
      let admitted = 0;
      const refused = servers.map(() => 0);
      let phaseSent = 0;
      const until = Date.now() + PHASE_MAX_MS;
      const worker = async (w: number) => {
        while (phaseSent < PHASE_MAX_REQUESTS && Date.now() < until && !done(admitted, refused)) {
          const at = w % servers.length;
          const server = servers[at]!;
          phaseSent++;
          sent++;
          const answer = await request(`${server.info.uri}/v1/pets?limit=1`, { headers: { authorization: PRO } }, HANG_BOUND_MS);
          if (answer.status === 200) admitted++;
          else if (answer.status === 429) refused[at]!++;
          else if (answer.status === 'hung') hung++;
          else other++;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
      return admitted;
    };

    const before = await load((admitted) => admitted >= PRO_PER_MINUTE / 3);
    await killRedis(redis);
    // Until both instances limit alone and refuse: each has admitted all its fallback allows.
    const everyOneRefuses = (_: number, refusedBy: readonly number[]) => refusedBy.every((n) => n >= CONCURRENCY);
    const away = await load(everyOneRefuses);
    redis = await startRedis(port);
    // Under load while they reconnect, then until the shared count refuses again.
    const reconnection: { done: boolean; error?: Error } = { done: false };
    const ready = within(Promise.all(counters.map((c) => c.primary.whenReady())), 15_000, 'both instances reconnect').then(
      () => (reconnection.done = true),
      (error: Error) => Object.assign(reconnection, { done: true, error }),
    );
    const afterA = await load(() => reconnection.done);
    await ready;
    if (reconnection.error) throw reconnection.error;
    const afterB = await load(everyOneRefuses);
    const admitted = before + away + afterA + afterB;
    const bound = INSTANCES * PRO_PER_MINUTE;
    const stillShared = !counters.some((c) => c.degraded);
    return {
      admitted,
      phases: { before, away, after: afterA + afterB },
      bound,
      sent,
      hung,
      other,
      checks: {
        [`the pro key was admitted at most ${bound} times in one window (${INSTANCES} instances × ${PRO_PER_MINUTE}): ${admitted}`]: admitted <= bound,
        [`it was admitted at least its limit (${PRO_PER_MINUTE}), so the bound was reached for: ${admitted}`]: admitted >= PRO_PER_MINUTE,
        'both instances count in Redis again': stillShared,
        'no request hung, none answered other than 200 or 429': hung === 0 && other === 0,
      },
    };
  } finally {
    for (const server of servers) await server.stop({ timeout: 1_000 }).catch(() => undefined);
    if (redis) await killRedis(redis);
  }
}
