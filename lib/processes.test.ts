import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { collectOutput, exited, freePort, running, spawnChild, stopChild, waitForOutput } from './processes.ts';
import { START_BOUND_MS } from './testing/eventually.ts';

test('freePort returns a port that can be listened on', async () => {
  const port = await freePort();
  assert.ok(port > 0 && port < 65536);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test('waitForOutput resolves on the first match and stopChild ends the child', async () => {
  const child = spawnChild(process.execPath, ['-e', 'console.log("ready on 1234"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectOutput(child);
  const match = await waitForOutput(child, output, /ready on (\d+)/, START_BOUND_MS, 'child');
  assert.is(match[1], '1234');
  await stopChild(child);
  assert.ok(exited(child));
});

test('waitForOutput rejects with the output when the child exits first', async () => {
  const child = spawnChild(process.execPath, ['-e', 'console.error("boom"); process.exit(3)'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectOutput(child);
  try {
    await waitForOutput(child, output, /never/, 5000, 'child');
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /child exited \(code 3/);
    assert.match((error as Error).message, /boom/);
  }
});

test('a grouped child takes its own children with it, and SIGKILL follows an ignored SIGTERM', async () => {
  const script = `process.on('SIGTERM', () => {}); require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' }); console.log('up'); setInterval(() => {}, 1000);`;
  const child = spawnChild(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'], group: true });
  await waitForOutput(child, collectOutput(child), /up/, START_BOUND_MS, 'parent');
  const grandchildren = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  assert.is(grandchildren.length, 1);
  const started = Date.now();
  await stopChild(child, 'SIGTERM', 300);
  assert.ok(Date.now() - started >= 250, 'SIGTERM was ignored, so SIGKILL came after the grace period');
  assert.ok(exited(child));
  await new Promise((resolve) => setTimeout(resolve, 100));
  // The grandchild got the group's SIGKILL too: no process of the group runs on.
  for (const pid of grandchildren) assert.not.ok(running(pid), `grandchild ${pid} survived`);
});

test('children die with the process that started them, even on SIGINT', async () => {
  const script = `
    import { spawnChild } from './lib/processes.ts';
    const c = spawnChild(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
    console.log('child ' + c.pid);
    setInterval(() => {}, 1000);`;
  const parent = spawnChild(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  const match = await waitForOutput(parent, collectOutput(parent), /child (\d+)/, START_BOUND_MS, 'parent');
  const pid = Number(match[1]);
  parent.kill('SIGINT');
  await new Promise((resolve) => parent.once('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.not.ok(running(pid), `child ${pid} outlived its parent`);
});

test.run();
