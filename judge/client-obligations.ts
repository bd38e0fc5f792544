// How each client (API key) meets the specification's obligations on clients: wait Retry-After after a
// 429, back off exponentially, stop while banned, move off the deprecated getPet. Pure, fed every answer
// of a key in the server's order, so that every verdict is tested with a fake timeline; each key's last
// requests are kept as timeline points, first breaches marked, for the client report's picture.
import type { TimelinePoint } from '../spec/rules/timeline-svg.js';

export type Verdict = 'yes' | 'no' | 'not observed';

export interface Answer {
  /** When the answer went out (the server) or came back (a proxy). */
  atMs: number;
  /** When the request was sent, if earlier than atMs: a proxy sees both; a wait is judged from it. */
  sentAtMs?: number;
  keyId: string;
  plan: string;
  /** How the key is shown: its first characters. */
  label: string;
  status: number;
  /** The Error body's code, for errors. */
  code?: string;
  /** Retry-After of a 429, in seconds. */
  retryAfterSeconds?: number;
  operationId?: string;
  /**
   * This refusal announces a ban. The reference server says so with the code key_banned; for any
   * other server the window rules of spec/rules tell it from a Retry-After past the window.
   */
  ban?: boolean;
  /** X-RateLimit-Limit, -Remaining and the moment -Reset names (ms), when the answer carried them: for the timeline. */
  limit?: number;
  remaining?: number;
  resetAtMs?: number;
  /** A fault answered in the server's place (--faults): judged like any answer, drawn as injected. */
  injected?: boolean;
}

export interface Obligation {
  verdict: Verdict;
  detail: string;
}

export interface ClientReport {
  key: string;
  keyId: string;
  plan: string;
  requests: number;
  refused: number;
  /** Overall: ready unless a must-level obligation was broken; a broken should is a warning. */
  ready: boolean;
  /** How many should-level obligations were broken: warnings, which leave a client ready. */
  warnings: number;
  obligations: {
    waitsRetryAfter: Obligation;
    backsOffExponentially: Obligation;
    stopsWhileBanned: Obligation;
    avoidsDeprecated: Obligation;
  };
  /** The key's last requests (at most TIMELINE_POINTS), each obligation marked where it was first broken. */
  timeline: TimelinePoint[];
}

/**
 * Each obligation: how reports name it, its level and the section it comes from. The specification
 * tells clients to wait Retry-After and back off exponentially (must: ignoring it is what limits
 * punish, and a ban follows), and that they should use GET /pets instead of the deprecated getPet.
 */
export const OBLIGATIONS: Readonly<Record<keyof ClientReport['obligations'], { id: string; title: string; level: 'must' | 'should'; section: string }>> = {
  waitsRetryAfter: {
    id: 'client.waits-retry-after',
    title: 'waits for Retry-After after a 429',
    level: 'must',
    section: 'Limits › Behaviour when the limit is exceeded',
  },
  backsOffExponentially: {
    id: 'client.backs-off',
    title: 'backs off exponentially on repeated 429s',
    level: 'must',
    section: 'Limits › Behaviour when the limit is exceeded',
  },
  stopsWhileBanned: {
    id: 'client.stops-while-banned',
    title: 'stops sending while banned',
    level: 'must',
    section: 'Limits › Behaviour when the limit is exceeded',
  },
  avoidsDeprecated: { id: 'client.avoids-deprecated', title: 'avoids deprecated operations (getPet)', level: 'should', section: 'Versioning' },
};

/** The obligations a client broke, each named as the reports and the live views name it. */
export function brokenObligations(c: Pick<ClientReport, 'obligations'>): Array<{ id: string; level: 'must' | 'should'; message: string }> {
  return (Object.keys(c.obligations) as Array<keyof ClientReport['obligations']>)
    .filter((name) => c.obligations[name].verdict === 'no')
    .map((name) => ({ id: OBLIGATIONS[name].id, level: OBLIGATIONS[name].level, message: `${OBLIGATIONS[name].title}: ${c.obligations[name].detail}` }));
}

/** A client's verdict in words, the same in every report: READY, READY (n warnings) or NOT READY. */
export function readiness(c: Pick<ClientReport, 'ready' | 'warnings'>): string {
  if (!c.ready) return 'NOT READY';
  return c.warnings > 0 ? `READY (${c.warnings} warning${c.warnings === 1 ? '' : 's'})` : 'READY';
}

/** How many of a key's last requests the timeline keeps. */
export const TIMELINE_POINTS = 1000;

/** Slack for clocks and networks: a retry this much early still counts as waiting. */
const TOLERANCE_MS = 250;
/** Each wait of a retry streak must be at least this many times the one before. */
const BACKOFF_FACTOR = 1.5;

/**
 * A run of retries after 429s as running figures, so that a client retrying for hours holds a few
 * numbers, not a wait per request: how many waits, the last, whether each so far grew by the factor,
 * and the first few (a report's example).
 */
