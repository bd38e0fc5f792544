// A redis-server of a test's own, on a port it picks: for what cannot be done to the shared Redis
// (killing it, starting it again empty). Nothing is kept on disk.
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { spawnChild } from '../../lib/processes.ts';

/** Starts redis-server on `port` and resolves once it answers PING (100 attempts, 50 ms apart at most). */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawnChild('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        if (client.status === 'wait') await client.connect();
        if ((await client.ping()) === 'PONG') return child;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    child.kill('SIGKILL');
    throw new Error(`redis-server did not answer on port ${port}`);
  } finally {
    client.disconnect();
  }
}

/** Kills it (SIGKILL: its data is gone, as in a crash) and resolves once it has exited. */
export function killRedis(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
