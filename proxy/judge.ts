// Routes each live exchange to the judges the kit already has (the judge's LIVE_CHECKS, and
// rateLimitVerdict per key, for the server; the client report's ClientRecorder for the client) and tells
// of each new finding; nothing here decides what is right. What it keeps is bounded by JudgeLimits
// whatever the traffic (proxy/README.md, Hours of traffic).
import {
  createStoreHistory,
  HISTORY_CHECK_ID,
  JUDGE_CHECKS,
  jsonBody,
  LIVE_CHECKS,
  redactResults,
  type Contract,
  type Exchange,
  type StoreHistory,
} from '../judge/index.ts';
import type { Finding, KeyReport, SummarisedKeys } from './findings.ts';
import { DEFAULT_LIMITS, type JudgeLimits } from './judge-limits.ts';
import { OBLIGATIONS, type ClientReport } from '../judge/client-obligations.ts';
import { Listeners } from '../lib/live/source.ts';
import { distinctKeyLabel, KnownKeys, redactExchange, redactText } from '../spec/rules/redact.js';
import { readSnapshot, type Snapshot, type Tolerances } from '../spec/rules/snapshot.js';
import type { TimelinePoint } from '../spec/rules/timeline-svg.js';
import type { LastWindow } from './faults.ts';
import { InFlight } from './in-flight.ts';
import { OPERATIONS } from '../spec/rules/contract.js';
import { createKeyState, type KeyState } from './key-state.ts';
import { slim, type SampleReport } from './sample.ts';

export type { Level } from '../judge/index.ts';

/** What an answer says of the key's window and of the wait it asks for, read as the rest of the kit reads it. */
const snapshotOf = (exchange: Exchange): Snapshot =>
  readSnapshot({ status: exchange.response?.status ?? 0, headers: exchange.response?.headers ?? null, receivedAtMs: exchange.receivedAt });

/** Retry-After in seconds when it is delay-seconds; null when it names no wait or an HTTP-date. */
const delaySeconds = (s: Snapshot): number | null => (s.retryAfter.form === 'delay-seconds' ? s.retryAfter.seconds : null);

export { DEFAULT_LIMITS, type JudgeLimits } from './judge-limits.ts';

export interface JudgeOptions {
  contract: Contract;
  /** Whether a response's Date header is the server's clock (not for a test server on a manual clock). */
  dateHeader: boolean;
  tolerances?: Partial<Tolerances>;
  limits?: Partial<JudgeLimits>;
  onFinding?: (finding: Finding) => void;
  /** Keys replaced by their labels in every finding and report (the proxy's ring, which learns them as they pass). */
  keys?: KnownKeys;
}

/** The part of an exchange the judge needs to know besides the exchange: whose it is and how it is named. */
export interface Observed {
  exchange: Exchange;
  /** The key it carried (never shown), or undefined without one. */
  key: string | undefined;
  /** A fault the proxy injected in the server's place: judged on the client side only. */
  injected?: boolean;
}

const LEVEL_OF = new Map(JUDGE_CHECKS.map((c) => [c.id, c.level]));

const NO_KEY = '(no key)';
/** The operations the store's history reads. */
const STORE_OPERATIONS = new Set<string>(Object.keys(OPERATIONS));

/** What a failure says is wrong, without the request it names (the ledger's notion of one cause). */
function causeOf(message: string): string {
  const at = message.indexOf(': ');
  return at < 0 ? message : message.slice(at + 2);
}

export class TrafficJudge {
  readonly #options: JudgeOptions;
  readonly #limits: JudgeLimits;
  /** Keys with their full state, least recently active first. */
  readonly #keys = new Map<string, KeyState>();
  /** The labels of the keys in #keys. */
  readonly #labels = new Set<string>();
  readonly #known: KnownKeys;
  readonly #deprecated: Set<string>;
  readonly #inFlight = new InFlight();
  /** The store's history, one for every key: whoever created a pet, anyone may read it. */
  readonly #history: Required<StoreHistory>;
  readonly #listeners = new Listeners();
  #summarised: SummarisedKeys | undefined;
  #keyCount = 0;
  #current: { seq: number; atMs: number } = { seq: 0, atMs: 0 };
  /** The first findings (at most limits.findings), in the order they appeared, as they were told. */
  readonly #findings: Finding[] = [];
  /** Every finding told, by level (findings past the kept ones included). */
  readonly told = { must: 0, should: 0 };

