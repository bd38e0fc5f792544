// Launching each server under test as a separate process and reading its peak RSS.
import type { ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerId, ServerSpec } from './cases.ts';
import { PRISM_LIST_PATH } from './cases.ts';
import { isReady, type CannedResponse } from './child-protocol.ts';
import { awaitMessage, exited, freePort, nodeTsArgs, peakRssBytes, spawnChild, stopChild, waitForHttp, type Pinning } from './proc.ts';
import type { ReferenceLaunchConfig } from './reference-launcher.ts';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCRIPTS = {
  reference: here('./reference-launcher.ts'),
  hapi: here('./bare-hapi.ts'),
  node: here('./bare-node.ts'),
  prism: join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js'),
  spec: join(ROOT, 'spec/openapi.yaml'),
};
const START_TIMEOUT_MS = 60_000;

export interface LaunchContext {
  /** Temporary directory for store copies, logs and profiles' names. */
  dir: string;
  pinning: Pinning | null;
  apiKey: string;
  redisUrl: string;
  /** Prefix of the limiter's Redis keys: the run's own, so they can be checked and dropped. */
  redisPrefix: string;
  cpuProfDir: string | undefined;
  /** Template store file by pet count; each reference server gets its own copy. */
  stores: ReadonlyMap<number, string>;
  referenceOptions: Record<string, unknown>;
  referenceNodeFlags: string[];
  /** Needed before a bare server can start. */
  canned: CannedResponse | undefined;
}

export interface RunningServer {
  id: ServerId;
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
  /** The reference server's own copy of its store. */
  dbFile: string | undefined;
  /** Highest peak RSS (bytes) seen so far; read it before stopping. */
  peakRss(): number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function authHeaders(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}` };
}

export async function launch(id: ServerId, spec: ServerSpec, context: LaunchContext, instance = 0): Promise<RunningServer> {
  const name = instance > 0 ? `${id}-${instance}` : id;
  const logFile = join(context.dir, `${name}.log`);
  const logFd = openSync(logFile, 'a');
  let child: ChildProcess;
  let dbFile: string | undefined;
  try {
    switch (spec.kind) {
      case 'reference': {
        const template = context.stores.get(spec.pets);
        if (!template) throw new Error(`no generated store of ${spec.pets} pets`);
        dbFile = join(context.dir, `${name}.db.json`);
        copyFileSync(template, dbFile);
        const config: ReferenceLaunchConfig = {
          dbFile,
          apiKey: context.apiKey,
          redisUrl: spec.redis ? context.redisUrl : undefined,
          redisPrefix: context.redisPrefix,
          overrides: context.referenceOptions,
        };
        const profile = context.cpuProfDir
          ? // One folder per server: tsx's loader thread writes a profile of its own beside the main thread's.
            ['--cpu-prof', `--cpu-prof-dir=${join(context.cpuProfDir, name)}`]
          : [];
        child = spawnChild({
          command: process.execPath,
          args: nodeTsArgs(SCRIPTS.reference, { nodeFlags: [...context.referenceNodeFlags, ...profile] }),
          cpu: context.pinning?.server,
          env: { ...process.env, BENCH_REFERENCE_CONFIG: JSON.stringify(config) },
          output: logFd,
          ipc: true,
        });
        break;
      }
      case 'hapi':
      case 'node': {
        if (!context.canned) throw new Error(`${id} needs the reference server's response bytes first`);
        child = spawnChild({
          command: process.execPath,
          args: nodeTsArgs(SCRIPTS[spec.kind]),
          cpu: context.pinning?.server,
          env: { ...process.env, BENCH_BODY_FILE: context.canned.bodyFile, BENCH_CONTENT_TYPE: context.canned.contentType },
          output: logFd,
          ipc: true,
        });
        break;
      }
      case 'prism': {
        const port = await freePort();
        child = spawnChild({
          command: process.execPath,
          args: [SCRIPTS.prism, 'mock', SCRIPTS.spec, '--host', '127.0.0.1', '--port', String(port)],
          cpu: context.pinning?.server,
          output: logFd,
        });
        const origin = `http://127.0.0.1:${port}`;
        try {
          await waitForHttp(`${origin}${PRISM_LIST_PATH}`, authHeaders(context.apiKey), 200, START_TIMEOUT_MS, child);
        } catch (error) {
          await stopChild(child, 'SIGKILL');
          throw new Error(`prism did not start (log: ${logFile}): ${(error as Error).message}`);
        }
        return running(id, origin, child, logFile, undefined);
      }
    }
  } finally {
    closeSync(logFd);
  }
  try {
    const ready = await awaitMessage(child, isReady, START_TIMEOUT_MS, `${name} server`);
    return running(id, ready.origin, child, logFile, dbFile);
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    throw new Error(`${(error as Error).message} (log: ${logFile})`);
  }
}

function running(id: ServerId, origin: string, child: ChildProcess, logFile: string, dbFile: string | undefined): RunningServer {
  const pid = child.pid!;
  let peak = 0;
  const peakRss = () => {
    if (!exited(child)) {
      try {
        peak = Math.max(peak, peakRssBytes(pid));
      } catch {
        // exited between the check and the read; keep the last figure
      }
    }
    return peak;
  };
  return {
    id,
    origin,
    pid,
    child,
    logFile,
    dbFile,
    peakRss,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      peakRss();
      await stopChild(child, signal);
    },
  };
}
