// What the live view shows of each key, and the contract of whatever observes the traffic: the judging
// proxy (proxy/live.ts) and the reference server's client report (server/plugins/live-view.ts) each
// adapt their own judge to it, so the feed and the page below know neither.
import type { Timeline, TimelinePoint } from '../../spec/rules/timeline-svg.js';

export interface LiveFinding {
  side: 'server' | 'client';
  /** A check id of the conformance kit, or client.* for the client's obligations. */
  id: string;
  level: 'must' | 'should';
  message: string;
}

export interface LiveKey {
  /** The key as every report shows it: its first characters, never the whole key. It names the key in the feed. */
  key: string;
  requests: number;
  refused: number;
  /** A ban the server announced lasts past the source's now. */
  banned: boolean;
  /** When that ban ends (the source's clock); null when none was announced. */
  bannedUntilMs: number | null;
  /** X-RateLimit-Limit, -Remaining and the moment -Reset names, from the last answer that carried them. */
  limit: number | null;
  remaining: number | null;
  resetAtMs: number | null;
  /** The last MAX_FINDINGS findings; `findingsDropped` counts the earlier ones left out. */
  findings: LiveFinding[];
  findingsDropped: number;
  /** The client's verdict, when the source judges clients: ready (no obligation broken at must) and the should-level ones broken. */
  client?: { ready: boolean; warnings: number };
  timeline: Timeline;
}

/** Which keys a watcher is shown: at most `limit`, those whose label holds `search` (any case) when given. */
export interface LiveQuery {
  limit: number;
  search?: string;
}

/** The labels a query shows (no key built), how many keys the source has, and how many match the search. */
export interface LiveListing {
  labels: string[];
  total: number;
  matched: number;
}

export interface LiveSource {
  /** The source's clock (epoch ms), the one its timelines and bans are on. */
  now(): number;
  /** The keys to show, from the source's counters: no key is built or rendered to answer it. */
  list(query: LiveQuery): LiveListing;
  /** One key as the page shows it, built on demand: the feed asks only for the keys it shows. */
  key(label: string): LiveKey | undefined;
  /** `listener` hears a key's label after each of its exchanges; the returned function stops that. */
  subscribe(listener: (label: string) => void): () => void;
}

export const MAX_FINDINGS = 20;

/** The last MAX_FINDINGS of `all`, with how many were left out. */
export function boundedFindings(all: readonly LiveFinding[]): Pick<LiveKey, 'findings' | 'findingsDropped'> {
  const dropped = Math.max(0, all.length - MAX_FINDINGS);
  return { findings: all.slice(dropped), findingsDropped: dropped };
}

/**
 * What a key's timeline says of now: the window fields of the last answer that carried them, and the
 * ban the last announcing refusal named (from its request for its Retry-After).
 */
export function windowState(points: readonly TimelinePoint[], nowMs: number): Pick<LiveKey, 'limit' | 'remaining' | 'resetAtMs' | 'banned' | 'bannedUntilMs'> {
  let last: TimelinePoint | undefined;
  let ban: TimelinePoint | undefined;
  for (const p of points) {
    if (p.status !== 0 && (p.limit ?? null) !== null && (!last || p.atMs >= last.atMs)) last = p;
    if (p.ban && (!ban || p.atMs >= ban.atMs)) ban = p;
  }
  const bannedUntilMs = ban ? ban.atMs + (ban.retryAfterMs ?? 0) : null;
  return {
    limit: last?.limit ?? null,
    remaining: last?.remaining ?? null,
    resetAtMs: last?.resetAtMs ?? null,
    banned: bannedUntilMs !== null && bannedUntilMs > nowMs,
    bannedUntilMs,
  };
}

/** A set of listeners a source calls after each exchange; a listener that throws does not stop the others. */
export class Listeners {
  readonly #listeners = new Set<(label: string) => void>();

  add(listener: (label: string) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  tell(label: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(label);
      } catch {
        // The view is an onlooker: it must never fail the traffic it watches.
      }
    }
  }
}
