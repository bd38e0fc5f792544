// The one place the kit starts other processes and picks ports. Every child started here is
// remembered and killed when this process exits or is interrupted, so that an interrupted test or
// benchmark never leaves a server holding a port.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port that was free a moment ago on `host` (for children that cannot report the port they took). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

const children = new Set<ChildProcess>();
/** Children started in a process group of their own: signals go to the whole group. */
const leaders = new WeakSet<ChildProcess>();
let guarded = false;

function signalChild(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(leaders.has(child) ? -child.pid : child.pid, signal);
  } catch {
    // already gone
  }
}

function killAll(): void {
  for (const child of children) signalChild(child, 'SIGKILL');
  children.clear();
}

function guard(): void {
  if (guarded) return;
  guarded = true;
  process.once('exit', () => killAll());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      // A program that handles the signal itself decides when to exit; 'exit' kills the children then.
      if (process.listenerCount(signal) > 0) return;
      killAll();
      // Let the signal do what it would have done without this handler.
      process.kill(process.pid, signal);
    });
  }
}

export interface ChildOptions extends Omit<SpawnOptions, 'detached'> {
  /** Run in a process group of its own, so that stopping it stops what it started too. */
  group?: boolean;
}

/** spawn(), remembered so that the child dies with this process, however this process ends. */
export function spawnChild(command: string, args: readonly string[], options: ChildOptions = {}): ChildProcess {
  guard();
  const { group, ...rest } = options;
  const child = spawn(command, args, { ...rest, detached: group === true });
  if (group) leaders.add(child);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * Whether a process is still running. A killed process whose parent never reaps it stays in the
 * table as a zombie (state Z), holding no port and running nothing: that counts as gone.
 */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Every process below `pid`, children first, read from /proc. */
export function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** A process's command line, for messages about it ('' once it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/**
 * Waits until none of `pids` runs, at most `timeoutMs`; then kills what is left (so a failed check
 * never leaves a process behind) and returns the command lines of what had to be killed.
 */
export async function awaitGone(pids: readonly number[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(running) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const left = pids.filter(running);
  const parentOf = (pid: number) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    } catch {
      return '?';
    }
  };
  const described = left.map((pid) => `${pid} (parent ${parentOf(pid)}) ${commandLine(pid)}`);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return described;
}

export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Sends `signal` (SIGTERM by default), then SIGKILL after `graceMs`; resolves once the child is gone. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => signalChild(child, 'SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    signalChild(child, signal);
  });
}

/**
 * Under npm a server's parent is npm's shell, which dies on SIGTERM or SIGINT without passing it on,
 * orphaning the server with its port: so under npm a server stops when its parent goes (under nohup
 * it runs on, as asked).
 */
export function stopWithParent(stop: (why: string) => void, pollMs = 250): void {
  if (!process.env.npm_command) return;
  const why = 'the npm process that started it has stopped';
  // Compared with the parent at start: the parent may have gone before this was called.
  if (process.ppid !== PARENT_AT_START) {
    setImmediate(() => stop(why));
    return;
  }
  const timer = setInterval(() => {
    if (process.ppid === PARENT_AT_START) return;
    clearInterval(timer);
    stop(why);
  }, pollMs);
  timer.unref();
}

/** The parent when this module was loaded, which is when the process started. */
const PARENT_AT_START = process.ppid;

export interface OutputWatch {
  /** Everything the child wrote so far, stdout and stderr interleaved. */
  text(): string;
}

/** Collects a piped child's stdout and stderr. */
export function collectOutput(child: ChildProcess, onLine?: (line: string) => void): OutputWatch {
  let text = '';
  const onData = (chunk: Buffer) => {
    const part = chunk.toString();
    text += part;
    if (onLine) for (const line of part.split('\n')) if (line.trim()) onLine(line);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return { text: () => text };
}

/**
 * Resolves with the first match of `pattern` in the child's output; rejects when the child exits
 * first or `timeoutMs` passes, with the output's tail in the message.
 */
export function waitForOutput(child: ChildProcess, output: OutputWatch, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const tail = () => output.text().slice(-2000);
    const check = () => {
      const match = pattern.exec(output.text());
      if (match) done(undefined, match);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`${what} exited (code ${code}, signal ${signal}) before it was ready:\n${tail()}`));
    const timer = setTimeout(() => done(new Error(`${what} was not ready within ${timeoutMs} ms:\n${tail()}`)), timeoutMs);
    function done(error?: Error, match?: RegExpExecArray) {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(match!);
    }
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}
