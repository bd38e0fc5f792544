// A Node stand-in for the k6 modules the scripts use (k6, k6/http, k6/metrics, k6/execution),
// so that the tests can load every script, run its setup, scenarios and handleSummary against a
// synchronous fake target on a fake clock, and evaluate its thresholds the way k6 does. It checks
// the scripts' wiring (metric names, tags, threshold keys, data flow, summary) and their logic;
// it is not k6: the JavaScript engine is V8, not goja (syntax is checked separately), and the
// executors are simulated one VU at a time. The runs with a real k6 are in k6.test.ts.
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseSegment } from '../lib/segments.js';
import { evaluateThresholds, type MetricType, type Sample, type Tags, type ThresholdResult } from './k6-thresholds.ts';

export { evaluateThresholds, parseMetricKey, type MetricType, type Sample, type Tags, type ThresholdResult } from './k6-thresholds.ts';

export interface FakeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}
export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Milliseconds the request takes on the fake clock; default 2. */
  latencyMs?: number;
}
export type Handler = (req: FakeRequest, nowMs: number) => FakeResponse;

interface ExpectedCallback {
  readonly __expected: Array<number | { min: number; max: number }>;
}

const K6_MODULES: Record<string, string> = {
  k6: `const s = () => globalThis.__k6shim;
export function check(v, sets, tags) { return s().check(v, sets, tags); }
export function fail(m) { return s().fail(m); }
export function sleep(x) { return s().sleep(x); }
export function group(n, f) { return s().group(n, f); }
export default { check, fail, sleep, group };`,
  'k6/http': `const s = () => globalThis.__k6shim;
export function get(u, p) { return s().request('GET', u, null, p); }
export function post(u, b, p) { return s().request('POST', u, b, p); }
export function put(u, b, p) { return s().request('PUT', u, b, p); }
export function del(u, b, p) { return s().request('DELETE', u, b, p); }
export function request(m, u, b, p) { return s().request(m, u, b, p); }
export function batch(r) { return s().batch(r); }
export function expectedStatuses(...a) { return s().expectedStatuses(a); }
export function setResponseCallback(c) { return s().setResponseCallback(c); }
export default { get, post, put, del, request, batch, expectedStatuses, setResponseCallback };`,
  'k6/metrics': `const s = () => globalThis.__k6shim;
class Metric { constructor(type, name, isTime) { this.name = name; s().declare(name, type, !!isTime); } add(v, tags) { s().add(this.name, Number(v), tags || {}); } }
export class Counter extends Metric { constructor(n, t) { super('counter', n, t); } }
export class Rate extends Metric { constructor(n, t) { super('rate', n, t); } }
export class Trend extends Metric { constructor(n, t) { super('trend', n, t); } }
export class Gauge extends Metric { constructor(n, t) { super('gauge', n, t); } }
export default { Counter, Rate, Trend, Gauge };`,
  'k6/execution': `const s = () => globalThis.__k6shim;
export default {
  get scenario() { return s().execScenario(); },
  get vu() { return s().execVu(); },
  get instance() { return s().execInstance(); },
  get test() { return { abort: (m) => s().abort(m), get options() { return s().execOptions(); } }; },
};`,
};

let registered = false;
/** Maps the k6 module names to the stand-ins above, for every import that follows. */
export function registerK6Shim(): void {
  if (registered) return;
  registered = true;
  const table = JSON.stringify(Object.fromEntries(Object.entries(K6_MODULES).map(([k, v]) => [k, 'data:text/javascript,' + encodeURIComponent(v)])));
  const hooks = `const table = ${table};
export async function resolve(specifier, context, next) {
  if (Object.prototype.hasOwnProperty.call(table, specifier)) return { url: table[specifier], shortCircuit: true };
  return next(specifier, context);
}`;
  register('data:text/javascript,' + encodeURIComponent(hooks));
}

class ScriptFailure extends Error {}
/** What exec.test.abort throws: k6 interrupts the VU and ends the run with exit code 108. */
export class TestAborted extends Error {}

/** The state one script run shares with the stand-in modules. */
export class K6Shim {
  readonly samples: Sample[] = [];
  readonly types = new Map<string, { type: MetricType; time: boolean }>();
  readonly checks = new Map<string, { passes: number; fails: number }>();
  readonly logs: string[] = [];
  readonly requests: FakeRequest[] = [];
  #fakeNowMs: number;
  readonly #realNow: (() => number) | null;
  scenario = { name: '', startTime: 0, iterationInTest: 0 };
  vu = { idInTest: 1, iterationInScenario: 0 };
  #callback: ExpectedCallback | null = null;

