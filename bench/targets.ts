// Launching each server under test as a process of its own and reading its peak RSS. The reference
// server runs compiled, through its own command line (`node dist/server/cli.js`), as `npm start`
// runs it; the peers are plain JavaScript; Prism and json-server run from node_modules.
import type { ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerId, ServerSpec } from './cases.ts';
import { CANNED_PATHS, DEEP_STATUS, JSON_LIST_PATH, PRISM_LIST_PATH } from './cases.ts';
import { isReady, type CannedResponses } from './peers/protocol.mjs';
import { BASE_PATH, LOWER_HEADERS } from '../spec/rules/contract.js';
import { linkWithRel, parseLinks } from '../spec/rules/link.js';
import {
  awaitGone,
  awaitMessage,
  descendants,
  exited,
  freePort,
  httpRequest,
  spawnChild,
  stopChild,
  treePeakRssBytes,
  waitForHttp,
  workerCores,
  type Pinning,
} from './proc.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
export const SCRIPTS = {
  reference: join(ROOT, 'dist/server/cli.js'),
  null: here('./peers/null-server.mjs'),
  hapi: here('./peers/bare-hapi.mjs'),
  'hapi-floor': here('./peers/hapi-floor.mjs'),
  node: here('./peers/bare-node.mjs'),
  prism: join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js'),
  jsonServer: join(ROOT, 'node_modules/json-server/lib/cli/bin.js'),
  spec: join(ROOT, 'spec/openapi.yaml'),
};
const START_TIMEOUT_MS = 60_000;
/** How long a server's workers may outlive it before they are killed. */
const STOP_GRACE_MS = 5000;

export interface LaunchContext {
  /** Temporary directory for store copies, logs and key files. */
  dir: string;
  pinning: Pinning | null;
  /** The CPUs this process may use (for the cores of a server with workers). */
  cpus: number[];
  apiKey: string;
  /** The `--api-keys` file holding `apiKey` with limits no run can reach. */
  apiKeysFile: string;
  redisUrl: string;
  /** Prefix of the limiter's Redis keys: the run's own, so they can be checked and dropped. */
  redisPrefix: string;
  /** The run's own PostgreSQL database, when a case needs one. */
  databaseUrl: string | undefined;
  cpuProfDir: string | undefined;
  /** Template file store by pet count; each file-store server gets its own copy. */
  stores: ReadonlyMap<number, string>;
  /** The same pets as a JSON array, for `--seed` of a new PostgreSQL schema and for json-server. */
  seeds: ReadonlyMap<number, string>;
  /** Extra `serve` flags for every reference server (pricing a component: `--quiet`, `--no-cors`). */
  referenceFlags: string[];
  referenceNodeFlags: string[];
  /** Needed before a bare server can start. */
  canned: CannedResponses | undefined;
}

/** A context for servers that need no store, Redis or database: a peer, or the null server. */
export function plainContext(fields: Pick<LaunchContext, 'dir' | 'pinning' | 'cpus' | 'apiKey' | 'apiKeysFile' | 'canned'>): LaunchContext {
  return {
    ...fields,
    redisUrl: '',
    redisPrefix: '',
    databaseUrl: undefined,
    cpuProfDir: undefined,
    stores: new Map(),
    seeds: new Map(),
    referenceFlags: [],
    referenceNodeFlags: [],
  };
}

