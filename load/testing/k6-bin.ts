// Where a real k6 is: K6_BIN, else k6 on PATH; null when there is none (the tests that need one are
// then skipped, never passed). A K6_BIN that is not an executable is a mistake, not a skip. And how
// the tests run a script with it: every `-e` variable given, the JSON summary at a path of its own.
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const load = join(dirname(fileURLToPath(import.meta.url)), '..');

export function findK6(): string | null {
  const explicit = process.env.K6_BIN;
  if (explicit) {
    accessSync(explicit, constants.X_OK);
    return explicit;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'k6');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export interface K6Run {
  code: number | null;
  output: string;
  summary: {
    passed: boolean;
    result: string;
    exitCode: number;
    failedThresholds: Array<{ metric: string }>;
    report: string[];
    extra: Record<string, unknown>;
    /** k6's own summary data, every metric included. */
    k6: unknown;
  } | null;
  summaryPath: string;
}

/** Runs one of load/'s scripts with the k6 at `k6`, in the repository's root; killed after `timeoutMs`. */
export function runK6(k6: string, script: string, env: Record<string, string>, dir: string, timeoutMs: number, flags: string[] = []): Promise<K6Run> {
  const summaryPath = join(dir, `${script.replace(/\W/g, '-')}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const args = ['run', '--no-usage-report', '--quiet', ...flags];
  for (const [k, v] of Object.entries({ ...env, SUMMARY_JSON: summaryPath })) args.push('-e', `${k}=${v}`);
  args.push(join(load, script));
  return new Promise((resolve) => {
    const child = spawn(k6, args, { cwd: join(load, '..'), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, K6_NO_USAGE_REPORT: 'true' } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const summary = existsSync(summaryPath) ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as K6Run['summary']) : null;
      resolve({ code, output, summary, summaryPath });
    });
  });
}

/** A k6 command of its own (not a run of one of load/'s scripts), in `cwd`; k6 reaches an in-process server only if the event loop runs. */
export function k6Exec(k6: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(k6, args, { cwd, timeout: timeoutMs, env: { ...process.env, K6_NO_USAGE_REPORT: 'true' } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}
