// A create acknowledged is a create kept: a process creating pets is killed with SIGKILL mid-load,
// and every id it had printed as acknowledged is in the database, none twice.
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectOutput, freePort, spawnChild, stopChild, waitForOutput } from '../../lib/processes.ts';
import { PostgresPetStore } from './postgres-store.ts';
import { postgresForTests } from '../testing/test-database.ts';
import { START_BOUND_MS } from '../../lib/testing/eventually.ts';

const CHILD = fileURLToPath(new URL('./postgres-durability.child.ts', import.meta.url));
const postgres = await postgresForTests('postgres-durability.test.ts');
const db = postgres.db;

function startChild(url: string, schema: string, ackTarget = Infinity) {
  const child = spawnChild(process.execPath, ['--import', 'tsx', CHILD, url, schema], { stdio: ['ignore', 'pipe', 'pipe'] });
  let acked = 0;
  let reached!: () => void;
  const enoughAcks = new Promise<void>((resolve) => (reached = resolve));
  const output = collectOutput(child, (line) => {
    if (line.startsWith('ack ') && ++acked === ackTarget) reached();
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, output, closed, enoughAcks };
}

const acks = (text: string) => [...text.matchAll(/^ack (\d+)$/gm)].map((m) => Number(m[1]));

const offline = suite('durability child');
offline('against an unreachable database the child exits at once with database_unavailable', async () => {
  const { child, output, closed } = startChild(`postgres://postgres@127.0.0.1:${await freePort()}/none`, 'crash');
  await closed;
  assert.is(child.exitCode, 1);
  assert.match(output.text(), /^database_unavailable: The database postgres:\/\/postgres@127\.0\.0\.1:\d+\/none \(schema "crash"\) is unavailable/m);
});
offline.run();

const t = suite('PostgresPetStore durability');
const it = postgres.register(t);
t.after(async () => db?.drop());

it('after kill -9 mid-load, every acknowledged id is in the database and none appears twice', async () => {
  const schema = db!.schema('crash');
  // Mid-load: well past the first acknowledgements, with creates in flight on every lane.
  const { child, output, closed, enoughAcks } = startChild(db!.url, schema, 300);
  try {
    await waitForOutput(child, output, /^ready$/m, START_BOUND_MS, 'the durability child');
    const first = await Promise.race([enoughAcks.then(() => 'acks'), closed.then(() => 'exited')]);
    if (first === 'exited') throw new Error(`the durability child exited before 300 acks:\n${output.text().slice(-2000)}`);
  } finally {
    await stopChild(child, 'SIGKILL');
    await closed;
  }
  assert.is(child.signalCode, 'SIGKILL');

  const acknowledged = acks(output.text());
  assert.ok(acknowledged.length >= 300, `${acknowledged.length} acknowledged`);
  assert.is(new Set(acknowledged).size, acknowledged.length, 'no id acknowledged twice');
  const rows = await db!.query<{ id: string }>(`SELECT id FROM ${schema}.pets`);
  const stored = new Set(rows.map((r) => Number(r.id)));
  assert.is(stored.size, rows.length, 'no id stored twice');
  const lost = acknowledged.filter((id) => !stored.has(id));
  assert.equal(lost, [], 'every acknowledged id was kept');

  // The store opens again after the crash and hands out ids above every one used.
  const store = await PostgresPetStore.open({ url: db!.url, schema }, []);
  const next = await store.create({ name: 'after the crash', categoryId: 1, status: 'sold' });
  assert.ok(next.id > Math.max(...stored), `next id ${next.id}`);
  await store.close();
});

t.run();
