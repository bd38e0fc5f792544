// `--server "<command>"`, as Dredd users know it: the command starts the target before the run, in
// a shell and a process group of its own; the run begins once the target accepts connections (at
// most `--server-wait` seconds after the start, as Dredd waits), and the whole group is stopped after
// the run, also when the run is interrupted (lib/processes.ts kills it with the kit).
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { KitError } from '../lib/errors.ts';
import { exited, spawnChild, stopChild } from '../lib/processes.ts';

/** The command ended before the target answered: the run cannot check anything. */
export class ServerCommandError extends KitError {
  constructor(message: string) {
    super('server_command', message);
  }
}

export interface ServerCommand {
  child: ChildProcess;
  /** Stops the command's whole process group (SIGTERM, then SIGKILL after a grace). */
  stop(): Promise<void>;
}

/** Whether something accepts connections at the origin of `url`. */
function accepts(url: URL): Promise<boolean> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(1000);
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

const POLL_MS = 100;
const OUTPUT_SHOWN = 1500;

/**
 * Starts `command` in a shell (its own process group) and resolves once `baseUrl`'s origin accepts
 * connections or `waitSeconds` have passed; rejects with ServerCommandError when the command exits
 * first. The run's preflight then says whether the target answers as it should.
 */
export async function startServerCommand(command: string, baseUrl: string, waitSeconds: number): Promise<ServerCommand> {
  const child = spawnChild('/bin/sh', ['-c', command], { group: true, stdio: ['ignore', 'pipe', 'pipe'] });
  // Only the end of its output is kept, for the message when it exits early: a server logging every request runs on.
  let tail = '';
  const keep = (chunk: Buffer) => void (tail = (tail + chunk.toString()).slice(-OUTPUT_SHOWN));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = () => stopChild(child, 'SIGTERM', 3000);
  const until = Date.now() + waitSeconds * 1000;
  const origin = new URL(baseUrl);
  for (;;) {
    if (exited(child)) {
      const how = child.exitCode !== null ? `exited with ${child.exitCode}` : `was killed by ${child.signalCode}`;
      const shown = tail.trim();
      throw new ServerCommandError(
        `--server ${JSON.stringify(command)} ${how} before ${origin.origin} answered${shown ? `; its output ended:\n${shown}` : ''}`,
      );
    }
    if (await accepts(origin)) return { child, stop };
    if (Date.now() >= until) return { child, stop };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
