// Runs a k6 script under the shim (k6-shim.ts) as k6 would: its init context, setup, each
// constant-arrival-rate scenario one VU at a time on the fake clock (or the real one), an
// execution segment's share of each rate, then its thresholds and handleSummary.
import { pathToFileURL } from 'node:url';
import { parseSegment } from '../lib/segments.js';
import { evaluateThresholds, summaryMetric, type ThresholdResult } from './k6-thresholds.ts';
import { K6Shim, registerK6Shim, ScriptFailure, TestAborted, type Handler, type HttpOptions } from './k6-shim.ts';

/** k6's default summaryTrendStats. */
const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];

export interface ScriptModule {
  options?: {
    scenarios?: Record<string, Record<string, unknown>>;
    thresholds?: Record<string, string[]>;
    summaryTrendStats?: string[];
    summaryTimeUnit?: string;
  } & HttpOptions;
  setup?: () => unknown;
  handleSummary?: (data: unknown) => Record<string, string>;
  [exported: string]: unknown;
}

export interface RunOptions {
  env: Record<string, string>;
  handler: Handler;
  startMs: number;
  /** Upper bound on iterations over all scenarios, so a mistake cannot loop for long. */
  maxIterations?: number;
  /** Real time instead of the fake clock (for handlers that talk to real servers); startMs is then ignored. */
  realTime?: boolean;
  /** `--execution-segment` and `--execution-segment-sequence`: the shim runs the segment's share of each arrival rate. */
  executionSegment?: string;
  executionSegmentSequence?: string;
  /** k6's `--vus`, `--duration` and `--iterations`: given one, k6 runs `default` instead of the script's scenarios. */
  overrides?: Overrides;
}

export interface Overrides {
  vus?: number;
  duration?: string;
  iterations?: number;
}

/**
 * The scenarios k6 runs: the script's, or, when its own options were given on the command line,
 * the one scenario k6 derives from them (`default`, running the exported `default` function):
 * shared-iterations with `--iterations` (`--duration` is then its maxDuration), else constant-vus.
 */
export function effectiveScenarios(scenarios: Record<string, Record<string, unknown>> | undefined, o: Overrides = {}): Record<string, Record<string, unknown>> {
  if (o.vus === undefined && o.duration === undefined && o.iterations === undefined) return scenarios ?? {};
  const vus = o.vus ?? 1;
  if (o.iterations !== undefined) return { default: { executor: 'shared-iterations', vus, iterations: o.iterations, maxDuration: o.duration ?? '10m' } };
  if (o.duration === undefined) throw new Error('the shim derives a scenario from --vus only with --duration or --iterations');
  return { default: { executor: 'constant-vus', vus, duration: o.duration } };
}

export interface RunResult {
  module: ScriptModule;
  thresholds: ThresholdResult[];
  failed: ThresholdResult[];
  summary: Record<string, string>;
  shim: K6Shim;
  iterations: number;
  setupError: Error | null;
  /** The reason exec.test.abort was called with (k6 would exit 108), null when it was not. */
  aborted: string | null;
  /** Threshold keys whose metric got no sample: k6 may then not evaluate them at all. */
  unsampled: string[];
}

let runNumber = 0;

function durationSeconds(v: unknown): number {
  const t = String(v);
  if (/^\d+$/.test(t)) return Number(t);
  let total = 0;
  for (const m of t.matchAll(/(\d+)(ms|h|m|s)/g)) {
    const n = Number(m[1]);
    total += m[2] === 'h' ? n * 3600 : m[2] === 'm' ? n * 60 : m[2] === 'ms' ? n / 1000 : n;
  }
  return total;
}

/** The iteration start times (ms after the scenario's start) that k6's constant-arrival-rate executor would schedule (the only one the scripts use), for a share of the rate. */
export function arrivalTimes(scenario: Record<string, unknown>, share = 1): number[] {
  const unitS = durationSeconds(scenario.timeUnit ?? '1s');
  const times: number[] = [];
  if (scenario.executor === 'constant-arrival-rate') {
    const perS = (Number(scenario.rate) * share) / unitS;
    const durS = durationSeconds(scenario.duration);
    for (let t = 0; t < durS; t += 1 / perS) times.push(t * 1000);
    return times;
  }
  throw new Error(`the shim does not simulate the ${String(scenario.executor)} executor`);
}

