// A Node stand-in for the k6 modules the scripts use, so that tests run every script against a fake
// target on a fake clock and evaluate its thresholds as k6 does. It is not k6: V8, not goja (syntax
// is checked separately), one VU at a time; the runs with a real k6 are in k6.test.ts.
import type { MetricInfo, MetricType, Sample, Tags } from './k6-thresholds.ts';

export { registerK6Shim } from './k6-modules.ts';
export {
  evaluateThresholds,
  parseMetricKey,
  summaryMetric,
  type MetricInfo,
  type MetricType,
  type Sample,
  type Tags,
  type ThresholdResult,
} from './k6-thresholds.ts';

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
/**
 * Answers one request at the fake (or real) time. With `batch`, http.batch hands it every request
 * of the batch at once, so a real server decides them concurrently, as it would k6's.
 */
export type Handler = ((req: FakeRequest, nowMs: number) => FakeResponse) & {
  batch?: (requests: FakeRequest[], nowMs: number) => FakeResponse[];
};

interface ExpectedCallback {
  readonly __expected: Array<number | { min: number; max: number }>;
}

type ResponseType = 'text' | 'binary' | 'none';
type RequestParams = { headers?: Record<string, string>; tags?: Tags; responseCallback?: ExpectedCallback; redirects?: number; responseType?: ResponseType };

/** The options of a script that change how k6 sends its requests and keeps their answers. */
export interface HttpOptions {
  maxRedirects?: number;
  discardResponseBodies?: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** What Go's client (k6's) drops on a redirect to another host, unless it is a subdomain of the one before. */
const SENSITIVE = new Set(['authorization', 'www-authenticate', 'cookie', 'cookie2']);
const K6_DEFAULT_MAX_REDIRECTS = 10;
/** The phases of a request k6 times; under the shim a request's whole latency is spent waiting. */
const TIMINGS = ['http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending', 'http_req_waiting', 'http_req_receiving'] as const;

