import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_DB_FILE, parseServeArgs } from './cli.ts';
import { ROOT, startCli } from './test/process.ts';

const args = suite('parseServeArgs');

const cases: Array<[string, string[], NodeJS.ProcessEnv, object]> = [
  ['defaults', [], {}, { port: 3000, host: '127.0.0.1', storage: { type: 'file', path: resolve(DEFAULT_DB_FILE) }, logger: true }],
  ['environment', [], { PORT: '4000', HOST: '0.0.0.0', DB_FILE: '/tmp/x.json' }, { port: 4000, host: '0.0.0.0', storage: { type: 'file', path: '/tmp/x.json' } }],
  ['flags win over environment', ['--port', '5000', '--db-file', '/tmp/y.json'], { PORT: '4000', DB_FILE: '/tmp/x.json' }, { port: 5000, storage: { type: 'file', path: '/tmp/y.json' } }],
  ['--memory', ['--memory'], { DB_FILE: '/tmp/x.json' }, { storage: { type: 'memory' } }],
  ['--quiet', ['--quiet'], {}, { logger: false }],
];
for (const [name, argv, env, expected] of cases) {
  args(name, () => {
    const parsed = parseServeArgs(argv, env);
    assert.ok(parsed !== 'help');
    for (const [key, value] of Object.entries(expected)) assert.equal((parsed as Record<string, unknown>)[key], value, key);
  });
}

args('--help', () => assert.is(parseServeArgs(['--help'], {}), 'help'));

const rejected: Array<[string, string[]]> = [
  ['a port that is not a number', ['--port', 'http']],
  ['--memory with --db-file', ['--memory', '--db-file', 'x.json']],
  ['an unknown flag', ['--verbose']],
];
for (const [name, argv] of rejected) {
  args(`refuses ${name}`, () => {
    assert.throws(() => parseServeArgs(argv, {}));
  });
}

const cli = suite('the server process');

cli('starts on the file store, prints URL and keys per plan, logs requests without keys, stops on SIGTERM', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'cli-')), 'db.json');
  const server = await startCli(['--port', '0', '--db-file', db]);
  try {
    for (const line of ['free        test-free-key', 'pro         test-pro-key', 'business    test-business-key', 'enterprise  test-enterprise-key']) {
      assert.ok(server.output().includes(line), line);
    }
    const res = await fetch(`${server.baseUrl}/pets?limit=2`, { headers: { authorization: 'Bearer test-pro-key' } });
    assert.is(res.status, 200);
    assert.is(((await res.json()) as unknown[]).length, 2);
    const created = await fetch(`${server.baseUrl}/pets`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-pro-key', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Logged', categoryId: 1 }),
    });
    assert.is(created.status, 201);
  } finally {
    server.child.kill('SIGTERM');
  }
  assert.is(await server.exited, 0);
  const log = server.output();
  assert.match(log, /"statusCode":200/);
  assert.match(log, /"statusCode":201/);
  assert.not.ok(log.includes('Bearer test-pro-key'), 'the Authorization header is never logged');
  assert.match(log, /SIGTERM received/);
  assert.is(JSON.parse(readFileSync(db, 'utf8')).pets.length, 11);
});

cli('every acknowledged create survives a kill -9 right after the 201s', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'cli-')), 'db.json');
  const server = await startCli(['--port', '0', '--db-file', db, '--quiet']);
  const acknowledged: number[] = [];
  try {
    await Promise.all(
      Array.from({ length: 64 }, async (_, i) => {
        const res = await fetch(`${server.baseUrl}/pets`, {
          method: 'POST',
          headers: { authorization: 'Bearer test-enterprise-key', 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Crash ${i}`, categoryId: 1 }),
        });
        if (res.status === 201) acknowledged.push(((await res.json()) as { id: number }).id);
      }),
    );
  } finally {
    server.child.kill('SIGKILL');
  }
  await server.exited;
  assert.is(acknowledged.length, 64);
  const onDisk = new Set((JSON.parse(readFileSync(db, 'utf8')).pets as Array<{ id: number }>).map((p) => p.id));
  for (const id of acknowledged) assert.ok(onDisk.has(id), `acknowledged pet ${id} is on disk`);
});

cli('a corrupt database stops the start with a clear message and exit 1, and stays untouched', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'cli-')), 'db.json');
  writeFileSync(db, '{"nextId": 1, "pets": [oops');
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli.ts', '--port', '0', '--db-file', db], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  assert.is(run.status, 1);
  assert.match(run.stderr, /cannot be used: it is not valid JSON/);
  assert.ok(run.stderr.includes(db));
  assert.is(readFileSync(db, 'utf8'), '{"nextId": 1, "pets": [oops');
});

cli('usage errors exit 2 with the help text', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli.ts', '--port', 'nope'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  assert.is(run.status, 2);
  assert.match(run.stderr, /Usage: adoption-kit serve/);
});

cli('the package command runs it as "adoption-kit serve", and refuses unknown commands', () => {
  const help = spawnSync(process.execPath, ['bin/adoption-kit.js', 'serve', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  assert.is(help.status, 0);
  assert.match(help.stdout, /Usage: adoption-kit serve/);
  const unknown = spawnSync(process.execPath, ['bin/adoption-kit.js', 'frobnicate'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  assert.is(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
});

args.run();
cli.run();
