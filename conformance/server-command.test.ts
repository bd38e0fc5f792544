// Dredd's --server and --hookfiles, as Dredd users know them, with real processes: the reference
// server started by --server for the run and stopped after it (its whole process group, also when
// conform is interrupted), and a user's hook file that changes one named transaction.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, spawnChild, stopChild } from '../lib/processes.ts';
import { main } from './cli.ts';
import type { DreddOutcome } from './dredd/run.ts';
import type { ProgressEvent } from './run.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const test = suite('--server and --hookfiles');
let dir: string;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conform-server-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The reference server on `port`, as a shell command; `marker` names a background process of the same group. */
function serverCommand(port: number, marker?: string): string {
  const server = `exec ${[process.execPath, ...sourceArgs(join(root, 'server/cli.ts'))].map((a) => JSON.stringify(a)).join(' ')} --port ${port} --memory --quiet`;
  return marker ? `sleep ${marker} & ${server}` : server;
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Processes whose command line holds `text` (ps, read only). */
function processesWith(text: string): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(text) && !line.includes('ps -eo'));
}

function io() {
  const out: string[] = [];
  return { out, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) } };
}

const refused: Array<{ name: string; argv: (port: number) => string[]; message: RegExp }> = [
  {
    name: 'a --hookfiles (-f, as in Dredd) pattern that names no file, in Dredd words, before anything runs',
    argv: (port) => ['--base-url', `http://127.0.0.1:${port}/v1`, '--api-key', 'k', '-f', join('no-such-dir', '*.js')],
    message: /--hookfiles: Could not find any files on path: 'no-such-dir\/\*\.js'/,
  },
  {
    name: '--hookfiles with --no-dredd: nothing would load them',
    argv: (port) => ['--base-url', `http://127.0.0.1:${port}/v1`, '--api-key', 'k', '--no-dredd', '-f', 'conformance/dredd/hooks.cjs'],
    message: /--hookfiles are loaded by the Dredd run, which --no-dredd leaves out/,
  },
  {
    name: 'a --server (-g, as in Dredd) command that exits before the target answers, with its output',
    argv: (port) => ['--base-url', `http://127.0.0.1:${port}/v1`, '--api-key', 'k', '-g', 'echo cannot start; exit 3'],
    message: /--server "echo cannot start; exit 3" exited with 3 before http:\/\/127\.0\.0\.1:\d+ answered; its output ended:\ncannot start/,
  },
];

for (const c of refused) {
  test(`exit 2: ${c.name}`, async () => {
    const { out, io: streams } = io();
    const code = await main(c.argv(await freePort()), streams);
    assert.is(code, 2, out.join(''));
    assert.match(out.join(''), c.message);
  });
}

test('--server starts the reference server for the run and stops its whole group after; a hook file changes the transaction it names', async () => {
  const port = await freePort();
  const marker = `${port}.4321`;
  const named = '/pets > List animals > 200 > application/json';
  // The transaction goes with the free key: its answer's Limit shows the server saw what the hook did.
  await writeFile(
    join(dir, 'user-hooks.js'),
    `const hooks = require('hooks');\nhooks.before(${JSON.stringify(named)}, (transaction) => {\n  transaction.request.headers['X-Hooked'] = 'yes';\n  transaction.request.headers.Authorization = 'Bearer test-free-key';\n});\n`,
  );
  let dredd: DreddOutcome | undefined;
  const onProgress = (event: ProgressEvent) => {
    if (event.type === 'dredd') dredd = event.outcome;
  };
  const { out, io: streams } = io();
  const argv = ['--base-url', `http://127.0.0.1:${port}/v1`, '--api-key', 'test-pro-key', '--profile', 'contract'];
  // Two patterns, as Dredd takes them: a glob of the test's, and the guide's example file.
  const hookfiles = ['--hookfiles', join(dir, '*-hooks.js'), '--hookfiles', join(root, 'conformance/testing/example-hooks.cjs')];
  // The run begins as soon as the server accepts; a generous --server-wait only spares a busy machine.
  const code = await main([...argv, '--server', serverCommand(port, marker), '--server-wait', '60', ...hookfiles], streams, { onProgress });
  assert.is(code, 0, out.join(''));
  const transactions = dredd?.transactions ?? [];
  const hooked = transactions.find((t) => t.name === named)!;
  assert.is(hooked.status, 'pass');
  assert.is(hooked.request?.headers['X-Hooked'], 'yes');
  assert.is(hooked.response?.headers['x-ratelimit-limit'], '60', 'the free key reached the server');
  const created = transactions.find((t) => t.name === '/pets > Add an animal > 201 > application/json')!;
  assert.is(created.request?.headers['X-Request-Id'], 'conform-example-create');
  assert.is(created.status, 'pass');
  const others = transactions.filter((t) => t.name !== named && t.response?.headers['x-ratelimit-limit'] !== undefined && t.response.statusCode < 400);
  assert.ok(others.length > 0);
  for (const t of others) {
    assert.is(t.request?.headers['X-Hooked'], undefined, t.name);
    assert.is(t.response?.headers['x-ratelimit-limit'], '300', t.name);
  }
  // Stopped with its group: the port is free and the background sleep of the command is gone.
  assert.not.ok(await accepting(port));
  assert.equal(processesWith(`sleep ${marker}`), []);
});

test('an interrupted conform stops the --server group too', async () => {
  const port = await freePort();
  const marker = `${port}.8765`;
  const child = spawnChild(
    process.execPath,
    [
      ...sourceArgs('conformance/cli.ts'),
      '--base-url',
      `http://127.0.0.1:${port}/v1`,
      '--api-key',
      'test-pro-key',
      '--server',
      serverCommand(port, marker),
      '--server-wait',
      '60',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    // Interrupted once the run is under way (the preflight has passed).
    while (!output.includes('▸ contract')) {
      assert.ok(child.exitCode === null, `conform ended before it was interrupted: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(processesWith(`sleep ${marker}`).length > 0, 'the command runs while conform does');
    const ended = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await ended;
    // Polled, not timed: the bound only keeps a broken stop from hanging the suite.
    for (let i = 0; i < 300 && (processesWith(`sleep ${marker}`).length > 0 || (await accepting(port))); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await stopChild(child);
  }
  assert.equal(processesWith(`sleep ${marker}`), [], 'the background process of the command is gone');
  assert.not.ok(await accepting(port), 'the server is gone');
});

test.run();
