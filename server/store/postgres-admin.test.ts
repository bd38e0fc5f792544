// The database chores the test helper and the benchmark share: a database created is reachable at
// its URL, and dropping it works even while a client still holds a connection to it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_URL, postgresService } from '../testing/test-database.ts';
import { createDatabase, dropDatabase, postgresProblem, withDatabase } from './postgres-admin.ts';

const service = await postgresService('postgres-admin.test.ts');
const t = suite('PostgreSQL admin chores');
const it = service.register(t);

it('a created database answers at its URL; dropped, even with a client still on it, it is gone', async () => {
  const name = `adoption_admin_${process.pid}_${randomBytes(3).toString('hex')}`;
  const url = withDatabase(ADMIN_URL, name);
  assert.ok((await postgresProblem(url)) !== null, 'it does not exist yet');
  await createDatabase(ADMIN_URL, name);
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    assert.is(await postgresProblem(url), null);
    await client.connect();
    await dropDatabase(ADMIN_URL, name);
    assert.match(String(await postgresProblem(url)), /does not exist/);
    // Dropping what is gone already is no error: a cleanup may run twice.
    await dropDatabase(ADMIN_URL, name);
  } finally {
    await client.end().catch(() => undefined);
    await dropDatabase(ADMIN_URL, name);
  }
});

it('a name that needs quoting is created as written', async () => {
  const name = `Adoption "admin" ${randomBytes(3).toString('hex')}`;
  try {
    await createDatabase(ADMIN_URL, name);
    assert.is(await postgresProblem(withDatabase(ADMIN_URL, encodeURIComponent(name))), null);
  } finally {
    await dropDatabase(ADMIN_URL, name);
  }
});

t.run();
