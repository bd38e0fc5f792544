// Judges live traffic, one exchange at a time, with the judges the rest of the kit already has: the
// server side with the conformance kit's per-exchange checks (LIVE_AREAS: documented status, headers
// and body schemas at must and should level) and the window rules of spec/rules through the kit's
// rateLimitVerdict, per key; the client side with the client report's ClientRecorder. Nothing here
// decides what is right: it only routes each exchange to those judges and tells of each new finding.
import { CATALOGUE } from '../conformance/catalogue.ts';
import { LIVE_AREAS } from '../conformance/checks/index.ts';
import { rateLimitArea } from '../conformance/checks/rate-limit.ts';
import { rateLimitVerdict, type RateLimitVerdict } from '../conformance/checks/rate-limit-verdict.ts';
import { keyLabel, type Exchange } from '../conformance/http.ts';
import { Ledger, type CheckLedger, type CheckResult } from '../conformance/ledger.ts';
import type { Contract, OperationId } from '../conformance/openapi.ts';
import { ClientRecorder, OBLIGATIONS, type ClientReport } from '../server/client-report/recorder.ts';
import type { Tolerances } from '../spec/rules/snapshot.js';
import type { Timeline, TimelinePoint } from '../spec/rules/timeline-svg.js';

export type Level = 'must' | 'should';

/** Something wrong, seen as it passed: a check the server failed, or an obligation the client broke. */
export interface Finding {
  /** The judge's clock (epoch ms). */
  atMs: number;
  /** The key as shown: its first characters. */
  key: string;
  side: 'server' | 'client';
  /** A check id of the conformance kit, or client.* for the client's obligations. */
  id: string;
  level: Level;
  message: string;
  /** The exchange that showed it. */
  seq: number;
  /** The rule of spec/rules/window-rules.js it breaks, when one does. */
  rule?: string;
}

export interface KeyReport {
  key: string;
  requests: number;
  refused: number;
  /** The checks that judged this key's traffic (passed, failed or warned). */
  server: CheckResult[];
  client?: ClientReport;
  timeline: Timeline;
}

export interface JudgeOptions {
  contract: Contract;
  /** Whether a response's Date header is the server's clock (not for a test server on a manual clock). */
  dateHeader: boolean;
  tolerances?: Partial<Tolerances>;
  onFinding?: (finding: Finding) => void;
}

/** The part of an exchange the judge needs to know besides the exchange: whose it is and how it is named. */
export interface Observed {
  exchange: Exchange;
  /** The key it carried (never shown), or undefined without one. */
  key: string | undefined;
  /** A fault the proxy injected in the server's place: judged on the client side only. */
  injected?: boolean;
}

const LEVEL_OF = new Map(CATALOGUE.map((c) => [c.id, c.level]));
const NO_KEY = '(no key)';

/** How a key is shown in every report: its first six characters, as the conformance kit shows it. */
function labelOf(key: string | undefined): string {
  return key === undefined ? NO_KEY : keyLabel(key);
}

/** What a failure says is wrong, without the request it names (the ledger's notion of one cause). */
function causeOf(message: string): string {
  const at = message.indexOf(': ');
  return at < 0 ? message : message.slice(at + 2);
}

interface KeyState {
  label: string;
  keyId: string;
  ledger: Ledger;
  views: CheckLedger[];
  windows: RateLimitVerdict;
  requests: number;
  refused: number;
  /** How many of its exchanges the window rules judged: the index of the next timeline point. */
  judged: number;
  /** Client findings by timeline point, drawn with the server's broken rules. */
  clientMarks: Map<number, Array<{ kind: string; level: Level; detail: string }>>;
}

export class TrafficJudge {
  readonly #options: JudgeOptions;
  readonly #keys = new Map<string, KeyState>();
  readonly #client: ClientRecorder;
  readonly #deprecated: Set<string>;
  /** Causes already told, per key and check: one line per finding, not per repetition. */
  readonly #told = new Set<string>();
  readonly #verdicts = new Map<string, string>();
  /** Per key, the requests that arrived and are not judged yet, by seq: their send times. */
  readonly #inFlight = new Map<string, Map<number, number>>();
  #current: { seq: number; atMs: number } = { seq: 0, atMs: 0 };
  readonly findings: Finding[] = [];