  /** With `realNow`, time is real: moving the clock forward sleeps, as k6 would wait. */
  constructor(
    readonly handler: Handler,
    startMs: number,
    realNow: (() => number) | null = null,
  ) {
    this.#fakeNowMs = startMs;
    this.#realNow = realNow;
    for (const [name, type, time] of [
      ['http_reqs', 'counter', false],
      ['http_req_duration', 'trend', true],
      ['http_req_failed', 'rate', false],
      ['checks', 'rate', false],
      ['iterations', 'counter', false],
      ['dropped_iterations', 'counter', false],
      ['iteration_duration', 'trend', true],
    ] as const) {
      this.declare(name, type, time);
    }
  }

  get nowMs(): number {
    return this.#realNow ? this.#realNow() : this.#fakeNowMs;
  }

  set nowMs(value: number) {
    if (!this.#realNow) {
      this.#fakeNowMs = value;
      return;
    }
    const wait = value - this.#realNow();
    if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
  }

  declare(name: string, type: MetricType, time: boolean): void {
    if (!/^[a-zA-Z_][a-zA-Z0-9_]{0,127}$/.test(name)) throw new Error(`k6 would refuse the metric name ${name}`);
    const known = this.types.get(name);
    if (known && known.type !== type) throw new Error(`metric ${name} declared as ${known.type} and ${type}`);
    this.types.set(name, { type, time });
  }

  #tags(extra: Tags | undefined): Tags {
    return { ...(this.scenario.name ? { scenario: this.scenario.name } : {}), ...(extra ?? {}) };
  }

  add(metric: string, value: number, tags: Tags): void {
    if (!this.types.has(metric)) throw new Error(`no metric ${metric}`);
    if (!Number.isFinite(value)) throw new Error(`metric ${metric}: ${value} is not a number`);
    for (const v of Object.values(tags)) if (typeof v !== 'string') throw new Error(`metric ${metric}: tag values must be strings`);
    this.samples.push({ metric, value, tags: this.#tags(tags) });
  }

  check(value: unknown, sets: Record<string, (v: unknown) => unknown>, tags?: Tags): boolean {
    let all = true;
    for (const [name, fn] of Object.entries(sets)) {
      const ok = Boolean(fn(value));
      const c = this.checks.get(name) ?? { passes: 0, fails: 0 };
      if (ok) c.passes += 1;
      else c.fails += 1;
      this.checks.set(name, c);
      this.add('checks', ok ? 1 : 0, { ...(tags ?? {}), check: name });
      all = all && ok;
    }
    return all;
  }

  fail(message: string): never {
    throw new ScriptFailure(message);
  }

  /** The reason of exec.test.abort, once a script called it. */
  aborted: string | null = null;
  /** The execution segment this run was given (`--execution-segment`), null for the whole run. */
  executionSegment: string | null = null;
  executionSegmentSequence: string | null = null;

  abort(message?: string): never {
    this.aborted = 'test aborted' + (message === undefined ? '' : ': ' + message);
    throw new TestAborted(this.aborted);
  }

  execOptions() {
    return { executionSegment: this.executionSegment, executionSegmentSequence: this.executionSegmentSequence };
  }

  execInstance() {
    // The shim runs one VU at a time.
    return { vusActive: 1, vusInitialized: 1, iterationsCompleted: 0, iterationsInterrupted: 0, currentTestRunDuration: 0 };
  }

  sleep(seconds: number): void {
    this.nowMs += seconds * 1000;
  }

  group(_name: string, fn: () => unknown): unknown {
    return fn();
  }

  expectedStatuses(args: Array<number | { min: number; max: number }>): ExpectedCallback {
    return { __expected: args };
  }

  setResponseCallback(cb: ExpectedCallback): void {
    if (!cb || !Array.isArray(cb.__expected)) throw new Error('setResponseCallback takes http.expectedStatuses(...)');
    this.#callback = cb;
  }

  #expected(status: number, cb: ExpectedCallback | null): boolean {
    if (cb === null) return status >= 200 && status <= 399;
    return cb.__expected.some((e) => (typeof e === 'number' ? e === status : status >= e.min && status <= e.max));
  }

  request(method: string, url: string, body: unknown, params?: { headers?: Record<string, string>; tags?: Tags; responseCallback?: ExpectedCallback }) {
    const req: FakeRequest = { method, url, headers: { ...(params?.headers ?? {}) }, body: body === null || body === undefined ? null : String(body) };
    this.requests.push(req);
    const res = this.handler(req, this.nowMs);
    if (!this.#realNow) this.nowMs += res.latencyMs ?? 2;
    const cb = params?.responseCallback ?? this.#callback;
    const expected = this.#expected(res.status, cb);
    const tags = { name: url, method, status: String(res.status), expected_response: String(expected), ...(params?.tags ?? {}) };
    this.add('http_reqs', 1, tags);
    this.add('http_req_duration', res.latencyMs ?? 2, tags);
    this.add('http_req_failed', expected ? 0 : 1, tags);
    // k6 canonicalises header names the way Go does: X-Ratelimit-Limit.
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers ?? {})) {
      headers[k.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())] = v;
    }
    const text = res.body ?? '';
    return {
      timings: { duration: res.latencyMs ?? 2 },
      status: res.status,
      headers,
      body: text,
      error: res.status === 0 ? 'dial: connection refused' : '',
      json: () => JSON.parse(text) as unknown,
      request: req,
    };
  }

  batch(requests: Array<{ method: string; url: string; body?: unknown; params?: Parameters<K6Shim['request']>[3] }>) {
    // Concurrent requests finish in any order: answer them in reverse to make sure the script
    // does not rely on the order it sent them in.
    const order = requests.map((_r, i) => i).reverse();
    const out: Array<ReturnType<K6Shim['request']>> = [];
    const start = this.nowMs;
    let end = start;
    for (const i of order) {
      if (!this.#realNow) this.nowMs = start;
      const r = requests[i]!;
      out[i] = this.request(r.method, r.url, r.body ?? null, r.params);
      end = Math.max(end, this.nowMs);
    }
    this.nowMs = end;
    return out;
  }

  execScenario() {
    return { ...this.scenario };
  }

  execVu() {
    return { ...this.vu };
  }
}

