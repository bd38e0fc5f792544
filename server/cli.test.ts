import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_DB_FILE, parseServeArgs } from './cli.ts';
import { readFileStore } from './store/database-file.ts';
import { ROOT, startCli } from './testing/process.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';

const args = suite('parseServeArgs');

const dir = mkdtempSync(join(tmpdir(), 'cli-args-'));
const keysFile = join(dir, 'keys.json');
writeFileSync(keysFile, JSON.stringify([{ key: 'my-own-key-1', plan: 'pro' }]));
const seedFile = join(dir, 'seed.json');
writeFileSync(seedFile, JSON.stringify([{ id: 7, name: 'Seven', categoryId: 1, status: 'sold' }]));

const cases: Array<[string, string[], NodeJS.ProcessEnv, object]> = [
  [
    'defaults',
    [],
    {},
    { port: 3000, host: '127.0.0.1', storage: { type: 'file', path: resolve(DEFAULT_DB_FILE) }, logger: { level: 'info' }, cors: true, maxBodyBytes: 16384 },
  ],
  [
    'environment',
    [],
    { PORT: '4000', HOST: '0.0.0.0', DB_FILE: '/tmp/x.json' },
    { port: 4000, host: '0.0.0.0', storage: { type: 'file', path: '/tmp/x.json' } },
  ],
  [
    'flags win over environment',
    ['--port', '5000', '--db-file', '/tmp/y.json'],
    { PORT: '4000', DB_FILE: '/tmp/x.json' },
    { port: 5000, storage: { type: 'file', path: '/tmp/y.json' } },
  ],
  ['--memory', ['--memory'], { DB_FILE: '/tmp/x.json' }, { storage: { type: 'memory' } }],
  ['--quiet keeps warnings and errors', ['--quiet'], {}, { logger: { level: 'warn' } }],
  [
    'DATABASE_URL picks the PostgreSQL store',
    [],
    { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/pets' },
    { storage: { type: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/pets' } },
  ],
  ['--log-level silent turns logging off', ['--log-level', 'silent'], {}, { logger: false }],
  [
    'rate-limit settings land in rateLimit',
    ['--ban-threshold', '5', '--ip-limit', '10', '--ip-ban-duration', '30', '--redis-prefix', 'p:'],
    {},
    {
      rateLimit: {
        ban: { threshold: 5, periodSeconds: 60, durationSeconds: 600 },
        ip: { perMinute: 10, ban: { threshold: 20, periodSeconds: 60, durationSeconds: 30 }, banLoopback: false },
        redisPrefix: 'p:',
      },
    },
  ],
  [
    'rate-limit settings from the environment',
    [],
    { BAN_DURATION: '90', IP_BAN_THRESHOLD: '0' },
    {
      rateLimit: {
        ban: { threshold: 20, periodSeconds: 60, durationSeconds: 90 },
        ip: { perMinute: 30, ban: { threshold: 0, periodSeconds: 60, durationSeconds: 600 }, banLoopback: false },
        redisPrefix: 'adoption-store:rate-limit:',
      },
    },
  ],
  ['--no-rate-limit and --no-cors', ['--no-rate-limit', '--no-cors'], {}, { cors: false }],
  [
    '--api-keys and --seed read their files',
    ['--api-keys', keysFile, '--seed', seedFile],
    {},
    { apiKeys: [{ key: 'my-own-key-1', plan: 'pro' }], seedPets: [{ id: 7, name: 'Seven', categoryId: 1, status: 'sold' }] },
  ],
  [
    '--admin-token and --redis from the environment',
    [],
    { ADMIN_TOKEN: 'admin-token-1', REDIS_URL: 'redis://127.0.0.1:6379' },
    { adminToken: 'admin-token-1', redisUrl: 'redis://127.0.0.1:6379' },
  ],
  [
    '--trust-proxy with the header its proxy writes',
    ['--trust-proxy', '1', '--trust-proxy-header', 'forwarded'],
    {},
    { trustProxy: 1, trustProxyHeader: 'forwarded' },
  ],
  ['the proxy header defaults to X-Forwarded-For', ['--trust-proxy', '10.0.0.0/8'], {}, { trustProxy: ['10.0.0.0/8'], trustProxyHeader: 'x-forwarded-for' }],
  ['an empty environment variable counts as unset', [], { REDIS_URL: '', PORT: '' }, { port: 3000 }],
];
for (const [name, argv, env, expected] of cases) {
  args(name, () => {
    const parsed = parseServeArgs(argv, env);
    assert.ok(parsed !== 'help');
    for (const [key, value] of Object.entries(expected)) assert.equal((parsed as Record<string, unknown>)[key], value, key);
  });
}

args('--help', () => assert.is(parseServeArgs(['--help'], {}), 'help'));

const loopback: Array<[string[], NodeJS.ProcessEnv, boolean]> = [
  [[], {}, false],
  [['--ip-ban-loopback'], {}, true],
  [[], { IP_BAN_LOOPBACK: 'true' }, true],
];
for (const [argv, env, expected] of loopback) {
  args(`${argv.join(' ') || JSON.stringify(env)}: loopback ${expected ? 'blocked as any address' : 'never blocked'}`, () => {
    const parsed = parseServeArgs(argv, env);
    assert.ok(parsed !== 'help');
    assert.is(parsed.rateLimit?.ip?.banLoopback, expected);
  });
}

args('every ServerOptions path in the table is one the server knows', () => {
  const parsed = parseServeArgs(['--no-rate-limit'], {}) as Record<string, any>;
  assert.is(parsed.rateLimit.enabled, false);
});

const rejected: Array<[string, string[], RegExp]> = [
  ['a port that is not a number', ['--port', 'http'], /--port must be an integer/],
  ['--memory with --db-file', ['--memory', '--db-file', 'x.json'], /--memory and --db-file cannot be used together/],
  ['--database with --memory', ['--memory', '--database', 'postgres://127.0.0.1/x'], /--memory and --database cannot be used together/],
  ['an unknown flag', ['--verbose'], /verbose/],
  ['a log level pino does not know', ['--log-level', 'loud'], /--log-level must be one of/],
  ['a proxy header other than the two', ['--trust-proxy-header', 'x-real-ip'], /--trust-proxy-header must be one of x-forwarded-for, forwarded/],
  ['an API key file that is missing', ['--api-keys', join(dir, 'nope.json')], /The API key file .* cannot be read/],
];
for (const [name, argv, message] of rejected) {
  args(`refuses ${name}`, () => {
    assert.throws(() => parseServeArgs(argv, {}), message);
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
  assert.is(JSON.parse(readFileSync(db, 'utf8')).pets.length, 11, 'a clean stop folds the journal into db.json');
});

cli('a mistyped key never locks this machine out under the defaults, and the banner says what is limited', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'cli-')), 'db.json');
  const server = await startCli(['--port', '0', '--db-file', db]);
  const pets = (key: string) => fetch(`${server.baseUrl}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });
  try {
    const typos = [];
    for (let i = 0; i < 30; i++) typos.push((await pets('test-pro-kye')).status);
    assert.equal(new Set(typos), new Set([401]));
    assert.is((await pets('test-pro-key')).status, 200, 'the right key works at once after 30 typos');
    // Past the per-address allowance and its 20 refusals, which block any other address for 600 s.
    const more = [];
    for (let i = 0; i < 30; i++) more.push(await pets('test-pro-kye'));
    assert.ok(
      more.every((r) => r.status === 401 || r.status === 429),
      more.map((r) => r.status).join(','),
    );
    const codes = new Set(await Promise.all(more.map(async (r) => ((await r.json()) as { code: string }).code)));
    assert.not.ok(codes.has('ip_blocked'), [...codes].join(', '));
    assert.is((await pets('test-pro-key')).status, 200, 'and still after 60');
    const banner = server.output();
    assert.match(banner, /rate limits: per instance, in memory; per key its plan's minute and day limits, banned 600 s after 20 refusals within 60 s\n/);
    assert.match(
      banner,
      /without a valid key: 30 requests a minute per client address, blocked 600 s after 20 refusals within 60 s; loopback \(this machine\) is never blocked \(--ip-ban-loopback\)\n/,
    );
  } finally {
    server.child.kill('SIGTERM');
  }
  assert.is(await server.exited, 0);
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
  const onDisk = new Set(readFileStore(db).map((p) => p.id));
  for (const id of acknowledged) assert.ok(onDisk.has(id), `acknowledged pet ${id} is on disk`);
});

cli('a corrupt database stops the start with a clear message and exit 1, and stays untouched', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'cli-')), 'db.json');
  writeFileSync(db, '{"nextId": 1, "pets": [oops');
  const run = spawnSync(process.execPath, [...sourceArgs('server/cli.ts'), '--port', '0', '--db-file', db], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: START_BOUND_MS,
  });
  assert.is(run.status, 1);
  assert.match(run.stderr, /cannot be used: it is not valid JSON/);
  assert.ok(run.stderr.includes(db));
  assert.is(readFileSync(db, 'utf8'), '{"nextId": 1, "pets": [oops');
});

cli('an unreachable database stops the start with exit 1 and one line naming it, without its password', () => {
  const run = spawnSync(process.execPath, [...sourceArgs('server/cli.ts'), '--port', '0', '--database', 'postgres://kit:s3cret-pw@127.0.0.1:1/pets'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: START_BOUND_MS,
  });
  assert.is(run.status, 1, run.stderr);
  assert.match(run.stderr, /could not start: The database postgres:\/\/kit:\*\*\*@127\.0\.0\.1:1\/pets.* is unavailable/);
  assert.not.ok(run.stderr.includes('s3cret-pw'));
  assert.is(run.stderr.trim().split('\n').length, 1, run.stderr);
});

const refusedAtStart: Array<[string, string[], RegExp]> = [
  ['a port that is not a number', ['--port', 'nope'], /--port must be an integer, not "nope"/],
  ['a port out of range, named by its flag', ['--port', '70000'], /--port: "port" must be less than or equal to 65535/],
  ['a Redis URL that is not one', ['--redis', 'http://x'], /--redis: "redisUrl" must be a valid uri/],
  ['a ban longer than a year', ['--ban-duration', '31536001'], /--ban-duration: "rateLimit\.ban\.durationSeconds" must be less than or equal to 31536000/],
  ['a short admin token, without echoing it', ['--admin-token', 'short'], /--admin-token: "adminToken" length must be at least 8/],
  [
    'a key on a plan the contract does not have',
    ['--api-keys', 'KEYS'],
    /Invalid API key list: "\[0\]\.plan" must be one of \[free, pro, business, enterprise\]/,
  ],
];
for (const [name, argv, message] of refusedAtStart) {
  cli(`refuses ${name} with exit 2 and one line`, () => {
    const keys = join(dir, 'bad-keys.json');
    writeFileSync(keys, JSON.stringify([{ key: 'my-own-key-2', plan: 'gold' }]));
    const run = spawnSync(process.execPath, [...sourceArgs('server/cli.ts'), '--memory', ...argv.map((a) => (a === 'KEYS' ? keys : a))], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: START_BOUND_MS,
    });
    assert.is(run.status, 2, run.stderr);
    assert.match(run.stderr, message);
    assert.not.ok(run.stderr.includes('short'.repeat(2)));
    assert.ok(run.stderr.trim().split('\n').length <= 2, run.stderr);
  });
}

cli('the package command runs it as "adoption-kit serve", and refuses unknown commands', () => {
  const help = spawnSync(process.execPath, [...sourceArgs('bin/adoption-kit.ts'), 'serve', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: START_BOUND_MS });
  assert.is(help.status, 0);
  assert.match(help.stdout, /Usage: adoption-kit serve/);
  const unknown = spawnSync(process.execPath, [...sourceArgs('bin/adoption-kit.ts'), 'frobnicate'], { cwd: ROOT, encoding: 'utf8', timeout: START_BOUND_MS });
  assert.is(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
});

args.run();
cli.run();
