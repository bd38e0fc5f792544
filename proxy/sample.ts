// The exchanges of one key the reports show: the last `keep`, and up to `keep` more around refusals
// (the request before a 429 or a ban's 403, the refusal, the one after); the ledger keeps each
// finding's first failures. The rest is counted, not kept, so a key costs the same after a million
// requests as after a thousand. Kept bodies are cut to KEPT_BODY_CHARS: enough to read, not 64 KiB each.
import type { Exchange } from '../judge/index.ts';

export const KEPT_BODY_CHARS = 2_048;

export interface SampleReport {
  /** The kept exchanges, in the order they were made. */
  exchanges: Exchange[];
  /** How many of the key's exchanges are not among them. */
  dropped: number;
}

/** The exchange as it is kept after judging: bodies past KEPT_BODY_CHARS cut to it (a copy), others as they are; slim(slim(x)) is slim(x). */
export function slim(ex: Exchange): Exchange {
  // Most exchanges are small enough to keep as they are: no copy for them.
  if ((ex.request.body?.length ?? 0) <= KEPT_BODY_CHARS && (ex.response?.body.length ?? 0) <= KEPT_BODY_CHARS && ex.request.bytes === undefined) return ex;
  const cut = (text: string | undefined) => (text !== undefined && text.length > KEPT_BODY_CHARS ? `${text.slice(0, KEPT_BODY_CHARS - 1)}…` : text);
  const { bytes: _bytes, ...request } = ex.request;
  const body = cut(request.body);
  return {
    ...ex,
    request: { ...request, ...(body !== undefined ? { body } : {}) },
    ...(ex.response ? { response: { ...ex.response, body: cut(ex.response.body) ?? '' } } : {}),
  };
}

export class ExchangeSample {
  readonly #keep: number;
  /** The last `keep`, as a ring. */
  readonly #last: Exchange[] = [];
  #next = 0;
  /** Around refusals, oldest first, at most `keep`. */
  readonly #around: Exchange[] = [];
  #previous: Exchange | undefined;
  #afterRefusal = false;
  #seen = 0;

  constructor(keep: number) {
    this.#keep = keep;
  }

  add(exchange: Exchange, refused: boolean): void {
    this.#seen++;
    if (this.#keep === 0) return;
    const kept = slim(exchange);
    if (this.#around.length < this.#keep) {
      if (refused) {
        if (this.#previous && !this.#afterRefusal && this.#around.at(-1) !== this.#previous) this.#around.push(this.#previous);
        this.#around.push(kept);
      } else if (this.#afterRefusal) this.#around.push(kept);
    }
    this.#afterRefusal = refused;
    this.#previous = kept;
    if (this.#last.length < this.#keep) this.#last.push(kept);
    else this.#last[this.#next] = kept;
    this.#next = (this.#next + 1) % this.#keep;
  }

  report(): SampleReport {
    const bySeq = new Map<number, Exchange>();
    for (const ex of [...this.#around, ...this.#last]) bySeq.set(ex.seq, ex);
    const exchanges = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    return { exchanges, dropped: this.#seen - exchanges.length };
  }
}