  constructor(options: JudgeOptions) {
    this.#options = options;
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#known = options.keys ?? new KnownKeys();
    this.#history = createStoreHistory({ maxOpsPerResource: this.#limits.historyOpsPerResource, maxResources: this.#limits.historyResources });
    this.#deprecated = new Set([...options.contract.operations.values()].filter((op) => op.deprecated).map((op) => op.operationId));
  }

  #tell(state: KeyState, finding: Finding): void {
    const cause = `${finding.id}\u0000${causeOf(finding.message)}`;
    if (state.causes.has(cause)) return;
    const ofCheck = `${finding.id}\u0000`;
    const told = state.causes.get(ofCheck) ?? 0;
    // Past a few causes of one check on one key, the rest are counted in the report per key.
    if (told >= this.#limits.causesPerCheck) return;
    state.causes.set(ofCheck, told + 1);
    state.causes.set(cause, 1);
    this.told[finding.level]++;
    const shown = { ...finding, message: redactText(finding.message, this.#known) };
    if (this.#findings.length < this.#limits.findings) this.#findings.push(shown);
    this.#options.onFinding?.(shown);
  }

  /** Tells of a server check's failure on the key as it is recorded. */
  #serverFailure(state: KeyState, id: string, message: string, rule: string | undefined): void {
    this.#tell(state, {
      atMs: this.#current.atMs,
      key: state.label,
      side: 'server',
      id,
      level: LEVEL_OF.get(id) ?? 'must',
      message,
      seq: this.#current.seq,
      ...(rule ? { rule } : {}),
    });
  }