  constructor(options: JudgeOptions) {
    this.#options = options;
    this.#deprecated = new Set([...options.contract.operations.values()].filter((op) => op.deprecated).map((op) => op.operationId));
    this.#client = new ClientRecorder(this.#deprecated);
  }

  #tell(finding: Finding): void {
    const key = `${finding.key}\u0000${finding.id}\u0000${causeOf(finding.message)}`;
    if (this.#told.has(key)) return;
    this.#told.add(key);
    this.findings.push(finding);
    this.#options.onFinding?.(finding);
  }

  /** A ledger view that tells of each failure as it is recorded. */
  #tapped(view: CheckLedger, label: string): CheckLedger {
    const fail: CheckLedger['fail'] = (id, message, evidence = [], rule) => {
      view.fail(id, message, evidence, rule);
      this.#tell({
        atMs: this.#current.atMs,
        key: label,
        side: 'server',
        id,
        level: LEVEL_OF.get(id) ?? 'must',
        message,
        seq: this.#current.seq,
        ...(rule ? { rule } : {}),
      });
    };
    return {
      ...view,
      fail,
      assert: (id, condition, message, evidence = []) => {
        if (condition) view.pass(id);
        else fail(id, message, evidence);
        return condition;
      },
    };
  }

  #state(key: string | undefined): KeyState {
    const id = key ?? NO_KEY;
    const known = this.#keys.get(id);
    if (known) return known;
    const ledger = new Ledger(CATALOGUE);
    const label = labelOf(key);
    const scoped = (area: { name: string; checks: readonly { id: string }[] }) =>
      this.#tapped(
        ledger.scope(
          area.name,
          area.checks.map((c) => c.id),
        ),
        label,
      );
    const state: KeyState = {
      label,
      keyId: `key-${this.#keys.size + 1}`,
      ledger,
      views: LIVE_AREAS.map(scoped),
      windows: rateLimitVerdict(scoped(rateLimitArea), {
        dateHeader: this.#options.dateHeader,
        ...(this.#options.tolerances ? { tolerances: this.#options.tolerances } : {}),
      }),
      requests: 0,
      refused: 0,
      judged: 0,
      clientMarks: new Map(),
    };
    this.#keys.set(id, state);
    return state;
  }

  /**
   * A request arrived: until it is judged, no answer of its key that arrived after it left can be
   * put in its place among the key's decisions (the window rules wait for it).
   */
  arrived({ exchange, key }: Pick<Observed, 'exchange' | 'key'>): void {
    const id = key ?? NO_KEY;
    let waiting = this.#inFlight.get(id);
    if (!waiting) this.#inFlight.set(id, (waiting = new Map()));
    waiting.set(exchange.seq, exchange.sentAt);
  }

  /** A request that will never be judged (it failed on the way): nothing waits for it any longer. */
  abandoned({ exchange, key }: Pick<Observed, 'exchange' | 'key'>): void {
    const oldestInFlight = this.#oldestInFlight(key, exchange);
    this.#keys.get(key ?? NO_KEY)?.windows.settle(oldestInFlight);
  }

  /** When the earliest request of the key still waiting to be judged was sent; null when none is. */
  #oldestInFlight(key: string | undefined, judged: Exchange): number | null {
    const id = key ?? NO_KEY;
    const waiting = this.#inFlight.get(id);
    if (!waiting) return null;
    waiting.delete(judged.seq);
    if (waiting.size === 0) {
      this.#inFlight.delete(id);
      return null;
    }
    let oldest = Infinity;
    for (const sentAt of waiting.values()) if (sentAt < oldest) oldest = sentAt;
    return oldest;
  }

  /** Judges one exchange, in the order the requests were made; findings are told as they appear. */
  observe({ exchange, key, injected }: Observed): void {
    const oldestInFlight = this.#oldestInFlight(key, exchange);
    const state = this.#state(key);
    this.#current = { seq: exchange.seq, atMs: exchange.receivedAt };
    state.requests++;
    const status = exchange.response?.status ?? 0;
    if (status === 429 || status === 403) state.refused++;
    if (!injected) {
      LIVE_AREAS.forEach((area, i) => {
        if (exchange.outside && area.name !== 'responses') return;
        area.inspect(exchange, { ledger: state.views[i]!, contract: this.#options.contract, options: { profile: 'full' } });
      });
    }
    // Answers of concurrent requests come back in any order: the window rules hear them once their
    // place is certain. One they do not judge (injected, outside the description) still frees the others.
    if (exchange.outside) {
      state.windows.settle(oldestInFlight);
      return;
    }
    const windows = injected ? state.windows.settle(oldestInFlight) : state.windows.observeArrival(exchange, oldestInFlight);
    const ban = !injected && windows.events.includes('ban_detected');
    const point = injected ? undefined : state.judged++;
    if (key === undefined) return;
    const body = exchange.response ? safeJson(exchange.response.body) : undefined;
    const code = body && typeof body === 'object' && typeof (body as { code?: unknown }).code === 'string' ? (body as { code: string }).code : undefined;
    const retryAfter = exchange.response?.headers['retry-after'];
    this.#client.observe({
      atMs: exchange.receivedAt,
      sentAtMs: exchange.sentAt,
      keyId: state.keyId,
      plan: 'unknown',
      label: state.label,
      status,
      operationId: exchange.operationId,
      ...(code ? { code } : {}),
      ...(retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) ? { retryAfterSeconds: Number(retryAfter) } : {}),
      ...(ban ? { ban } : {}),
    });
    this.#clientFindings(state, point);
  }

  /** An obligation the client has now broken, told once when its verdict turns to no. */
  #clientFindings(state: KeyState, point: number | undefined): void {
    const report = this.#client.report().find((r) => r.keyId === state.keyId);
    if (!report) return;
    for (const [name, o] of Object.entries(report.obligations) as Array<
      [keyof ClientReport['obligations'], ClientReport['obligations'][keyof ClientReport['obligations']]]
    >) {
      const at = `${state.keyId}:${name}`;
      const before = this.#verdicts.get(at);
      this.#verdicts.set(at, o.verdict);
      if (o.verdict !== 'no' || before === 'no') continue;
      const def = OBLIGATIONS[name];
      this.#tell({
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

  /** Every key seen so far, each with its server checks, its client's obligations and its timeline. */
  report(): KeyReport[] {
    const clients = new Map(this.#client.report().map((c) => [c.keyId, c]));
    return [...this.#keys.values()].map((s) => {
      const server = s.ledger.results({ strict: false, selected: () => undefined }).filter((r) => r.outcome !== 'not-run');
      const client = clients.get(s.keyId);
      return {
        key: s.label,
        requests: s.requests,
        refused: s.refused,
        server,
        ...(client ? { client } : {}),
        timeline: { key: s.label, points: this.#points(s) },
      };
    });
  }

  /** The key's timeline: what the window rules saw, and where the client first broke each obligation. */
  #points(s: KeyState): TimelinePoint[] {
    return s.windows.timeline().map((p, i) => {
      const marks = s.clientMarks.get(i);
      return marks ? { ...p, violations: [...(p.violations ?? []), ...marks] } : p;
    });
  }

  /** The operations the contract marks deprecated (for reports). */
  get deprecated(): readonly string[] {
    return [...this.#deprecated];
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The operation a request names: its method and a path that ends in one of the description's paths (any prefix, such as /v1). */
export function operationOf(contract: Contract, method: string, path: string): OperationId | undefined {
  for (const op of contract.operations.values()) {
    if (op.method !== method.toUpperCase()) continue;
    const pattern = op.path
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\\?\{[^}]+\\?\}/g, '[^/]+')
      .replace(/[{}]/g, '');
    if (new RegExp(`^(?:/[^?]*)?${pattern}/?$`).test(path)) return op.operationId;
  }
  return undefined;
}