interface Streak {
  waits: number;
  last: number;
  grows: boolean;
  first: number[];
}

const STREAK_EXAMPLE = 5;
const newStreak = (): Streak => ({ waits: 0, last: 0, grows: true, first: [] });

interface KeyState {
  plan: string;
  label: string;
  requests: number;
  refused: number;
  retryAt: number | null;
  honoured: number;
  early: number;
  earliestByMs: number;
  lastAt: number;
  /** The current run of retries after 429s. */
  streak: Streak;
  streaks: number;
  streaksExponential: number;
  flatExample: number[] | null;
  bannedUntil: number | null;
  bans: number;
  sentWhileBanned: number;
  deprecated: number;
  timeline: TimelinePoint[];
  /** Obligations already marked on the timeline. */
  marked: Set<keyof ClientReport['obligations']>;
}

export class ClientRecorder {
  readonly #keys = new Map<string, KeyState>();
  readonly #deprecated: ReadonlySet<string>;

  readonly #timelinePoints: number;

  /**
   * `deprecatedOperations`: the operationIds the contract marks deprecated; `timelinePoints`: how many
   * of a key's last requests its timeline keeps (0 for a judge that draws its own).
   */
  constructor(deprecatedOperations: Iterable<string>, options: { timelinePoints?: number } = {}) {
    this.#timelinePoints = options.timelinePoints ?? TIMELINE_POINTS;
    this.#deprecated = new Set(deprecatedOperations);
  }

  observe(answer: Answer): void {
    let s = this.#keys.get(answer.keyId);
    if (!s) {
      s = {
        plan: answer.plan,
        label: answer.label,
        requests: 0,
        refused: 0,
        retryAt: null,
        honoured: 0,
        early: 0,
        earliestByMs: 0,
        lastAt: 0,
        streak: newStreak(),
        streaks: 0,
        streaksExponential: 0,
        flatExample: null,
        bannedUntil: null,
        bans: 0,
        sentWhileBanned: 0,
        deprecated: 0,
        timeline: [],
        marked: new Set(),
      };
      this.#keys.set(answer.keyId, s);
    }
    s.requests++;
    const sentAt = answer.sentAtMs ?? answer.atMs;
    const point: TimelinePoint = {
      atMs: sentAt,
      status: answer.status,
      ...(answer.limit !== undefined ? { limit: answer.limit } : {}),
      ...(answer.remaining !== undefined ? { remaining: answer.remaining } : {}),
      ...(answer.resetAtMs !== undefined ? { resetAtMs: answer.resetAtMs } : {}),
      ...(answer.status === 429 && answer.retryAfterSeconds !== undefined ? { retryAfterMs: answer.retryAfterSeconds * 1000 } : {}),
      ...(answer.injected ? { injected: true } : {}),
    };
    s.timeline.push(point);
    if (s.timeline.length > this.#timelinePoints) s.timeline.shift();
    const broken = { early: s.early, banned: s.sentWhileBanned, deprecated: s.deprecated, flat: s.streaks - s.streaksExponential };
    if (answer.operationId !== undefined && this.#deprecated.has(answer.operationId)) s.deprecated++;
    if (s.bannedUntil !== null && sentAt < s.bannedUntil - TOLERANCE_MS) s.sentWhileBanned++;
    if (s.retryAt !== null) {
      if (sentAt < s.retryAt - TOLERANCE_MS) {
        s.early++;
        s.earliestByMs = Math.max(s.earliestByMs, s.retryAt - sentAt);
      } else s.honoured++;
      const wait = sentAt - s.lastAt;
      const { streak } = s;
      // Longer each time, and by the factor: a loop of immediate retries (0, 0, 0) is no backoff.
      if (streak.waits > 0 && !(wait > streak.last && wait + TOLERANCE_MS >= BACKOFF_FACTOR * streak.last)) streak.grows = false;
      streak.waits++;
      streak.last = wait;
      if (streak.first.length < STREAK_EXAMPLE) streak.first.push(wait);
    }
    s.lastAt = answer.atMs;
    if (answer.status === 429) {
      s.refused++;
      s.retryAt = answer.atMs + (answer.retryAfterSeconds ?? 0) * 1000;
      if ((answer.ban === true || answer.code === 'key_banned') && (s.bannedUntil === null || answer.atMs >= s.bannedUntil)) {
        s.bans++;
        s.bannedUntil = s.retryAt;
        point.ban = true;
      }
    } else {
      this.#closeStreak(s);
      s.retryAt = null;
    }
    if (s.early > broken.early) this.#mark(s, point, 'waitsRetryAfter');
    if (s.sentWhileBanned > broken.banned) this.#mark(s, point, 'stopsWhileBanned');
    if (s.deprecated > broken.deprecated) this.#mark(s, point, 'avoidsDeprecated');
    if (s.streaks - s.streaksExponential > broken.flat) this.#mark(s, point, 'backsOffExponentially');
  }

  /** The first breach of an obligation, marked on the request that showed it. */
  #mark(s: KeyState, point: TimelinePoint, name: keyof ClientReport['obligations']): void {
    if (s.marked.has(name)) return;
    s.marked.add(name);
    const def = OBLIGATIONS[name];
    point.violations = [...(point.violations ?? []), { kind: def.id, level: def.level, detail: def.title }];
  }

  /** A run of retries after 429s ends: it backed off exponentially if each wait grew enough. */
  #closeStreak(s: KeyState): void {
    if (s.streak.waits >= 2) {
      s.streaks++;
      if (s.streak.grows) s.streaksExponential++;
      else s.flatExample ??= s.streak.first.slice();
    }
    s.streak = newStreak();
  }