export interface ScriptModule {
  options?: { scenarios?: Record<string, Record<string, unknown>>; thresholds?: Record<string, string[]> };
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
  let iterations = 0;
  let setupError: Error | null = null;
  try {
    const module = (await import(`${pathToFileURL(file).href}?run=${++runNumber}`)) as ScriptModule;
    let data: unknown;
    try {
      data = module.setup ? JSON.parse(JSON.stringify(module.setup() ?? null)) : undefined;
    } catch (e) {
      setupError = e as Error;
    }
    if (setupError === null) {
      scenarioLoop: {
        const scenarios = Object.entries(module.options?.scenarios ?? {}).sort(
          (a, b) => durationSeconds(a[1].startTime ?? 0) - durationSeconds(b[1].startTime ?? 0),
        );
        const max = opts.maxIterations ?? 20_000;
        for (const [name, scenario] of scenarios) {
          const start = testStart + durationSeconds(scenario.startTime ?? 0) * 1000;
          shim.nowMs = Math.max(shim.nowMs, start);
          const startTime = shim.nowMs;
          shim.scenario = { name, startTime, iterationInTest: 0 };
          shim.vu = { idInTest: 1, iterationInScenario: 0 };
          const fn = module[String(scenario.exec ?? 'default')];
          if (typeof fn !== 'function') throw new Error(`scenario ${name} runs ${String(scenario.exec)}, which the script does not export`);
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
            shim.add('iteration_duration', shim.nowMs - began, {});
            shim.vu.iterationInScenario += 1;
            shim.scenario.iterationInTest += 1;
          }
        }
      }
      shim.scenario = { name: '', startTime: 0, iterationInTest: 0 };
    }
    const durationS = (shim.nowMs - testStart) / 1000;
    const { results: thresholds, unsampled, metrics } = evaluateThresholds(module.options?.thresholds ?? {}, shim.samples, shim.types, durationS);
    const summaryData = {
      metrics,
      root_group: { name: '', path: '', checks: [...shim.checks].map(([name, c]) => ({ name, ...c })), groups: [] },
      state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: shim.nowMs - testStart },
      options: { summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'] },
      // k6 hands setup's data to handleSummary; undefined when setup threw.
      setup_data: setupError === null && module.setup ? data : undefined,
    };
    const summary = module.handleSummary ? module.handleSummary(summaryData) : {};
    return { module, thresholds, failed: thresholds.filter((t) => !t.ok), summary, shim, iterations, setupError, unsampled, aborted: shim.aborted };
  } finally {
    Date.now = realNow;
  }
}

const captured: string[] = [];
/** The scripts log with console; the tests keep that quiet and readable. */
export function captureConsole(): { lines: string[]; restore: () => void } {
  const saved = { log: console.log, warn: console.warn, info: console.info, error: console.error };
  captured.length = 0;
  const keep = (...a: unknown[]) => void captured.push(a.map(String).join(' '));
  console.log = keep;
  console.warn = keep;
  console.info = keep;
  return {
    lines: captured,
    restore: () => Object.assign(console, saved),
  };
}
