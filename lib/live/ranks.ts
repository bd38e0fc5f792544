// Which keys a watcher sees: at most a page of them, those with the most findings first, then the busiest, or
// those whose label holds a search. Chosen from counters a source keeps as traffic passes, so that a
// watcher connecting costs the keys it is shown, never a report of every key.
import type { LiveListing, LiveQuery } from './source.ts';

/** What ranks a key: counters only. */
export interface KeyRank {
  label: string;
  requests: number;
  findings: number;
}

/** Ahead of `b`: more findings, then busier, then by label (a stable order). */
function ahead(a: KeyRank, b: KeyRank): boolean {
  if (a.findings !== b.findings) return a.findings > b.findings;
  if (a.requests !== b.requests) return a.requests > b.requests;
  return a.label < b.label;
}

/** The first `limit` keys in rank order among those matching the search: one pass, a page kept sorted. */
export function pickLabels(keys: Iterable<KeyRank>, { limit, search }: LiveQuery): Omit<LiveListing, 'total'> {
  const needle = search?.toLowerCase() ?? '';
  const best: KeyRank[] = [];
  let matched = 0;
  for (const k of keys) {
    if (needle && !k.label.toLowerCase().includes(needle)) continue;
    matched++;
    if (limit <= 0 || (best.length === limit && !ahead(k, best[limit - 1]!))) continue;
    let at = best.length;
    while (at > 0 && ahead(k, best[at - 1]!)) at--;
    best.splice(at, 0, k);
    if (best.length > limit) best.pop();
  }
  return { labels: best.map((k) => k.label), matched };
}

export const DEFAULT_MAX_RANKED = 10_000;

/**
 * The counters of a source that keeps none of its own (the judging proxy's view): told of each
 * exchange and finding by label. At most `maxKeys` labels, the least recently active forgotten first.
 */
export class KeyRanks {
  readonly #max: number;
  /** Least recently active first. */
  readonly #keys = new Map<string, KeyRank>();

  constructor(maxKeys = DEFAULT_MAX_RANKED) {
    this.#max = maxKeys;
  }

  get size(): number {
    return this.#keys.size;
  }

  #touch(label: string): KeyRank {
    let rank = this.#keys.get(label);
    if (rank) this.#keys.delete(label);
    else rank = { label, requests: 0, findings: 0 };
    this.#keys.set(label, rank);
    if (this.#keys.size > this.#max) this.#keys.delete(this.#keys.keys().next().value!);
    return rank;
  }

  /** One more exchange of the key. */
  seen(label: string): void {
    this.#touch(label).requests++;
  }

  /** One more finding of the key, or (`findings`) as many as a report of it built just now shows; never lowers it. */
  found(label: string, findings?: number): void {
    const rank = this.#keys.get(label);
    if (rank) rank.findings = findings === undefined ? rank.findings + 1 : Math.max(rank.findings, findings);
  }

  /** A key the source no longer has. */
  forget(label: string): void {
    this.#keys.delete(label);
  }

  list(query: LiveQuery): LiveListing {
    return { ...pickLabels(this.#keys.values(), query), total: this.#keys.size };
  }
}
