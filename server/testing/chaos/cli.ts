// `npm run chaos [-- --rounds N] [scenario...]`: every chaos scenario on the real server, N rounds each
// (3), a line per round and a summary per scenario. File-store scenarios need root (tmpfs), the others
// PostgreSQL (TEST_DATABASE_URL) and, for --workers, Redis (REDIS_URL); redis-empty runs redis-servers of its own. Exit 1 when a round failed
// (server/README.md, When the disk fails), 2 when it cannot run what was asked.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../test-database.ts';
import { postgresProblem } from '../../store/postgres-admin.ts';
import { REDIS_URL, tcpProbe } from '../services.ts';
import { isRoot, newRow, rowOf, type Row } from './harness.ts';
import { redisRestartedEmpty } from './redis-scenarios.ts';
import { pgDown, pgLock, pgTerminate } from './postgres-scenarios.ts';
import { bodies } from './leaks.ts';
import { isBad, summary, tableHead, tableLine } from './report.ts';
import { SCENARIOS } from './scenarios.ts';
import { workersGiveUp, workersInFlight } from './workers-scenarios.ts';

type Need = 'root' | 'postgres' | 'redis' | 'redis-server';

interface Scenario {
  needs: readonly Need[];
  run: (round: number) => Promise<Row>;
}

/** The run's own database, made when a scenario first needs it. */
let database: Promise<TestDatabase> | undefined;
const db = () => (database ??= createTestDatabase());

const ALL: Record<string, Scenario> = {
  ...Object.fromEntries(Object.entries(SCENARIOS).map(([name, run]) => [name, { needs: ['root'], run: (round: number) => run(round) }])),
  'pg-terminate': { needs: ['postgres'], run: async () => rowOf(await pgTerminate(await db())) },
  'pg-lock': { needs: ['postgres'], run: async () => rowOf(await pgLock(await db())) },
  'pg-down': { needs: ['postgres'], run: async () => rowOf(await pgDown(await db())) },
  'workers-kill': { needs: ['postgres', 'redis'], run: async () => rowOf(await workersInFlight({ db: await db(), redisUrl: REDIS_URL })) },
  'workers-give-up': { needs: ['postgres', 'redis'], run: async () => rowOf(await workersGiveUp({ db: await db(), redisUrl: REDIS_URL })) },
  'redis-empty': {
    needs: ['redis-server'],
    run: async () => {
      const round = await redisRestartedEmpty();
      return { ...newRow('redis-empty'), hung: round.hung, checks: round.checks };
    },
  },
};

/** A round still running after this is counted as hung, and the run stops there. */
const ROUND_BOUND_MS = 5 * 60_000;

function refuse(message: string): never {
  process.stderr.write(`npm run chaos: ${message}\n`);
  process.exit(2);
}

const { values, positionals } = parseArgs({ options: { rounds: { type: 'string', default: '3' } }, allowPositionals: true });
const rounds = Number(values.rounds);
if (!Number.isSafeInteger(rounds) || rounds < 1) refuse('--rounds must be a positive integer');
const names = positionals.length > 0 ? [...new Set(positionals)] : Object.keys(ALL);
const unknown = names.filter((name) => !(name in ALL));
if (unknown.length > 0) refuse(`no scenario ${unknown.join(', ')} (there are ${Object.keys(ALL).join(', ')})`);

const needs = new Set(names.flatMap((name) => ALL[name]!.needs));
const PROBES: Record<Need, () => Promise<string | null>> = {
  root: async () => (isRoot() ? null : 'must run as root (the file-store scenarios mount small tmpfs file systems)'),
  postgres: async () => {
    const problem = await postgresProblem(ADMIN_URL);
    return problem && `PostgreSQL does not answer (${problem}); start it or set TEST_DATABASE_URL`;
  },
  redis: async () => {
    const problem = await tcpProbe(REDIS_URL, 6379)();
    return problem && `Redis does not answer (${problem}); start it or set REDIS_URL`;
  },
  'redis-server': async () =>
    (process.env.PATH ?? '').split(':').some((dir) => existsSync(`${dir}/redis-server`)) ? null : 'redis-server is not on PATH (apt-get install redis-server)',
};
const problems = (await Promise.all([...needs].map((need) => PROBES[need]()))).filter((p): p is string => p !== null);
if (problems.length > 0) refuse(`${problems.join('; ')} (or name only the scenarios that need nothing missing)`);

/** One round; a round that throws is a failed check, one that outlasts ROUND_BOUND_MS a hang that stops the run. */
async function runRound(name: string, round: number): Promise<{ row: Row; stop: boolean }> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ROUND_BOUND_MS)));
  try {
    const row = await Promise.race([ALL[name]!.run(round), bound]);
    if (row) return { row, stop: false };
    const hung = newRow(name);
    hung.hung = 1;
    hung.checks[`the round ends within ${ROUND_BOUND_MS / 60_000} min`] = false;
    return { row: hung, stop: true };
  } catch (error) {
    process.stderr.write(`npm run chaos: ${name} round ${round + 1}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    const failed = newRow(name);
    failed.checks[`the round runs to its end (${String(error instanceof Error ? error.message : error).split('\n')[0]})`] = false;
    return { row: failed, stop: false };
  } finally {
    clearTimeout(timer);
  }
}

const results = new Map<string, Row[]>();
let stopped = false;
try {
  process.stdout.write(tableHead());
  for (const name of names) {
    const rows: Row[] = [];
    results.set(name, rows);
    for (let round = 0; round < rounds && !stopped; round++) {
      const { row, stop } = await runRound(name, round);
      rows.push(row);
      process.stdout.write(tableLine(`${name} ${round + 1}/${rounds}`, row));
      stopped = stop;
    }
    if (stopped) break;
  }
} finally {
  await (
    await database?.catch(() => undefined)
  )
    ?.drop()
    .catch((error: Error) => process.stderr.write(`npm run chaos: dropping the database: ${error.message}\n`));
}
process.stdout.write(summary(results));
process.stdout.write(`5xx and /healthz bodies searched for addresses, users and paths: ${bodies.checked}, leaking: ${bodies.leaked}\n`);
for (const leak of bodies.leaks) process.stdout.write(`  ${leak.status} ${leak.url}: ${leak.found} in ${leak.body}\n`);
if (stopped) process.stdout.write(`stopped after a round that did not end within ${ROUND_BOUND_MS / 60_000} min\n`);
process.exit([...results.values()].flat().some(isBad) || bodies.leaked > 0 ? 1 : 0);