  #state(key: string | undefined): KeyState {
    const id = key ?? NO_KEY;
    const known = this.#keys.get(id);
    if (known) {
      // Most recently active last: the first ones are the idlest.
      this.#keys.delete(id);
      this.#keys.set(id, known);
      return known;
    }
    if (this.#keys.size >= this.#limits.maxKeys) this.#summariseIdlest();
    // Labels are the keys' names in every report and in the live view: two keys never share one.
    const label = key === undefined ? NO_KEY : distinctKeyLabel(key, (l) => this.#labels.has(l));
    this.#labels.add(label);
    const state: KeyState = createKeyState({
      id,
      label,
      keyId: `key-${++this.#keyCount}`,
      dateHeader: this.#options.dateHeader,
      ...(this.#options.tolerances ? { tolerances: this.#options.tolerances } : {}),
      limits: this.#limits,
      deprecated: this.#deprecated,
      told: (checkId, message, rule) => this.#serverFailure(state, checkId, message, rule),
    });
    this.#keys.set(id, state);
    return state;
  }

  /** The least recently active key with nothing in flight leaves its full state for a line in the summary. */
  #summariseIdlest(): void {
    let scanned = 0;
    for (const [id, state] of this.#keys) {
      if (++scanned > 256) return;
      if (this.#inFlight.has(id)) continue;
      const summary = (this.#summarised ??= { keys: 0, requests: 0, refused: 0, failed: {} });
      summary.keys++;
      summary.requests += state.requests;
      summary.refused += state.refused;
      // What it broke (server checks and client obligations), from what was told of it: no report is built for a key on its way out.
      const failedIds = [...state.causes.keys()].filter((c) => c.endsWith('\u0000')).map((c) => c.slice(0, -1));
      for (const failed of failedIds) summary.failed[failed] = (summary.failed[failed] ?? 0) + 1;
      this.#keys.delete(id);
      this.#labels.delete(state.label);
      return;
    }
  }

  /**
   * A request arrived: until it is judged, no answer of its key that arrived after it left can be
   * put in its place among the key's decisions (the window rules wait for it).
   */
  arrived({ exchange, key }: Pick<Observed, 'exchange' | 'key'>): void {
    this.#inFlight.arrived(key ?? NO_KEY, exchange);
    this.#history.sent(exchange);
  }

  /**
   * A request that will never be judged (its client went away, the stop cut it): nothing waits for it
   * any longer. One that reached the target may have been counted by its limiter, so the window rules
   * hear it (its answer as far as it came, or none): a correct server's Remaining falls for it too, and
   * an exchange left out made the next answer of its key read as Remaining skipping values (issue 42).
   */
  abandoned({ exchange, key, reachedTarget }: Pick<Observed, 'exchange' | 'key'> & { reachedTarget?: boolean }): void {
    const oldestInFlight = this.#oldestInFlight(key, exchange);
    // One that reached the target may have created a pet: the store's history holds it as a create of unknown outcome.
    if (reachedTarget) this.#history.add({ ...exchange, response: undefined, error: exchange.error ?? 'abandoned' });
    else this.#history.unsent(exchange);
    const state = this.#keys.get(key ?? NO_KEY);
    // A key with no answer judged yet has no Remaining to skip from, and gets no state (nor a line in
    // the reports) for a request nobody saw answered.
    if (!state || !reachedTarget || exchange.outside) {
      state?.windows.settle(oldestInFlight);
      return;
    }
    state.judged++;
    state.windows.observeArrival(slim(exchange), oldestInFlight);
  }

  /** When the earliest request of the key still waiting to be judged was sent, once `judged` is not; null when none is. */
  #oldestInFlight(key: string | undefined, judged: Exchange): number | null {
    return this.#inFlight.judged(key ?? NO_KEY, judged);
  }

  /** The window the key's last answer from the server named (for an injected 429). */
  lastWindow(key: string | undefined): LastWindow {
    return this.#keys.get(key ?? NO_KEY)?.lastWindow ?? {};
  }

  /** Judges one exchange, in the order the requests were made; findings are told as they appear. */
  observe({ exchange, key, injected }: Observed): void {
    const oldestInFlight = this.#oldestInFlight(key, exchange);
    const state = this.#state(key);
    this.#current = { seq: exchange.seq, atMs: exchange.receivedAt };
    state.requests++;
    const status = exchange.response?.status ?? 0;
    const refused = status === 429 || status === 403;
    if (refused) state.refused++;
    // Judged whole by the checks below; kept (in the sample, and held by the window rules) slimmed, once.
    const kept = slim(exchange);
    state.sample.add(kept, refused);
    if (!injected) {
      const res = exchange.response;
      if (res) {
        const { reset, limit } = snapshotOf(exchange);
        if (reset !== null || limit !== null) state.lastWindow = { ...(reset !== null ? { reset } : {}), ...(limit !== null ? { limit } : {}) };
      }
      LIVE_CHECKS.forEach((area, i) => {
        if (exchange.outside && area.name !== 'responses') return;
        area.inspect(exchange, { ledger: state.views[i]!, contract: this.#options.contract, options: { profile: 'full' } });
      });
      this.#storeHistory(state, exchange);
    } else this.#history.unsent(exchange);
    this.#windows(state, kept, injected === true, oldestInFlight);
    this.#listeners.tell(state.label);
  }

  /** The store's history, judged with what the exchange adds to it; its findings told under the key whose exchange showed them. */
  #storeHistory(state: KeyState, exchange: Exchange): void {
    const findings = this.#history.add(exchange);
    for (const finding of findings) state.history.fail(HISTORY_CHECK_ID, finding.message, finding.exchanges, finding.rule);
    if (findings.length === 0 && exchange.response && STORE_OPERATIONS.has(exchange.operationId) && !exchange.outside) state.history.pass(HISTORY_CHECK_ID);
  }

  /** The window rules and the client's obligations: what depends on the key's order of answers. */
  #windows(state: KeyState, exchange: Exchange, injected: boolean, oldestInFlight: number | null): void {
    // Answers of concurrent requests come back in any order: the window rules hear them once their
    // place is certain. One they do not judge (injected, outside the description) still frees the others.
    if (exchange.outside) {
      state.windows.settle(oldestInFlight);
      return;
    }
    const status = exchange.response?.status ?? 0;
    // The window rules read status, headers and times; what they hold (up to 4,096 answers a key, the
    // evidence of what they find) is the slimmed exchange.
    const windows = injected ? state.windows.settle(oldestInFlight) : state.windows.observeArrival(exchange, oldestInFlight);
    const ban = !injected && windows.events.includes('ban_detected');
    let point: number | undefined;
    if (injected) {
      const retryAfter = delaySeconds(snapshotOf(exchange));
      state.injected.push({
        atMs: exchange.sentAt,
        status,
        injected: true,
        ...(status === 429 && retryAfter !== null ? { retryAfterMs: retryAfter * 1000 } : {}),
      });
      if (state.injected.length > this.#limits.timelinePoints) state.injected.shift();
    } else point = state.judged++;
    if (state.id === NO_KEY) return;
    const body = exchange.response?.truncatedFrom === undefined ? jsonBody(exchange) : undefined;
    const code = body && typeof body === 'object' && typeof (body as { code?: unknown }).code === 'string' ? (body as { code: string }).code : undefined;
    const retryAfter = delaySeconds(snapshotOf(exchange));
    state.client.observe({
      atMs: exchange.receivedAt,
      sentAtMs: exchange.sentAt,
      keyId: state.keyId,
      plan: 'unknown',
      label: state.label,
      status,
      operationId: exchange.operationId,
      ...(code ? { code } : {}),
      ...(retryAfter !== null ? { retryAfterSeconds: retryAfter } : {}),
      ...(ban ? { ban } : {}),
    });
    this.#clientFindings(state, point);
  }

  /** An obligation the client has now broken, told once when its verdict turns to no. */
  #clientFindings(state: KeyState, point: number | undefined): void {
    const report = state.client.verdictOf(state.keyId);
    if (!report) return;
    for (const [name, o] of Object.entries(report.obligations) as Array<
      [keyof ClientReport['obligations'], ClientReport['obligations'][keyof ClientReport['obligations']]]
    >) {
      const before = state.verdicts.get(name);
      state.verdicts.set(name, o.verdict);
      if (o.verdict !== 'no' || before === 'no') continue;
      const def = OBLIGATIONS[name];
      this.#tell(state, {
        atMs: this.#current.atMs,
        key: state.label,
        side: 'client',
        id: def.id,
        level: def.level,
        message: `${def.title}: ${o.detail}`,
        seq: this.#current.seq,
      });
      if (point !== undefined) state.clientMarks.set(point, [...(state.clientMarks.get(point) ?? []), { kind: def.id, level: def.level, detail: o.detail }]);
    }
  }