export interface RunningServer {
  id: ServerId;
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
  /** A file-store server's own copy of its store. */
  dbFile: string | undefined;
  /** A PostgreSQL server's schema. */
  schema: string | undefined;
  /** The CPUs it was pinned to, for the report. */
  cpus: string | undefined;
  /** Highest peak RSS (bytes) seen so far, of the process and its workers together; read it before stopping. */
  peakRss(): number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The reference's own fields the no-op features floor sends too, with the values the reference sent. */
export const FLOOR_HEADERS = [
  LOWER_HEADERS.link,
  LOWER_HEADERS.rateLimitLimit,
  LOWER_HEADERS.rateLimitRemaining,
  LOWER_HEADERS.rateLimitReset,
  LOWER_HEADERS.rateLimit,
  LOWER_HEADERS.rateLimitPolicy,
] as const;

export function authHeaders(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}` };
}

/** The exact bytes of the reference list and get, for the bare servers to answer with (files in the run's directory). */
export async function captureCanned(origin: string, context: Pick<LaunchContext, 'apiKey' | 'dir'>): Promise<NonNullable<LaunchContext['canned']>> {
  const capture = async (name: 'list' | 'get') => {
    const reply = await httpRequest(`${origin}${CANNED_PATHS[name]}`, { headers: authHeaders(context.apiKey) });
    if (reply.status !== 200) throw new Error(`reference server answered ${reply.status}: ${reply.body.toString().slice(0, 200)}`);
    const bodyFile = join(context.dir, `canned-${name}.json`);
    writeFileSync(bodyFile, reply.body);
    const headers: Record<string, string> = {};
    for (const field of FLOOR_HEADERS) if (typeof reply.headers[field] === 'string') headers[field] = reply.headers[field];
    return { bodyFile, contentType: String(reply.headers['content-type'] ?? 'application/json'), headers };
  };
  return { list: await capture('list'), get: await capture('get') };
}

/**
 * A page from the middle of the store, reached the way a client would: following
 * `Link: <...>; rel="next"` with the status filter until half the pets are behind us.
 */
export async function midStorePage(origin: string, apiKey: string, pets: number): Promise<string> {
  let path = `${BASE_PATH}/pets?limit=100&status=${DEEP_STATUS}`;
  for (let page = 0; page < pets; page++) {
    const reply = await httpRequest(`${origin}${path}`, { headers: authHeaders(apiKey) });
    if (reply.status !== 200) throw new Error(`${path} answered ${reply.status}`);
    const items = JSON.parse(reply.body.toString()) as Array<{ id: number }>;
    const link = reply.headers[LOWER_HEADERS.link];
    const next = linkWithRel(parseLinks(Array.isArray(link) ? link.join(', ') : link), 'next')?.target;
    if (!next) throw new Error(`no rel="next" link after id ${items.at(-1)?.id}`);
    const nextUrl = new URL(next, `${origin}${path}`);
    if ((items.at(-1)?.id ?? 0) >= pets / 2) {
      nextUrl.searchParams.set('limit', '20');
      return `${nextUrl.pathname}${nextUrl.search}`;
    }
    path = `${nextUrl.pathname}${nextUrl.search}`;
  }
  throw new Error('the pages never reached the middle of the store');
}

/** The reference server's `serve` arguments for one server of the benchmark. */
export function referenceArgs(
  spec: Extract<ServerSpec, { kind: 'reference' }>,
  context: Pick<LaunchContext, 'apiKeysFile' | 'redisUrl' | 'redisPrefix' | 'databaseUrl' | 'seeds' | 'referenceFlags'>,
  port: number,
  store: { dbFile?: string; schema?: string },
  name: string,
): string[] {
  // Loopback is counted as any address, so the reference pays here what it pays for a network client.
  const args = ['--host', '127.0.0.1', '--port', String(port), '--api-keys', context.apiKeysFile, '--ip-ban-loopback'];
  if (spec.store === 'file') args.push('--db-file', store.dbFile!);
  else {
    if (!context.databaseUrl) throw new Error('no PostgreSQL database for the benchmark');
    const url = new URL(context.databaseUrl);
    url.searchParams.set('schema', store.schema!);
    const seed = context.seeds.get(spec.pets);
    if (!seed) throw new Error(`no seed of ${spec.pets} pets`);
    args.push('--database', url.href, '--seed', seed);
  }
  // A prefix per server, so that the run can tell that each one really counted in Redis.
  if (spec.redis) args.push('--redis', context.redisUrl, '--redis-prefix', `${context.redisPrefix}${name}:`);
  if (spec.workers > 1) args.push('--workers', String(spec.workers));
  return [...args, ...context.referenceFlags];
}

/** Polls a log file until `pattern` appears; rejects when the process exits first or time runs out. */
export async function waitForLog(file: string, pattern: RegExp, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (pattern.test(readFileSync(file, 'utf8'))) return;
    if (exited(child)) throw new Error(`exited (code ${child.exitCode}, signal ${child.signalCode}) before it was ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready within ${timeoutMs} ms`);
}

export async function launch(id: ServerId, spec: ServerSpec, context: LaunchContext, instance = 0): Promise<RunningServer> {
  const name = instance > 0 ? `${id}-${instance}` : id;
  const logFile = join(context.dir, `${name}.log`);
  const logFd = openSync(logFile, 'a');
  let child: ChildProcess | undefined;
  try {
    switch (spec.kind) {
      case 'reference': {
        const port = await freePort();
        const store: { dbFile?: string; schema?: string } = {};
        if (spec.store === 'file') {
          const template = context.stores.get(spec.pets);
          if (!template) throw new Error(`no generated store of ${spec.pets} pets`);
          store.dbFile = join(context.dir, `${name}.db.json`);
          copyFileSync(template, store.dbFile);
        } else {
          // PostgreSQL reserves names starting with pg_ for itself.
          store.schema = `bench_${name.replace(/\W/g, '_')}`;
        }
        const profile = context.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${join(context.cpuProfDir, name)}`] : [];
        const cores = spec.workers > 1 && context.pinning ? workerCores(spec.workers, context.cpus).cpus : context.pinning?.server;
        child = spawnChild({
          command: process.execPath,
          args: [...context.referenceNodeFlags, ...profile, SCRIPTS.reference, ...referenceArgs(spec, context, port, store, name)],
          cpu: cores,
          env: serverEnv(),
          output: logFd,
          cwd: context.dir,
        });
        // The banner is printed once the server listens; with workers, once every worker does.
        await waitForLog(logFile, spec.workers > 1 ? /workers: \d+ processes/ : /listening on http/, START_TIMEOUT_MS, child);
        return runningServer(id, `http://127.0.0.1:${port}`, child, logFile, { ...store, cpus: cores });
      }
      case 'null':
      case 'hapi':
      case 'hapi-floor':
      case 'node': {
        if (spec.kind !== 'null' && !context.canned) throw new Error(`${id} needs the reference server's response bytes first`);
        child = spawnChild({
          command: process.execPath,
          args: [SCRIPTS[spec.kind]],
          cpu: context.pinning?.server,
          env: { ...serverEnv(), ...(context.canned ? { BENCH_CANNED: JSON.stringify(context.canned) } : {}) },
          output: logFd,
          ipc: true,
        });
        const ready = await awaitMessage(child, isReady, START_TIMEOUT_MS, `${name} server`);
        return runningServer(id, ready.origin, child, logFile, { cpus: context.pinning?.server });
      }
      case 'prism': {
        const port = await freePort();
        child = spawnChild({
          command: process.execPath,
          args: [SCRIPTS.prism, 'mock', SCRIPTS.spec, '--host', '127.0.0.1', '--port', String(port)],
          cpu: context.pinning?.server,
          env: serverEnv(),
          output: logFd,
        });
        const origin = `http://127.0.0.1:${port}`;
        await waitForHttp(`${origin}${PRISM_LIST_PATH}`, authHeaders(context.apiKey), 200, START_TIMEOUT_MS, child);
        return runningServer(id, origin, child, logFile, { cpus: context.pinning?.server });
      }
      case 'json-server': {
        const seed = context.seeds.get(spec.pets);
        if (!seed) throw new Error(`no seed of ${spec.pets} pets`);
        // Its own folder: json-server reads json-server.json and serves ./public from where it runs.
        const cwd = join(context.dir, name);
        mkdirSync(cwd, { recursive: true });
        const dbFile = join(cwd, 'db.json');
        writeJsonServerDb(seed, dbFile);
        const port = await freePort();
        child = spawnChild({
          command: process.execPath,
          args: [SCRIPTS.jsonServer, dbFile, '--host', '127.0.0.1', '--port', String(port)],
          cpu: context.pinning?.server,
          env: serverEnv(),
          output: logFd,
          cwd,
        });
        const origin = `http://127.0.0.1:${port}`;
        await waitForHttp(`${origin}${JSON_LIST_PATH}`, {}, 200, START_TIMEOUT_MS, child);
        return runningServer(id, origin, child, logFile, { dbFile, cpus: context.pinning?.server });
      }
    }
  } catch (error) {
    if (child) await stopChild(child, 'SIGKILL');
    throw new Error(`${name} did not start: ${(error as Error).message} (log: ${logFile})`);
  } finally {
    closeSync(logFd);
  }
}

