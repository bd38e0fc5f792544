// Child processes of the benchmark: servers and the load generator each run in a process of
// their own, so that the server's RSS can be read from /proc and the load generator never
// shares an event loop with what it measures.
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { collectOutput, descendants, exited, spawnChild as spawnTracked, stopChild } from '../lib/processes.ts';

export { awaitGone, descendants, exited, freePort, stopChild } from '../lib/processes.ts';

export interface SpawnSpec {
  command: string;
  args: string[];
  /** Pin to this CPU list with taskset (which execs, so the pid stays the process's own). */
  cpu?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** File descriptor for the child's stdout and stderr (a log file); 'ignore' drops them. */
  output: number | 'ignore' | 'pipe' | 'inherit';
  ipc?: boolean;
  cwd?: string | undefined;
}

/**
 * Stays in the benchmark's session, as a server started by hand beside wrk does: a session of its own
 * is an autogroup of its own, which cost the bare hapi peer up to half its rate on a shared core
 * (bench/README.md, "Does the harness slow what it measures?").
 */
export function spawnChild(spec: SpawnSpec): ChildProcess {
  const [command, args] = spec.cpu !== undefined ? ['taskset', ['-c', spec.cpu, spec.command, ...spec.args]] : [spec.command, spec.args];
  const stdio: Array<'ignore' | 'pipe' | 'inherit' | 'ipc' | number> = ['ignore', spec.output, spec.output];
  if (spec.ipc) stdio.push('ipc');
  return spawnTracked(command as string, args as string[], { stdio, env: spec.env ?? process.env, cwd: spec.cwd });
}

/** Runs a command to its end and gives its exit code and output (stdout and stderr together). */
export function runToEnd(
  command: string,
  args: string[],
  options: { cpu?: string | undefined; timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnChild({ command, args, cpu: options.cpu, output: 'pipe', cwd: options.cwd, env: options.env });
    const output = collectOutput(child);
    const timer = setTimeout(() => {
      void stopChild(child, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')}: still running after ${options.timeoutMs} ms; killed`));
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.text() });
    });
  });
}

/** The full path of an executable on PATH, or undefined. */
export function findOnPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(join(dir, bin), constants.X_OK);
      return join(dir, bin);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Node with tsx's loader, the way every TypeScript process of the benchmark is run. */
export function nodeTsArgs(script: string, extra: { nodeFlags?: string[]; args?: string[] } = {}): string[] {
  return [...(extra.nodeFlags ?? []), '--import', 'tsx', script, ...(extra.args ?? [])];
}

/** Resolves with the first IPC message that passes `accept`; rejects if the child exits or time runs out. */
export function awaitMessage<T>(child: ChildProcess, accept: (m: unknown) => m is T, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: unknown) => {
      if (accept(m)) done(undefined, m);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => done(new Error(`${what}: exited (code ${code}, signal ${signal}) before answering`));
    function done(error?: Error, value?: T) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value as T);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Peak resident set size (VmHWM) of a live process, in bytes. */
export function peakRssBytes(pid: number): number {
  return statusField(pid, 'VmHWM');
}

/** The peaks of a process and every process below it (cluster workers), added up; 0 for what is gone. */
export function treePeakRssBytes(pid: number): number {
  return [pid, ...descendants(pid)].reduce((n, p) => {
    try {
      return n + peakRssBytes(p);
    } catch {
      return n;
    }
  }, 0);
}

export function rssBytes(pid: number): number {
  return statusField(pid, 'VmRSS');
}