/** Loads a script as k6 would (init context), then runs setup, its scenarios and handleSummary. */
export async function runScript(file: string, opts: RunOptions): Promise<RunResult> {
  registerK6Shim();
  const realNow = Date.now;
  const shim = new K6Shim(opts.handler, opts.startMs, opts.realTime ? realNow : null);
  const g = globalThis as unknown as { __k6shim?: K6Shim; __ENV?: Record<string, string> };
  g.__k6shim = shim;
  g.__ENV = { ...opts.env };
  if (!opts.realTime) Date.now = () => Math.floor(shim.nowMs);
  shim.executionSegment = opts.executionSegment ?? null;
  shim.executionSegmentSequence = opts.executionSegmentSequence ?? null;
  const share = parseSegment(opts.executionSegment, opts.executionSegmentSequence).share;
  const testStart = shim.nowMs;
  shim.testStartMs = testStart;
  let iterations = 0;
  let setupError: Error | null = null;
  try {
    const module = (await import(`${pathToFileURL(file).href}?run=${++runNumber}`)) as ScriptModule;
    shim.httpOptions = { ...(module.options ?? {}) };
    const running = effectiveScenarios(module.options?.scenarios, opts.overrides);
    shim.scenarios = running;
    // The shim runs one VU at a time; k6 starts every scenario's pre-allocated VUs.
    const preAllocated = Object.values(running).reduce((n, sc) => n + Number(sc.preAllocatedVUs ?? sc.vus ?? 1), 0);
    shim.add('vus', 1, {});
    shim.add('vus_max', Math.max(1, preAllocated), {});
    let data: unknown;
    try {
      data = module.setup ? JSON.parse(JSON.stringify(module.setup() ?? null)) : undefined;
    } catch (e) {
      setupError = e as Error;
    }
    if (setupError === null) {
      scenarioLoop: {
        const scenarios = Object.entries(running).sort((a, b) => durationSeconds(a[1].startTime ?? 0) - durationSeconds(b[1].startTime ?? 0));
        const max = opts.maxIterations ?? 20_000;
        for (const [name, scenario] of scenarios) {
          const start = testStart + durationSeconds(scenario.startTime ?? 0) * 1000;
          shim.nowMs = Math.max(shim.nowMs, start);
          const startTime = shim.nowMs;
          shim.scenario = { name, startTime, iterationInTest: 0 };
          shim.vu = { idInTest: 1, iterationInScenario: 0, tags: {} };
          const fn = module[String(scenario.exec ?? 'default')];
          if (typeof fn !== 'function') throw new Error(`scenario ${name} runs ${String(scenario.exec)}, which the script does not export`);
          if (scenario.executor !== 'constant-arrival-rate') {
            // k6's own options: one VU calls `default` back to back, for a duration or a count.
            const endMs = startTime + durationSeconds(scenario.duration ?? scenario.maxDuration) * 1000;
            const count = scenario.executor === 'shared-iterations' ? Number(scenario.iterations) : Infinity;
            for (let n = 0; n < count && shim.nowMs < endMs; n++) {
              if (++iterations > max) throw new Error(`more than ${max} iterations`);
              const began = shim.nowMs;
              try {
                (fn as (d: unknown) => void)(data);
              } catch (e) {
                if (e instanceof TestAborted) break scenarioLoop;
                if (!(e instanceof ScriptFailure)) throw e;
                shim.logs.push(`iteration failed: ${e.message}`);
              }
              // An iteration that took no time would loop forever on the fake clock.
              if (shim.nowMs === began) shim.nowMs += 1;
              shim.add('iterations', 1, {});
              shim.iterationsCompleted += 1;
              shim.add('iteration_duration', shim.nowMs - began, {});
              shim.vu.iterationInScenario += 1;
              shim.scenario.iterationInTest += 1;
            }
            continue;
          }
          for (const at of arrivalTimes(scenario, share)) {
            if (++iterations > max) throw new Error(`more than ${max} iterations`);
            // One VU: an iteration that starts late (the previous one ran long) is what k6 would drop.
            if (shim.nowMs > startTime + at + 1000) {
              shim.add('dropped_iterations', 1, {});
              continue;
            }
            shim.nowMs = Math.max(shim.nowMs, startTime + at);
            const began = shim.nowMs;
            try {
              (fn as (d: unknown) => void)(data);
            } catch (e) {
              if (e instanceof TestAborted) break scenarioLoop;
              if (!(e instanceof ScriptFailure)) throw e;
              shim.logs.push(`iteration failed: ${e.message}`);
            }
            shim.add('iterations', 1, {});
            shim.iterationsCompleted += 1;
            shim.add('iteration_duration', shim.nowMs - began, {});
            shim.vu.iterationInScenario += 1;
            shim.scenario.iterationInTest += 1;
          }
        }
      }
      shim.scenario = { name: '', startTime: 0, iterationInTest: 0 };
    }
    const durationS = (shim.nowMs - testStart) / 1000;
    const trendStats = module.options?.summaryTrendStats ?? TREND_STATS;
    const { results: thresholds, unsampled, metrics } = evaluateThresholds(module.options?.thresholds ?? {}, shim.samples, shim.types, durationS, trendStats);
    // k6 always reports the duration of the answers it expected, under http_req_duration.
    const expectedDuration = 'http_req_duration{expected_response:true}';
    if (metrics.http_req_duration && !metrics[expectedDuration]) {
      metrics[expectedDuration] = summaryMetric(expectedDuration, shim.samples, shim.types, durationS, trendStats);
    }
    const summaryData = {
      metrics,
      root_group: { name: '', path: '', checks: [...shim.checks].map(([name, c]) => ({ name, ...c })), groups: [] },
      state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: shim.nowMs - testStart },
      options: { summaryTrendStats: trendStats, summaryTimeUnit: module.options?.summaryTimeUnit ?? '', noColor: false },
      // k6 hands setup's data to handleSummary; undefined when setup threw.
      setup_data: setupError === null && module.setup ? data : undefined,
    };
    const summary = module.handleSummary ? module.handleSummary(summaryData) : {};
    return { module, thresholds, failed: thresholds.filter((t) => !t.ok), summary, shim, iterations, setupError, unsampled, aborted: shim.aborted };
  } finally {
    Date.now = realNow;
  }
}
