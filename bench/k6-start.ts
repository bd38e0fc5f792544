// The k6 start case (`--cases k6-start`, only when named): how long k6 takes to load each load/
// script before its first request (`k6 inspect`: compile and run the init code, no request), beside
// a trivial script on the same machine and k6, so that the figure reads as a ratio that holds from
// one machine to another. k6 v0.47 runs every ES module through Babel, which made the scripts take
// 11 to 16 s (issue 39); load/lib/bundle.cjs is why they now take about one. A figure, not a test.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What is timed: the three scripts, by the path a user gives k6 from the repository's root. */
export const K6_SCRIPTS = ['load/smoke.js', 'load/rate-limit.js', 'load/capacity.js'] as const;
/** The baseline: the smallest script k6 runs, so the start of k6 itself. */
export const TRIVIAL_SCRIPT = 'export default function () {}\n';

export interface K6StartRow {
  script: string;
  /** Seconds of each run, in order. */
  runsS: number[];
  medianS: number;
  /** This script's median over the trivial script's. */
  ratio: number | null;
  /** Why a run failed (k6's exit and last line), null when every run succeeded. */
  error: string | null;
}

export interface K6StartReport {
  k6: string | null;
  version: string | null;
  runs: number;
  rows: K6StartRow[];
  /** Why nothing was measured. */
  skipped?: string;
}

/** K6_BIN, else k6 on PATH; null when there is none. */
export function findK6Binary(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = env.K6_BIN
    ? [env.K6_BIN]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, 'k6'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

/** One `k6 inspect`: its wall time in seconds, or why it failed. */
export type Inspect = (k6: string, script: string) => { seconds: number; error: string | null };

const inspect: Inspect = (k6, script) => {
  const started = process.hrtime.bigint();
  const run = spawnSync(k6, ['inspect', script], { cwd: root, encoding: 'utf8', env: { ...process.env, K6_NO_USAGE_REPORT: 'true' } });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const last = `${run.stderr ?? ''}`.trim().split('\n').at(-1) ?? '';
  return { seconds, error: run.status === 0 ? null : `k6 inspect exited ${run.status}: ${last}` };
};

/** Times `runs` starts of the trivial script and of each script, interleaved round by round so that a drift of the machine hits all alike. */
export function measureK6Start(opts: { runs: number; k6?: string | null; inspect?: Inspect; version?: string | null } = { runs: 3 }): K6StartReport {
  const k6 = opts.k6 === undefined ? findK6Binary() : opts.k6;
  if (k6 === null) return { k6: null, version: null, runs: 0, rows: [], skipped: 'k6 not found (set K6_BIN or put k6 on PATH)' };
  const run = opts.inspect ?? inspect;
  const version = opts.version !== undefined ? opts.version : (spawnSync(k6, ['version'], { encoding: 'utf8' }).stdout ?? '').trim().split('\n')[0] || null;
  const dir = mkdtempSync(join(tmpdir(), 'k6-start-'));
  try {
    const trivial = join(dir, 'trivial.js');
    writeFileSync(trivial, TRIVIAL_SCRIPT);
    const scripts: Array<[string, string]> = [['a trivial script', trivial], ...K6_SCRIPTS.map((s): [string, string] => [s, join(root, s)])];
    const times = scripts.map(() => [] as number[]);
    const errors: Array<string | null> = scripts.map(() => null);
    for (let round = 0; round < opts.runs; round++) {
      scripts.forEach(([, path], i) => {
        const r = run(k6, path);
        times[i]!.push(r.seconds);
        if (r.error !== null) errors[i] = r.error;
      });
    }
    const base = median(times[0]!);
    const rows = scripts.map(([script], i): K6StartRow => {
      const m = median(times[i]!);
      return { script, runsS: times[i]!, medianS: m, ratio: i === 0 || base <= 0 ? null : m / base, error: errors[i]! };
    });
    return { k6, version, runs: opts.runs, rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The case's table, as npm run bench prints it. */
export function renderK6Start(report: K6StartReport): string {
  if (report.skipped) return `k6 start: not measured: ${report.skipped}\n`;
  const lines = [
    `k6 start: \`k6 inspect <script>\` (loads and runs its init code, sends nothing), median of ${report.runs}, ${report.version ?? 'k6'} at ${report.k6}`,
  ];
  const width = Math.max(...report.rows.map((r) => r.script.length));
  for (const r of report.rows) {
    const figure = `${r.medianS.toFixed(2)} s`;
    const beside = r.ratio === null ? '' : `  x${r.ratio.toFixed(1)} the trivial script`;
    lines.push(`  ${r.script.padEnd(width)}  ${figure.padStart(8)}${beside}${r.error ? `  (failed: ${r.error})` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
