// A rebuild of dist/ when it is older than its sources, before a run that needs the compiled code: the
// benchmark measures the compiled server as `npm start` runs it, and tests that run the compiled proxy
// must not run yesterday's build. `scripts/build.mjs --if-stale` decides (plain Node, as `npm start`
// runs it first) and swaps a rebuild in whole, so runs that already use dist/ go on.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MARKER = 'dist/server/cli.js';
const BUILDING = /^building dist\/: (.+)$/m;

/** What the report says about the build, from what `build.mjs --if-stale` printed. */
export function buildNote(printed: string): string {
  const reason = BUILDING.exec(printed)?.[1];
  return reason === undefined ? `compiled (${MARKER}, up to date with the sources)` : `compiled (${MARKER}, rebuilt before the run: ${reason})`;
}

/** Rebuilds dist/ when it is stale; resolves with what the report says about the build. */
export function ensureBuilt(log: (line: string) => void, root = ROOT): Promise<string> {
  return new Promise((resolve, reject) => {
    const build = spawn(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    const timer = setTimeout(() => build.kill('SIGKILL'), 300_000);
    const onData = (chunk: Buffer) => {
      const before = BUILDING.exec(printed);
      printed += chunk.toString();
      const reason = before ? undefined : BUILDING.exec(printed)?.[1];
      if (reason !== undefined) log(`building dist/ first: ${reason}`);
    };
    build.stdout.on('data', onData);
    build.stderr.on('data', onData);
    build.once('error', reject);
    build.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(buildNote(printed));
      else reject(new Error(`npm run build failed (${signal ?? `exit ${code}`}):\n${printed.slice(-2000)}`));
    });
  });
}