  report(): ClientReport[] {
    return [...this.#keys].map(([keyId, live]) => this.#reportOf(keyId, live, true));
  }

  /** Each key's label, requests and obligations broken so far, from its counters: no report is built (the live view ranks keys by these). */
  *ranks(): Iterable<{ label: string; requests: number; findings: number }> {
    for (const s of this.#keys.values()) yield { label: s.label, requests: s.requests, findings: s.marked.size };
  }

  /** The number of keys seen. */
  get size(): number {
    return this.#keys.size;
  }

  /** One key's report with its timeline, by its label (the live view builds only the keys it shows). */
  reportByLabel(label: string): ClientReport | undefined {
    for (const [keyId, live] of this.#keys) if (live.label === label) return this.#reportOf(keyId, live, true);
    return undefined;
  }

  /** One key's report with an empty timeline: cheap enough to ask after every answer (the judging proxy does). */
  verdictOf(keyId: string): ClientReport | undefined {
    const live = this.#keys.get(keyId);
    return live && this.#reportOf(keyId, live, false);
  }

  #reportOf(keyId: string, live: KeyState, withTimeline: boolean): ClientReport {
    // Closing the open streak replaces the copy's streak, never changes the live one.
    const s = { ...live };
    this.#closeStreak(s);
    // A run of 429s still open is judged now: its last request is where it showed.
    const last = live.timeline.at(-1);
    if (s.streaks > s.streaksExponential && last) this.#mark(live, last, 'backsOffExponentially');
    const obligations: ClientReport['obligations'] = {
      waitsRetryAfter:
        s.early > 0
          ? {
              verdict: 'no',
              detail: `${s.early} of ${s.early + s.honoured} retries came before Retry-After (up to ${(s.earliestByMs / 1000).toFixed(1)} s early)`,
            }
          : s.honoured > 0
            ? { verdict: 'yes', detail: `all ${s.honoured} retries after a 429 waited for Retry-After` }
            : { verdict: 'not observed', detail: 'no request followed a 429' },
      backsOffExponentially:
        s.streaks === 0
          ? { verdict: 'not observed', detail: 'no 429 was answered twice in a row' }
          : s.streaksExponential === s.streaks
            ? { verdict: 'yes', detail: `in ${s.streaks} run(s) of repeated 429s each wait was at least ${BACKOFF_FACTOR} times the one before` }
            : {
                verdict: 'no',
                detail: `${s.streaks - s.streaksExponential} of ${s.streaks} run(s) of repeated 429s did not back off (waits ${(s.flatExample ?? []).map((g) => `${g} ms`).join(', ')}...)`,
              },
      stopsWhileBanned:
        s.bans === 0
          ? { verdict: 'not observed', detail: 'the key was never banned' }
          : s.sentWhileBanned > 0
            ? { verdict: 'no', detail: `${s.sentWhileBanned} request(s) sent while banned (${s.bans} ban(s))` }
            : { verdict: 'yes', detail: `no request during ${s.bans} ban(s)` },
      avoidsDeprecated:
        s.deprecated > 0
          ? {
              verdict: 'no',
              detail: `${s.deprecated} of ${s.requests} requests (${((100 * s.deprecated) / s.requests).toFixed(1)} %) still call a deprecated operation`,
            }
          : { verdict: 'yes', detail: 'no call to a deprecated operation' },
    };
    const broken = (level: 'must' | 'should') =>
      (Object.keys(obligations) as Array<keyof ClientReport['obligations']>).filter(
        (name) => OBLIGATIONS[name].level === level && obligations[name].verdict === 'no',
      ).length;
    return {
      key: s.label,
      keyId,
      plan: s.plan,
      requests: s.requests,
      refused: s.refused,
      ready: broken('must') === 0,
      warnings: broken('should'),
      obligations,
      timeline: withTimeline ? live.timeline.map((p) => ({ ...p })) : [],
    };
  }

  reset(): void {
    this.#keys.clear();
  }
}
