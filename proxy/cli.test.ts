// The proxy's exit codes keep their meaning when the proxy itself fails: a crash anywhere in it (an
// uncaught exception, an unhandled rejection, here caused on purpose while it runs) exits 3 (KIT_FAILED), never
// Node's 1, which --fail-on gives to a must-level finding.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KIT_FAILED } from '../lib/kit-failure.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs the proxy from source with `preload` evaluated first; its exit code and stderr. */
function runProxyWith(preload: string, args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...sourceArgs('proxy/cli.ts', ['--import', `data:text/javascript,${encodeURIComponent(preload)}`]), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: Date.now() - started });
    });
  });
}

// A --duration far beyond the runner's 20 s kill: a run that does not stop at the crash is killed (code null), never exits 2.
const ARGS = ['--target', 'http://127.0.0.1:9', '--port', '0', '--duration', '600', '--fail-on', 'must'];

test('an uncaught exception or an unhandled rejection inside the running proxy exits 2 with one message, not 1 (a verdict)', async () => {
  const crashes = {
    'uncaught exception': `setTimeout(() => { throw new Error('planted crash'); }, 1500);`,
    'unhandled rejection': `setTimeout(() => { Promise.reject(new Error('planted crash')); }, 1500);`,
  };
  const runs = await Promise.all(Object.values(crashes).map((crash) => runProxyWith(crash, ARGS)));
  Object.keys(crashes).forEach((what, i) => {
    const r = runs[i]!;
    assert.is(r.code, KIT_FAILED, `${what}: ${r.stderr}`);
    assert.match(r.stderr, /proxy: the kit failed \(an internal error, no verdict on what it judges/, what);
    assert.match(r.stderr, /planted crash/, what);
  });
});

test.run();
