import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { collectOutput, spawnChild, waitForOutput } from '../../lib/processes.ts';
import { sourceArgs } from '../../lib/testing/run-source.ts';
import { START_BOUND_MS } from '../../lib/testing/eventually.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `server/cli.ts` in its own process and resolves once its banner names the URL. */
export async function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawnChild(process.execPath, [...sourceArgs('server/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output = collectOutput(child);
  const match = await waitForOutput(child, output, /listening on (http:\/\/\S+\/v1)/, START_BOUND_MS, 'the server');
  return { child, baseUrl: match[1]!, output: output.text, exited };
}