/** json-server's database: `{ "pets": [...] }`, from the same pets as the reference stores. */
function writeJsonServerDb(seedFile: string, dbFile: string): void {
  writeFileSync(dbFile, `{"pets":${readFileSync(seedFile, 'utf8').trim()}}\n`);
}

/**
 * The environment of a server under test: ours, less anything that would load tsx into it (the
 * benchmark itself runs under tsx; its servers must not).
 */
export function serverEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out = { ...env };
  if (out.NODE_OPTIONS && /tsx/.test(out.NODE_OPTIONS)) delete out.NODE_OPTIONS;
  return out;
}

/** Whether tsx is anywhere in a live process's command line or NODE_OPTIONS. */
export function runsTsx(pid: number): boolean {
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
  const nodeOptions = environ.split('\0').find((e) => e.startsWith('NODE_OPTIONS=')) ?? '';
  return /tsx/.test(cmdline) || /tsx/.test(nodeOptions);
}

/** A started server as the benchmark handles it; exported for its test. */
export function runningServer(
  id: ServerId,
  origin: string,
  child: ChildProcess,
  logFile: string,
  extra: { dbFile?: string | undefined; schema?: string | undefined; cpus: string | undefined },
): RunningServer {
  const pid = child.pid!;
  let peak = 0;
  const peakRss = () => {
    if (!exited(child)) peak = Math.max(peak, treePeakRssBytes(pid));
    return peak;
  };
  return {
    id,
    origin,
    pid,
    child,
    logFile,
    dbFile: extra.dbFile,
    schema: extra.schema,
    cpus: extra.cpus,
    peakRss,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      peakRss();
      // The server is in the benchmark's session, not a process group of its own (see spawnChild),
      // so what it started (cluster workers) is waited for here, and killed if it outlives it.
      const started = descendants(pid);
      await stopChild(child, signal);
      // Killed, a server stops nothing itself: what it started goes at once, and is waited for.
      const killed = await awaitGone(started, signal === 'SIGKILL' ? 0 : STOP_GRACE_MS);
      if (killed.length) await awaitGone(started, STOP_GRACE_MS);
    },
  };
}