/** host:port as Go's canonicalAddr writes it: the scheme's port when none is given. */
function canonicalAddr(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

/** What fail() throws: k6 ends the iteration, not the run. */
export class ScriptFailure extends Error {}
/** What exec.test.abort throws: k6 interrupts the VU and ends the run with exit code 108. */
export class TestAborted extends Error {}

/** The state one script run shares with the stand-in modules. */
export class K6Shim {
  readonly samples: Sample[] = [];
  readonly types = new Map<string, MetricInfo>();
  readonly checks = new Map<string, { passes: number; fails: number }>();
  readonly logs: string[] = [];
  readonly requests: FakeRequest[] = [];
  /** Every redirect k6 would have followed, in order. */
  readonly redirects: Array<{ status: number; from: string; to: string }> = [];
  /** How many answers kept their body (not discarded by discardResponseBodies or responseType 'none'). */
  bodiesKept = 0;
  /** The script's `options` that shape requests (runScript sets them once the script is loaded). */
  httpOptions: HttpOptions = {};
  #fakeNowMs: number;
  readonly #realNow: (() => number) | null;
  scenario = { name: '', startTime: 0, iterationInTest: 0 };
  /** `tags`: exec.vu.tags, which a script may set; they tag every sample the VU makes after, `scenario` included, as in k6. */
  vu: { idInTest: number; iterationInScenario: number; tags: Tags } = { idInTest: 1, iterationInScenario: 0, tags: {} };
  #callback: ExpectedCallback | null = null;

  /** With `realNow`, time is real: moving the clock forward sleeps, as k6 would wait. */
  constructor(
    readonly handler: Handler,
    startMs: number,
    realNow: (() => number) | null = null,
  ) {
    this.#fakeNowMs = startMs;
    this.#realNow = realNow;
    // k6's built-in metrics, as its summary reports them: the shim's time is all in waiting, and
    // its bytes are the request and answer as the handler sees them (line, headers, body), not the wire.
    for (const [name, type, time] of [
      ['http_reqs', 'counter', false],
      ['http_req_duration', 'trend', true],
      ['http_req_failed', 'rate', false],
      ['checks', 'rate', false],
      ['iterations', 'counter', false],
      ['dropped_iterations', 'counter', false],
      ['iteration_duration', 'trend', true],
      ['vus', 'gauge', false],
      ['vus_max', 'gauge', false],
      ...TIMINGS.map((t) => [t, 'trend', true] as const),
    ] as const) {
      this.declare(name, type, time);
    }
    this.declare('data_sent', 'counter', false, true);
    this.declare('data_received', 'counter', false, true);
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

  declare(name: string, type: MetricType, time: boolean, data = false): void {
    if (!/^[a-zA-Z_][a-zA-Z0-9_]{0,127}$/.test(name)) throw new Error(`k6 would refuse the metric name ${name}`);
    const known = this.types.get(name);
    if (known && known.type !== type) throw new Error(`metric ${name} declared as ${known.type} and ${type}`);
    this.types.set(name, data ? { type, time, data } : { type, time });
  }

  #tags(extra: Tags | undefined): Tags {
    return { ...(this.scenario.name ? { scenario: this.scenario.name } : {}), ...this.vu.tags, ...(extra ?? {}) };
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

  /** The scenarios running (the script's, or the one k6 derives from --vus, --duration, --iterations). */
  scenarios: Record<string, Record<string, unknown>> = {};

  execOptions() {
    return { executionSegment: this.executionSegment, executionSegmentSequence: this.executionSegmentSequence, scenarios: this.scenarios };
  }

  /** Iterations run so far, and when the test began: exec.instance's counters (runScript keeps them). */
  iterationsCompleted = 0;
  testStartMs = 0;

  execInstance() {
    // The shim runs one VU at a time.
    return {
      vusActive: 1,
      vusInitialized: 1,
      iterationsCompleted: this.iterationsCompleted,
      iterationsInterrupted: 0,
      currentTestRunDuration: this.nowMs - this.testStartMs,
    };
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

  #prepare(method: string, url: string, body: unknown, params?: RequestParams): FakeRequest {
    const req: FakeRequest = { method, url, headers: { ...(params?.headers ?? {}) }, body: body === null || body === undefined ? null : String(body) };
    this.requests.push(req);
    return req;
  }

  /** One request on the wire, measured as k6 measures each (a followed redirect is a request too). */
  #measure(req: FakeRequest, res: FakeResponse, params?: RequestParams): void {
    const cb = params?.responseCallback ?? this.#callback;
    const expected = this.#expected(res.status, cb);
    const tags = { name: req.url, method: req.method, status: String(res.status), expected_response: String(expected), ...(params?.tags ?? {}) };
    const latency = res.latencyMs ?? 2;
    this.add('http_reqs', 1, tags);
    this.add('http_req_duration', latency, tags);
    this.add('http_req_failed', expected ? 0 : 1, tags);
    for (const timing of TIMINGS) this.add(timing, timing === 'http_req_waiting' ? latency : 0, tags);
    const headerBytes = (headers: Record<string, string>) => Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    this.add('data_sent', `${req.method} ${req.url} HTTP/1.1\r\n`.length + headerBytes(req.headers) + 2 + (req.body?.length ?? 0), {});
    if (res.status !== 0) this.add('data_received', `HTTP/1.1 ${res.status}\r\n`.length + headerBytes(res.headers ?? {}) + 2 + (res.body?.length ?? 0), {});
  }

  #answer(req: FakeRequest, res: FakeResponse, params?: RequestParams) {
    this.#measure(req, res, params);
    // k6 canonicalises header names the way Go does: X-Ratelimit-Limit.
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers ?? {})) {
      headers[k.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())] = v;
    }
    // As k6: with discardResponseBodies (or responseType 'none') the body is read off the wire and
    // dropped, and `body` is null; so is a failed request's.
    const type: ResponseType = params?.responseType ?? (this.httpOptions.discardResponseBodies ? 'none' : 'text');
    const text = res.body ?? '';
    const body = res.status === 0 || type === 'none' ? null : type === 'binary' ? new TextEncoder().encode(text).buffer : text;
    if (body !== null) this.bodiesKept++;
    return {
      timings: { duration: res.latencyMs ?? 2 },
      status: res.status,
      url: req.url,
      headers,
      body,
      error: res.status === 0 ? 'dial: connection refused' : '',
      json: () => {
        if (typeof body !== 'string')
          throw new Error("the body is null so we can't transform it to JSON - this likely was because of a request error getting the response");
        return JSON.parse(body) as unknown;
      },
      request: req,
    };
  }

  #call(req: FakeRequest): FakeResponse {
    const res = this.handler(req, this.nowMs);
    if (!this.#realNow) this.nowMs += res.latencyMs ?? 2;
    return res;
  }

  /**
   * Follows redirects as k6 v0.47 does with Go 1.19's client: credentials go only to the previous
   * hop's host or a subdomain of it, so a second hop on another origin sends the key again (Go's
   * CVE-2024-45336).
   */
  #follow(first: FakeRequest, answer: FakeResponse, params?: RequestParams): [FakeRequest, FakeResponse] {
    const max = params?.redirects ?? this.httpOptions.maxRedirects ?? K6_DEFAULT_MAX_REDIRECTS;
    let req = first;
    let res = answer;
    for (let hops = 0; hops < max && REDIRECTS.has(res.status); hops++) {
      const location = Object.entries(res.headers ?? {}).find(([k]) => k.toLowerCase() === 'location')?.[1];
      // Go answers a 3xx without a Location, or with an empty one, as it is.
      if (!location) break;
      this.#measure(req, res, params);
      const from = new URL(req.url);
      const to = new URL(location, from);
      const keepsBody = res.status === 307 || res.status === 308;
      const method = keepsBody || req.method === 'GET' || req.method === 'HEAD' ? req.method : 'GET';
      const before = canonicalAddr(from);
      const after = canonicalAddr(to);
      const related = after === before || after.endsWith(`.${before}`);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(first.headers)) if (related || !SENSITIVE.has(name.toLowerCase())) headers[name] = value;
      if (!(from.protocol === 'https:' && to.protocol === 'http:')) {
        const referer = new URL(from);
        referer.username = referer.password = '';
        headers.Referer = referer.href;
      }
      this.redirects.push({ status: res.status, from: req.url, to: to.href });
      req = { method, url: to.href, headers, body: keepsBody ? first.body : null };
      this.requests.push(req);
      res = this.#call(req);
    }
    return [req, res];
  }

  request(method: string, url: string, body: unknown, params?: RequestParams) {
    const [req, res] = this.#follow(...this.#send(method, url, body, params), params);
    return this.#answer(req, res, params);
  }

  #send(method: string, url: string, body: unknown, params?: RequestParams): [FakeRequest, FakeResponse] {
    const req = this.#prepare(method, url, body, params);
    return [req, this.#call(req)];
  }

  batch(requests: Array<{ method: string; url: string; body?: unknown; params?: RequestParams }>) {
    const start = this.nowMs;
    if (this.handler.batch) {
      const sent = requests.map((r) => this.#prepare(r.method, r.url, r.body ?? null, r.params));
      const answers = this.handler.batch(sent, start);
      if (answers.length !== sent.length) throw new Error(`the handler answered ${answers.length} of ${sent.length} requests`);
      if (!this.#realNow) this.nowMs = start + Math.max(...answers.map((a) => a.latencyMs ?? 2));
      return answers.map((res, i) => this.#answer(...this.#follow(sent[i]!, res, requests[i]!.params), requests[i]!.params));
    }
    // Concurrent requests finish in any order: answer them in reverse to make sure the script
    // does not rely on the order it sent them in.
    const order = requests.map((_r, i) => i).reverse();
    const out: Array<ReturnType<K6Shim['request']>> = [];
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