  /** Called with a key's label after each exchange of it is judged (the live view); returns the unsubscribe. */
  subscribe(listener: (label: string) => void): () => void {
    return this.#listeners.add(listener);
  }

  /**
   * The first findings, redacted again with every key known now: a key met after a finding named it (in a
   * path, then as a bearer key) is out of the reports written at exit too.
   */
  get findings(): Finding[] {
    return this.#findings.map((f) => {
      const message = redactText(f.message, this.#known);
      return message === f.message ? f : { ...f, message };
    });
  }

  /** Every key judged in full, each with its server checks, its client's obligations and its timeline. */
  report(): KeyReport[] {
    return [...this.#keys.values()].map((s) => this.#report(s));
  }

  /** One key's report, by its label; undefined when no such key is judged in full (any more). */
  keyReport(label: string): KeyReport | undefined {
    for (const s of this.#keys.values()) if (s.label === label) return this.#report(s);
    return undefined;
  }

  /** The keys summarised to stay within maxKeys; undefined when none was. */
  summarised(): SummarisedKeys | undefined {
    return this.#summarised && { ...this.#summarised, failed: { ...this.#summarised.failed } };
  }

  #report(s: KeyState): KeyReport {
    // A check no answer reached is left out; one that could not judge an answer (a body captured in part) stays, as SKIP.
    const server = s.ledger.results({ strict: false, selected: () => undefined }).filter((r) => r.outcome !== 'not-run' || r.unjudged !== undefined);
    const client = s.id === NO_KEY ? undefined : s.client.verdictOf(s.keyId);
    const points = this.#points(s);
    const sample = s.sample.report();
    const readings = s.windows.readings();
    const known = this.#known;
    let shown: SampleReport | undefined;
    return {
      key: s.label,
      requests: s.requests,
      refused: s.refused,
      server: redactResults(server, this.#known),
      ...(client ? { client } : {}),
      timeline: { key: s.label, points },
      timelineDropped: s.windows.judgedCount() - (points.length - s.injected.length),
      ...(readings !== undefined ? { readings } : {}),
      // Redacted when first read: the live view reads every key's report after each exchange and never
      // its sample, which would otherwise have both bodies of up to 2 × keep exchanges redacted each time.
      get sample() {
        return (shown ??= { ...sample, exchanges: sample.exchanges.map((ex) => redactExchange(ex, known)) });
      },
    };
  }

  /** The key's timeline: what the window rules saw, where the client first broke each obligation, and what the proxy injected. */
  #points(s: KeyState): TimelinePoint[] {
    const drawn = s.windows.timeline();
    const first = s.windows.judgedCount() - drawn.length;
    const points = drawn.map((p, i) => {
      const marks = s.clientMarks.get(first + i);
      return marks ? { ...p, violations: [...(p.violations ?? []), ...marks] } : p;
    });
    for (const at of s.clientMarks.keys()) if (at < first) s.clientMarks.delete(at);
    if (s.injected.length === 0) return points;
    return [...points, ...s.injected].sort((a, b) => a.atMs - b.atMs);
  }

  /** The operations the contract marks deprecated (for reports). */
  get deprecated(): readonly string[] {
    return [...this.#deprecated];
  }
}
