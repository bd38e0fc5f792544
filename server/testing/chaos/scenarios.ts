// The file-store chaos scenarios, each one round: cause the fault, restart, audit. `npm test` runs each
// once (chaos.test.ts asserts the rows), `npm run chaos -- --rounds N` runs them N times, beside the
// PostgreSQL and --workers ones (postgres-scenarios.ts, workers-scenarios.ts), and prints them.
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { call, createWhile, fill, launch, Ledger, newRow, start, stop, workFolder, type Row } from './harness.ts';

/** The end of every scenario: a fresh server on the same file, and the account of what survived. */
async function restartAndAudit(row: Row, ledger: Ledger, db: string, bound = false): Promise<void> {
  const again = await start(db, bound);
  await ledger.audit(again.baseUrl);
  row.exits.push(`restart TERM→${await stop(again, 'SIGTERM')}`);
}

/** (a) The disk fills up under creates; then a clean stop, space freed, a restart. */
export async function diskFull(round = 0): Promise<Row> {
  const row = newRow('disk full (256 KiB tmpfs), then SIGTERM');
  const folder = workFolder('256k');
  try {
    const db = join(folder.dir, 'db.json');
    const server = await start(db);
    const ledger = new Ledger(row, `full${round}`);
    // Room for a couple of hundred journal lines, not for another snapshot beside the journal.
    const filler = fill(folder.dir, 12 * 1024);
    let refusals = 0;
    await createWhile(ledger, server.baseUrl, 4, (status) => (status >= 500 && ++refusals >= 10) || status === 0 || row.acknowledged > 3000);
    const refused = await call(server.baseUrl, '/v1/pets', { method: 'POST', body: JSON.stringify({ name: 'refused', categoryId: 1 }) });
    row.checks['a create on the full disk is 503 with Retry-After'] = refused.status === 503 && refused.headers.get('retry-after') === '5';
    const health = await call(server.baseUrl, '/healthz');
    row.checks['/healthz is 503 naming ENOSPC'] = health.status === 503 && JSON.stringify(health.body).includes('ENOSPC');
    row.checks['reads go on'] = (await call(server.baseUrl, '/v1/pets?limit=1')).status === 200;
    row.exits.push(`TERM→${await stop(server, 'SIGTERM')}`);
    row.checks['the failed stop is reported'] = /did not stop cleanly: storage: ENOSPC/.test(server.output.text());
    filler.free();
    await restartAndAudit(row, ledger, db);
    return row;
  } finally {
    folder.cleanup();
  }
}

/**
 * (b) The data folder turns read-only under a running server, then the disk is remounted read-only:
 * a remount fails (EBUSY) while the journal is open for writing, so the running server meets the
 * folder's bits (EACCES on its snapshot: see launch) and the restart meets the remount (EROFS).
 */
export async function readOnly(round = 0): Promise<Row> {
  const row = newRow('read-only folder, then read-only remount');
  const folder = workFolder('1m');
  const mountPoint = join(folder.dir, '..');
  try {
    const db = join(folder.dir, 'db.json');
    const server = await start(db, true);
    const ledger = new Ledger(row, `ro${round}`);
    for (let i = 0; i < 50; i++) await ledger.create(server.baseUrl);
    for (const name of readdirSync(folder.dir)) chmodSync(join(folder.dir, name), 0o444);
    chmodSync(folder.dir, 0o555);
    // The journal, open already, still takes lines: these creates are durable and acknowledged.
    for (let i = 0; i < 20; i++) await ledger.create(server.baseUrl);
    row.exits.push(`TERM→${await stop(server, 'SIGTERM')}`);
    row.checks['the failed stop is reported'] = /did not stop cleanly: storage: EACCES writing the snapshot/.test(server.output.text());
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    const refused = launch(db, true);
    row.exits.push(`start on read-only→${await refused.exited}`);
    row.checks['a start on a read-only disk is refused, naming why'] = /could not start: .*(EROFS|read-only)/.test(refused.output.text());
    execFileSync('mount', ['-o', 'remount,rw', mountPoint]);
    chmodSync(folder.dir, 0o777);
    for (const name of readdirSync(folder.dir)) chmodSync(join(folder.dir, name), 0o644);
    await restartAndAudit(row, ledger, db, true);
    return row;
  } finally {
    folder.cleanup();
  }
}

/** (c) A second server on the same file, then the holder killed -9 and two started at once. */
export async function twoProcesses(round = 0): Promise<Row> {
  const row = newRow('two processes on one file, kill -9 holder');
  const folder = workFolder();
  try {
    const db = join(folder.dir, 'db.json');
    const first = await start(db);
    const ledger = new Ledger(row, `two${round}`);
    for (let i = 0; i < 30; i++) await ledger.create(first.baseUrl);
    const second = launch(db);
    const started = await second.ready;
    const code = started ? 'started' : await second.exited;
    row.exits.push(`second→${code}`);
    row.checks['the second names the holder'] = code === 1 && second.output.text().includes(`in use by process ${first.child.pid} on `);
    for (let i = 0; i < 30; i++) await ledger.create(first.baseUrl);
    // Where a second server does start, it takes creates too, and they must all survive as well.
    if (started) {
      for (let i = 0; i < 30; i++) await ledger.create(started);
      row.exits.push(`second TERM→${await stop(second, 'SIGTERM')}`);
    }
    row.exits.push(`holder KILL→${await stop(first, 'SIGKILL')}`);
    // The stale lock is taken over by exactly one of two servers started together.
    const racers = [launch(db), launch(db)];
    const urls = await Promise.all(racers.map((r) => r.ready));
    const winners = urls.filter((url): url is string => url !== null);
    row.checks['exactly one of two racing starts wins the stale lock'] = winners.length === 1;
    if (winners[0]) await ledger.audit(winners[0]);
    for (const racer of racers) row.exits.push(`racer→${await stop(racer, 'SIGTERM')}`);
    return row;
  } finally {
    folder.cleanup();
  }
}

/** (d) kill -9 under create load while a reader probes the ids just past the last acknowledged one. */
export async function killUnderLoad(round = 0, durationMs = 1500): Promise<Row> {
  const row = newRow('kill -9 under create load, reader probing next ids');
  const folder = workFolder();
  try {
    const db = join(folder.dir, 'db.json');
    const server = await start(db);
    const ledger = new Ledger(row, `kill${round}`);
    const until = Date.now() + durationMs;
    let killed = false;
    const reader = (async () => {
      while (!killed) {
        const next = Math.max(10, ...ledger.acknowledged.keys()) + 1;
        for (let id = next; id < next + 4 && !killed; id++) {
          try {
            const answer = await call(server.baseUrl, `/v1/pets/${id}`);
            if (answer.status === 200) ledger.seen.set(id, (answer.body as { name: string }).name);
          } catch {
            // the server is gone
          }
        }
      }
    })();
    const load = createWhile(ledger, server.baseUrl, 16, (status) => status === 0 || Date.now() > until);
    await new Promise((resolve) => setTimeout(resolve, durationMs));
    row.exits.push(`KILL→${await stop(server, 'SIGKILL')}`);
    killed = true;
    await Promise.all([load, reader]);
    await restartAndAudit(row, ledger, db);
    return row;
  } finally {
    folder.cleanup();
  }
}

export const SCENARIOS = { 'disk-full': diskFull, 'read-only': readOnly, 'two-processes': twoProcesses, 'kill-under-load': killUnderLoad } as const;