function statusField(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(match[1]) * 1024;
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export function httpRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${url}: no response within 10 s`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Polls until `url` answers with `status`; for servers that cannot report readiness themselves. */
export async function waitForHttp(url: string, headers: Record<string, string>, status: number, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`${url}: server exited (code ${child.exitCode}) before it answered`);
    try {
      const reply = await httpRequest(url, { headers });
      if (reply.status === status) return;
      last = `status ${reply.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url}: not ready within ${timeoutMs} ms (${last})`);
}

export interface Pinning {
  /** The core of every single-process server. */
  server: string;
  load: string;
}

/**
 * Two distinct cores, one for the server under test and one for the load generator, or null when
 * taskset or a second core is missing. The load generator is as CPU-bound as the server; pinned,
 * neither steals the other's core and every case gets the same split.
 */
export function choosePinning(cpus = allowedCpus(), taskset = findOnPath('taskset') !== undefined): Pinning | null {
  if (cpus.length < 2 || !taskset) return null;
  return { load: String(cpus[0]), server: String(cpus[1]) };
}

/**
 * The cores of a server of `workers` processes: one each while the machine has them beside the load
 * generator's, else they share what is left (on two cores: the server's one core).
 */
export function workerCores(workers: number, cpus = allowedCpus()): { cpus: string; shared: boolean } {
  const left = cpus.slice(1);
  const used = left.slice(0, Math.max(1, workers));
  return { cpus: used.join(','), shared: used.length < workers };
}

/** The CPUs this process may use, from /proc/self/status. */
export function allowedCpus(status = readFileSync('/proc/self/status', 'utf8')): number[] {
  const match = /^Cpus_allowed_list:\s+(\S+)/m.exec(status);
  return match ? cpuList(match[1]!) : [];
}

/** The CPUs of a list as taskset and /proc write it: `1`, `1,2`, `0-3,6`. */
export function cpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!range) throw new Error(`not a CPU list: ${JSON.stringify(text)}`);
    const [a, b] = [Number(range[1]), Number(range[2] ?? range[1])];
    if (b < a) throw new Error(`not a CPU list: ${JSON.stringify(text)}`);
    for (let c = a; c <= b; c++) cpus.push(c);
  }
  return cpus;
}

export interface CpuTicks {
  /** Ticks all CPUs spent on anything but idle, I/O wait and softirq. */
  busy: number;
  /** All ticks of all CPUs. */
  total: number;
  cpus: number;
}

/**
 * Machine-wide CPU ticks from /proc/stat (its first line sums every CPU). Softirq time is left out
 * of `busy`: it is charged to no process, and on loopback most of it is the benchmark's own
 * traffic (a tenth of a core at 50,000 requests/s), which would otherwise read as disturbance.
 */
export function machineTicks(stat = readFileSync('/proc/stat', 'utf8')): CpuTicks {
  const lines = stat.split('\n');
  return { ...lineTicks(lines[0]!), cpus: lines.filter((l) => /^cpu\d+\s/.test(l)).length };
}

/** The same for some CPUs only, from their own lines of /proc/stat. */
export function coreTicks(cpus: readonly number[], stat = readFileSync('/proc/stat', 'utf8')): CpuTicks {
  const sum = { busy: 0, total: 0, cpus: cpus.length };
  for (const cpu of cpus) {
    const line = stat.split('\n').find((l) => l.startsWith(`cpu${cpu} `));
    if (!line) throw new Error(`/proc/stat has no line for cpu ${cpu}`);
    const ticks = lineTicks(line);
    sum.busy += ticks.busy;
    sum.total += ticks.total;
  }
  return sum;
}

/** user nice system idle iowait irq softirq steal: all eight are time; idle, iowait and softirq are not busy. */
function lineTicks(line: string): { busy: number; total: number } {
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const notBusy = (fields[3] ?? 0) + (fields[4] ?? 0) + (fields[6] ?? 0);
  return { busy: total - notBusy, total };
}

/**
 * What else ran on a server's own cores between two readings, as shares of their time. `stores`
 * (PostgreSQL backends, Redis) are not pinned and may have run elsewhere, so subtracting them can
 * only understate the others.
 */
export function coreShares(
  before: CpuTicks,
  after: CpuTicks,
  used: { server: number; stores: number; bystanders: number },
): { bystanders: number; others: number } {
  const elapsed = after.total - before.total;
  if (elapsed <= 0) return { bystanders: 0, others: 0 };
  const others = after.busy - before.busy - used.server - used.stores - used.bystanders;
  return { bystanders: used.bystanders / elapsed, others: Math.max(0, others) / elapsed };
}

/** The session a live process belongs to (field 6 of /proc/<pid>/stat); the scheduler's autogroup follows it. */
export function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

/** Clock ticks per second of /proc's CPU counters (USER_HZ, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

/** CPU ticks of a process and every process below it (cluster workers). */
export function treeTicks(pid: number): number {
  return [pid, ...descendants(pid)].reduce((n, p) => n + processTicks(p), 0);
}

/** CPU ticks (user + system, every thread) a live process has used; 0 once it is gone. */
export function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * CPU ticks (user + system) of one thread of a live process: `tid` = `pid` is its main thread (a Node
 * process's event loop); 0 once it is gone. The process's own figure (processTicks) holds every thread.
 */
export function threadTicks(pid: number, tid: number = pid): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * The CPU time of a live process in ticks, to the nanosecond: every thread's time on a CPU from
 * /proc/<pid>/task/<tid>/schedstat, where processTicks counts whole ticks of 10 ms. For a process that
 * works little per round (a Redis behind one short round); 0 once it is gone.
 */
export function processTicksExact(pid: number): number {
  let nanos = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        nanos += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // a thread that ended meanwhile
      }
    }
  } catch {
    return 0;
  }
  return (nanos / 1e9) * TICKS_PER_SECOND;
}

/**
 * How many cores processes other than `own` kept busy between two readings: the benchmark's
 * share of a shared machine is only known if what the others took is.
 */
export function foreignCores(before: { machine: CpuTicks; own: number }, after: { machine: CpuTicks; own: number }): number {
  const elapsedPerCpu = (after.machine.total - before.machine.total) / Math.max(1, after.machine.cpus);
  if (elapsedPerCpu <= 0) return 0;
  const foreign = after.machine.busy - before.machine.busy - (after.own - before.own);
  return Math.max(0, foreign / elapsedPerCpu);
}
