// The kit's verdict on the answers of one key: every answer goes through spec/rules' window rules
// (the one judge the k6 scripts and the judging proxy use too), each rule a check (CHECK_OF_RULE).
// Requests sent at once go in as one batch; a stream arriving in any order through the arrival buffer.
import { createArrivalBuffer } from './rules/arrival.js';
import { RULES } from './rules/rules.js';
import { DEFAULT_TOLERANCES, isAdmittedStatus, isRefusalStatus, readSnapshot, retryWaitMs, type Snapshot, type Tolerances } from '../spec/rules/snapshot.js';
import { timelinePoint, type TimelinePoint } from '../spec/rules/timeline-svg.js';
import { createWindowRules, describeReadings, type Kind, type Outcome } from './rules/window-rules.js';
import { HEADERS } from '../spec/rules/contract.js';
import { causeKey } from './causes.ts';
import type { Exchange } from './exchange.ts';
import type { CheckLedger } from './ledger.ts';
import { status } from './answers.ts';

/** The check that reports each rule of judge/rules/window-rules.js, as the rule names it (rules.js); a rule's level is its check's level. */
export const CHECK_OF_RULE = Object.fromEntries(Object.entries(RULES).map(([kind, rule]) => [kind, rule.check])) as Readonly<Record<Kind, string>>;

const MALFORMED: Kind = 'malformed_headers';
const RATE_LIMIT_HEADERS = [HEADERS.rateLimitLimit, HEADERS.rateLimitRemaining, HEADERS.rateLimitReset];

/**
 * The causes of a malformed_headers finding when every header it names is absent from the answer
 * (the schema's "is required but missing" too); none when one of them is there with a wrong value.
 */
function absentCauses(detail: string, ex: Exchange | undefined): string[] | undefined {
  const headers = ex?.response?.headers;
  if (!headers) return undefined;
  const named = RATE_LIMIT_HEADERS.filter((name) => detail.includes(name));
  if (named.length === 0 || named.some((name) => headers[name.toLowerCase()] !== undefined)) return undefined;
  return named.map((name) => causeKey.headerMissing(name));
}

export interface RateLimitVerdict {
  /** Judges one more response of the key, in the order the requests were made. */
  observe(exchange: Exchange): Outcome;
  /** Judges requests of the key sent at once (concurrently), after everything observed before; their answers may have arrived in any order. */
  observeBatch(exchanges: readonly Exchange[]): Outcome;
  /**
   * Judges a stream whose answers arrive in any order (the judging proxy): the exchange is held
   * until no request of the key still waiting for its answer (the earliest sent at
   * `oldestPendingSentMs`; null when none) can have been decided before it.
   */
  observeArrival(exchange: Exchange, oldestPendingSentMs: number | null): Outcome;
  /** Judges the held answers of the stream whose place is now certain (a request ended without an answer to judge). */
  settle(oldestPendingSentMs: number | null): Outcome;
  /** When every Retry-After of the current refusals has passed (the kit's clock); null when none is pending. */
  retryDueMs(): number | null;
  banned(): boolean;
  /** The last responses judged (at most `maxPoints`), as the timeline draws them (spec/rules/timeline-svg.js). */
  timeline(): TimelinePoint[];
  /** How many responses were judged in all: the earlier ones beyond `maxPoints` are no longer drawn. */
  judgedCount(): number;
  /**
   * The readings (judge/rules/readings.js) under which the rules explain what they judged, by point:
   * `window: sliding log; Reset: the next slot frees; Remaining: as of the answer`; undefined before any answer.
   */
  readings(): string | undefined;
}

/** What one exchange says about its key's rate limit, as the window rules read it; the exchange is the snapshot's ref. */
export function snapshotOf(ex: Exchange, dateHeader: boolean): Snapshot {
  return readSnapshot(
    { status: ex.response?.status ?? 0, headers: ex.response?.headers ?? null, receivedAtMs: ex.receivedAt, sentAtMs: ex.sentAt, ref: ex },
    { dateHeader },
  );
}

/** How long a refusal asks its key to wait (ms), null when its Retry-After is unusable: one reading for the preflight and the rate-limit phase. */
export function retryWaitOf(ex: Exchange, options: { dateHeader: boolean; clockToleranceSeconds: number }): number | null {
  return retryWaitMs(snapshotOf(ex, options.dateHeader), { ...DEFAULT_TOLERANCES, clockSkewSeconds: options.clockToleranceSeconds });
}

/** The kit's verdict on the exchanges of one key: each rule judged is a pass of its check, each rule broken a failure. */
export function rateLimitVerdict(
  ledger: CheckLedger,
  options: { tolerances?: Partial<Tolerances>; dateHeader: boolean; maxPoints?: number },
): RateLimitVerdict {
  const rules = createWindowRules(options.tolerances ? { tolerances: options.tolerances } : {});
  const maxPoints = options.maxPoints ?? Infinity;
  let points: TimelinePoint[] = [];
  let judgedCount = 0;
  const arrivals = createArrivalBuffer(options.tolerances);
  const read = (ex: Exchange): Snapshot => snapshotOf(ex, options.dateHeader);
  const observeBatch = (exchanges: readonly Exchange[]): Outcome => judge(exchanges.map(read));
  const judge = (snapshots: Snapshot[]): Outcome => {
    const out = rules.observe(snapshots);
    for (const s of snapshots) {
      // Each answer's point carries the rules its own answer broke; without any, the outcome as it is.
      const own = out.violations.length === 0 ? out : { ...out, violations: out.violations.filter((v) => v.refs[v.refs.length - 1] === s.ref) };
      points.push(timelinePoint(s, own));
      judgedCount++;
    }
    // Dropped in halves, so a long stream costs one copy per maxPoints answers, not one per answer.
    if (points.length >= 2 * maxPoints) points = points.slice(-maxPoints);
    const broken = new Set<string>();
    for (const v of out.violations) {
      broken.add(v.kind);
      const evidence = v.refs.filter((r): r is Exchange => typeof r === 'object' && r !== null);
      ledger.fail(
        CHECK_OF_RULE[v.kind],
        `${v.detail} (rule: ${v.rule})`,
        evidence,
        v.kind,
        v.kind === MALFORMED ? absentCauses(v.detail, evidence.at(-1)) : undefined,
      );
    }
    for (const j of out.judged) if (!broken.has(j.kind)) ledger.pass(CHECK_OF_RULE[j.kind]);
    return out;
  };
  return {
    observe: (ex) => observeBatch([ex]),
    observeBatch,
    observeArrival(ex, oldestPendingSentMs) {
      arrivals.offer(read(ex));
      return judge(arrivals.release(oldestPendingSentMs));
    },
    settle: (oldestPendingSentMs) => judge(arrivals.release(oldestPendingSentMs)),
    retryDueMs: () => rules.retryDueMs(),
    banned: () => rules.report().banned,
    timeline: () => points.slice(-maxPoints),
    judgedCount: () => judgedCount,
    readings: () => (judgedCount === 0 ? undefined : describeReadings(rules.readings())),
  };
}

/** Refused by the limiter: 429, or 403 during a ban (the shared rules). */
export function isRefusal(ex: Exchange): boolean {
  return isRefusalStatus(status(ex) ?? 0);
}

/** Served: a 2xx. */
export function isAdmitted(ex: Exchange): boolean {
  return isAdmittedStatus(status(ex) ?? 0);
}
