import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../lib/processes.ts';
import { publicMessage } from './public-message.ts';

// Messages as Node, pg, ioredis and the file system write them (copied from real failures), and what a client may read.
const cases: Array<[string, string, string]> = [
  ['node: a refused connection', 'connect ECONNREFUSED 127.0.0.1:5298', 'connection refused (ECONNREFUSED)'],
  ['node: a refused connection over IPv6', 'connect ECONNREFUSED ::1:5432', 'connection refused (ECONNREFUSED)'],
  [
    'node: every address of a host refused (AggregateError, joined)',
    'connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
    'connection refused (ECONNREFUSED)',
  ],
  ['node: an unknown host', 'getaddrinfo ENOTFOUND db.internal.example', 'host not found (ENOTFOUND)'],
  ['node: a lookup that failed for now', 'getaddrinfo EAI_AGAIN postgres', 'host name lookup failed for now (EAI_AGAIN)'],
  ['node: a reset', 'read ECONNRESET', 'connection reset (ECONNRESET)'],
  ['node: a timeout', 'connect ETIMEDOUT 10.0.3.7:5432', 'timed out (ETIMEDOUT)'],
  ['node: an unreachable host', 'connect EHOSTUNREACH 192.168.1.20:6379 - Local (192.168.1.5:53122)', 'host unreachable (EHOSTUNREACH) - Local (<address>)'],
  ['node: a code without words here', 'connect EPROTO 127.0.0.1:5432', 'failed (EPROTO)'],
  ['pg: a wrong password', 'password authentication failed for user "app" (SQLSTATE 28P01)', 'password authentication failed for the user (SQLSTATE 28P01)'],
  ['pg: an unknown role', 'role "nobody" does not exist (SQLSTATE 28000)', 'the role does not exist (SQLSTATE 28000)'],
  ['pg: an unknown database', 'database "pets_prod" does not exist (SQLSTATE 3D000)', 'the database does not exist (SQLSTATE 3D000)'],
  [
    'pg: pg_hba refuses',
    'no pg_hba.conf entry for host "10.1.2.3", user "postgres", database "pets", no encryption (SQLSTATE 28000)',
    'no pg_hba.conf entry for the host, the user, the database, no encryption (SQLSTATE 28000)',
  ],
  [
    'pg: an administrator ended the connection',
    'terminating connection due to administrator command (SQLSTATE 57P01)',
    'terminating connection due to administrator command (SQLSTATE 57P01)',
  ],
  [
    'pg: a statement over its bound',
    'canceling statement due to statement timeout (SQLSTATE 57014)',
    'canceling statement due to statement timeout (SQLSTATE 57014)',
  ],
  ['pg: the connection ended', 'Connection terminated unexpectedly', 'Connection terminated unexpectedly'],
  ['pg: no connection in time', 'timeout exceeded when trying to connect', 'timeout exceeded when trying to connect'],
  [
    'the store: a database named by its URL',
    'The database postgres://postgres:***@127.0.0.1:5432/pets (schema "public") is unavailable: connect ECONNREFUSED 127.0.0.1:5432.',
    'The database <url> (schema "public") is unavailable: connection refused (ECONNREFUSED).',
  ],
  ['ioredis: a refused connection', 'connect ECONNREFUSED 127.0.0.1:6379', 'connection refused (ECONNREFUSED)'],
  ['ioredis: closed', 'Connection is closed.', 'Connection is closed.'],
  [
    'ioredis: out of retries',
    'Reached the max retries per request limit (which is 20). Refer to "maxRetriesPerRequest" option for details.',
    'Reached the max retries per request limit (which is 20). Refer to "maxRetriesPerRequest" option for details.',
  ],
  ['redis: a URL with a password', 'Redis at redis://:hunter2@cache.internal:6380/0 does not answer', 'Redis at <url> does not answer'],
  ['fs: a full disk', 'ENOSPC: no space left on device, write', 'no space left on device (ENOSPC)'],
  ['fs: permission denied', "EACCES: permission denied, open '/tmp/chaos-Xk2/data/db.json.tmp'", 'permission denied (EACCES)'],
  ['fs: a read-only disk', "EROFS: read-only file system, open '/var/lib/adoption/db.json.journal'", 'read-only file system (EROFS)'],
  ['fs: a rename', "ENOENT: no such file or directory, rename '/root/data/db.json.tmp' -> '/root/data/db.json'", 'no such file or directory (ENOENT)'],
  ['fs: an i/o error', 'EIO: i/o error, fsync', 'i/o error (EIO)'],
  ['the file store: its own reason', 'storage: ENOSPC writing the journal', 'storage: ENOSPC writing the journal'],
  ['a path in a sentence', 'cannot open /home/app/data/db.json for writing', 'cannot open <path> for writing'],
  ['a Windows path', 'cannot open C:\\data\\db.json', 'cannot open <path>'],
  ['a bracketed IPv6 address and port', 'no answer from [2001:db8::5]:5432', 'no answer from <address>'],
  ['a full IPv6 address', 'no answer from 2001:0db8:0000:0000:0000:ff00:0042:8329', 'no answer from <address>'],
  ['an IPv4-mapped IPv6 address', 'no answer from ::ffff:127.0.0.1', 'no answer from <address>'],
  ['a host and port', 'no answer from localhost:5432 or db.internal:6379', 'no answer from <address> or <address>'],
  ['our own words stay', 'The store is unavailable; retry after 2 seconds.', 'The store is unavailable; retry after 2 seconds.'],
  ['a time bound stays', 'no answer within 1000 ms', 'no answer within 1000 ms'],
  ['times and dates stay', 'at 12:30:45 on 2026-01-01T00:00:00.000Z', 'at 12:30:45 on 2026-01-01T00:00:00.000Z'],
  ['words with a slash stay', 'read and/or write refused', 'read and/or write refused'],
];

