// Tests that need a running service (Redis, PostgreSQL). Under CI (CI=true) a service that does not
// answer fails the test file at once, with what to start; elsewhere the file's tests that need it are
// counted as skipped, with the reason printed: never as passed, never after a long timeout.
import { connect } from 'node:net';
import type { Callback, Test } from 'uvu';

export type Register = (name: string, handler: Callback) => void;

export interface ServiceForTests {
  /** Null when the service answers; why not, otherwise. */
  readonly missing: string | null;
  /** The suite itself when the service answers, else one that registers each test as skipped. */
  readonly register: (suite: Test) => Register;
}

export async function serviceForTests(file: string, service: string, probe: () => Promise<string | null>, howToStart: string): Promise<ServiceForTests> {
  const missing = await probe();
  if (missing === null) return { missing, register: (suite) => suite };
  const message = `${service} does not answer (${missing}); ${howToStart}.`;
  if (process.env.CI === 'true') throw new Error(`${file}: ${message} Under CI these tests must run.`);
  process.stdout.write(`${file}: ${message} Its ${service} tests are counted as skipped.\n`);
  return { missing, register: (suite) => (name, handler) => suite.skip(name, handler) };
}

/** Whether something accepts TCP connections at `url`'s host and port within a second. */
export function tcpProbe(url: string, defaultPort: number): () => Promise<string | null> {
  const { hostname, port } = new URL(url);
  return () =>
    new Promise((resolve) => {
      const socket = connect({ host: hostname, port: Number(port || defaultPort), timeout: 1000 });
      socket.once('connect', () => (socket.destroy(), resolve(null)));
      socket.once('timeout', () => (socket.destroy(), resolve(`no answer at ${hostname}:${port || defaultPort} within 1 s`)));
      socket.once('error', (error) => resolve(`${(error as NodeJS.ErrnoException).code ?? error.message} at ${hostname}:${port || defaultPort}`));
    });
}

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export const redisForTests = (file: string): Promise<ServiceForTests> =>
  serviceForTests(file, 'Redis', tcpProbe(REDIS_URL, 6379), `start it (redis-server --daemonize yes --port 6379 --save "" --appendonly no) or set REDIS_URL`);
