// The --workers chaos scenarios, one round each: `--workers 2` (the real CLI) on a schema of the caller's
// database and a Redis prefix of its own, its workers killed with SIGKILL. A round returns its Tally,
// checks and what it saw (workers.test.ts asserts, `npm run chaos` counts), and stops its primary and
// workers (a killed primary's orphans too) and drops its Redis keys, also after a failure.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { freePort } from '../../../lib/processes.ts';
import { RedisCounters } from '../../rate-limit/redis-counters.ts';
import type { TestDatabase } from '../test-database.ts';
import { startCli, type ServerProcess } from '../process.ts';
import { create, request, tally, type Checked, type CreateOutcome } from './tally.ts';

/** A request that neither answers nor fails within this is hung. */
export const HANG_BOUND_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Services {
  db: TestDatabase;
  redisUrl: string;
}

function kill(pid: number): boolean {
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

interface Cluster extends ServerProcess {
  /** The primary's workers now; every worker ever seen is killed when the round ends. */
  workers: () => number[];
}

/** Starts `--workers 2`, runs `round` on it, then stops the primary and every worker it had and drops its Redis keys. */
async function withCluster<T>(services: Services, schema: string, extra: string[], round: (cluster: Cluster) => Promise<T>): Promise<T> {
  const prefix = `adoption-test:chaos-workers:${randomUUID()}:`;
  const seen = new Set<number>();
  // A port of its own, not 0: when every worker holding the listening socket has died, node:cluster
  // closes it, and the next worker would listen on another random port.
  const server = await startCli([
    '--port',
    String(await freePort()),
    '--quiet',
    '--no-rate-limit',
    '--workers',
    '2',
    '--database',
    `${services.db.url}?schema=${schema}`,
    '--redis',
    services.redisUrl,
    '--redis-prefix',
    prefix,
    ...extra,
  ]);
  const workers = () => {
    try {
      const found = readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      for (const worker of found) seen.add(worker);
      return found;
    } catch {
      return [];
    }
  };
  try {
    return await round({ ...server, workers });
  } finally {
    workers();
    server.child.kill('SIGKILL');
    await server.exited;
    for (const pid of seen) kill(pid);
    const redis = new RedisCounters({ url: services.redisUrl, prefix });
    if (await redis.connect()) await redis.reset().catch(() => undefined);
    await redis.close();
  }
}

export interface InFlightRound extends Checked {
  /** The workers killed (two, 1.5 s and 3.5 s in). */
  killed: number[];
  /** The creates of 16 clients over 6 s, then one create once the workers are back. */
  outcomes: CreateOutcome[];
  after: CreateOutcome;
  /** Workers that logged "listening (restarted)". */
  restarted: number;
  /** The primary's workers once restarted. */
  workers: number[];
  output: string;
}

/** 16 clients creating for 6 s against --workers 2 while a worker is killed -9 twice. */
export function workersInFlight(services: Services): Promise<InFlightRound> {
  const schema = services.db.schema('inflight');
  return withCluster(services, schema, [], async (cluster) => {
    let primaryExits = 0;
    void cluster.exited.then(() => primaryExits++);
    const outcomes: CreateOutcome[] = [];
    const deadline = Date.now() + 6_000;
    let next = 0;
    const clients = Array.from({ length: 16 }, async () => {
      for (let i = 0; i < 400 && Date.now() < deadline; i++) {
        const outcome = await create(cluster.baseUrl, `inflight-${next++}`, HANG_BOUND_MS);
        outcomes.push(outcome);
        // A refused connection fails at once; without a pause the loop would count thousands of them.
        if (outcome.status === 'error') await sleep(50);
      }
    });
    const killed: number[] = [];
    const killer = (async () => {
      for (const wait of [1_500, 2_000]) {
        await sleep(wait);
        const victim = cluster.workers()[0];
        if (victim !== undefined && kill(victim)) killed.push(victim);
      }
    })();
    await Promise.all([...clients, killer]);

    // Restarted: a worker listening again for each one killed, neither of them a killed one, and the server serves.
    const restarted = () => cluster.output().match(/worker \d+ listening \(restarted\)/g)?.length ?? 0;
    for (let i = 0; i < 100 && restarted() < killed.length; i++) await sleep(100);
    const workers = cluster.workers();
    const after = await create(cluster.baseUrl, 'inflight-after', HANG_BOUND_MS);
    const health = await request(`${cluster.baseUrl.replace(/\/v1$/, '')}/healthz`, {}, HANG_BOUND_MS);
    const stored = await services.db.query<{ id: number; name: string }>(`SELECT id::int AS id, name FROM ${schema}.pets WHERE name LIKE 'inflight-%'`);
    const result = tally(`workers: ${killed.length} workers kill -9'd under 16 clients`, [...outcomes, after], stored, primaryExits);
    const output = cluster.output();
    const checks = {
      'two workers were killed': killed.length === 2,
      'every create was answered 201 or 503, or failed at once': outcomes.every((o) => o.status === 201 || o.status === 'error' || o.status === 503),
      'the primary stayed up': result.exits === 0,
      'each killed worker was restarted and listens': restarted() === 2,
      'two workers again, neither a killed one': workers.length === 2 && !workers.some((w) => killed.includes(w)),
      'a create after the restarts succeeds': after.status === 201,
      '/healthz after the restarts is 200': health.status === 200,
      'the primary logged the exit and the restart in 0.1 s': /worker \d+ exited \(SIGKILL\) after [\d.]+ s; restarting it in 0\.1 s/.test(output),
    };
    return { tally: result, checks, killed, outcomes, after, restarted: restarted(), workers, output };
  });
}

export interface GiveUpRound extends Checked {
  /** The primary's exit code; undefined when it was still up after 40 s. */
  code: number | null | undefined;
  kills: number;
  output: string;
}

/** Every worker of --workers 2 --worker-crash-limit 4 killed -9 every 150 ms until the primary exits (40 s at most). */
export function workersGiveUp(services: Services): Promise<GiveUpRound> {
  return withCluster(services, services.db.schema('giveup'), ['--worker-crash-limit', '4'], async (cluster) => {
    let code: number | null | undefined;
    void cluster.exited.then((c) => (code = c));
    let kills = 0;
    const started = Date.now();
    while (code === undefined && Date.now() - started < 40_000) {
      for (const worker of cluster.workers()) if (kill(worker)) kills++;
      await sleep(150);
    }
    const output = cluster.output();
    const result = {
      ...tally(`workers: killed ${kills} times, crash limit 4`, [], [], code === undefined ? 0 : 1),
      scenario: `workers: ${kills} kills, crash limit 4 (primary exit ${code})`,
    };
    const checks = {
      'the primary gave up within 40 s': code !== undefined,
      'the primary exited 1': code === 1,
      'the first crash restarts in 0.1 s': /restarting it in 0\.1 s \(crash 1 of 4/.test(output),
      'the second crash restarts in 0.2 s': /restarting it in 0\.2 s \(crash 2 of 4/.test(output),
      'the fourth crash gives up with exit 1': /4 crashes within 60\.0 s: giving up, stopping every worker, exit 1/.test(output),
    };
    return { tally: result, checks, code, kills, output };
  });
}