for (const [name, message, shown] of cases) {
  test(`${name}: ${JSON.stringify(message)}`, () => {
    assert.is(publicMessage(message), shown);
  });
}

/** Whether `text` still holds any of `secrets`, or anything shaped like an address or a path. */
function leaks(text: string, secrets: readonly string[]): string | undefined {
  const shapes = [/\d{1,3}(?:\.\d{1,3}){3}/, /::1\b/, /\w:\d{2,5}\b/, /(?:^|[\s'"(])\/\w/];
  for (const secret of secrets) if (text.includes(secret)) return secret;
  return shapes.find((shape) => shape.test(text))?.source;
}

test('a refused connection as Node reports it today keeps its code and loses the address', async () => {
  const port = await freePort();
  const error = await new Promise<Error>((resolve) => connect(port, '127.0.0.1').on('error', resolve));
  assert.match(error.message, String(port), 'the message did name the address');
  assert.is(publicMessage(error.message), 'connection refused (ECONNREFUSED)');
});

test('a file the system refuses keeps its code and loses the path', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'redact-'));
  try {
    const error = (await open(join(dir, 'missing', 'db.json'), 'r').catch((e: unknown) => e)) as Error;
    assert.match(error.message, dir, 'the message did name the path');
    assert.is(publicMessage(error.message), 'no such file or directory (ENOENT)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pg refusing a database and a user as it does today (or refusing the connection) names neither', async () => {
  const database = `no_such_db_${process.pid}`;
  const user = `no_such_user_${process.pid}`;
  for (const url of [`postgres://postgres@127.0.0.1:5432/${database}`, `postgres://${user}@127.0.0.1:5432/postgres`]) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    const error = (await client.connect().then(
      () => new Error('connected'),
      (e: unknown) => e,
    )) as Error & { code?: string };
    await client.end().catch(() => undefined);
    assert.is.not(error.message, 'connected', url);
    const shown = publicMessage(`${error.message}${error.code && !error.code.startsWith('E') ? ` (SQLSTATE ${error.code})` : ''}`);
    assert.is(leaks(shown, [database, user, 'postgres', userInfo().username]), undefined, `${error.message} → ${shown}`);
    assert.ok(shown.includes(error.code ?? ''), `the code stays: ${shown}`);
  }
});

test.run();
