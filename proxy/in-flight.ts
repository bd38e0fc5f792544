// The requests of each key that arrived and are not judged yet: until one is, no answer of its key
// that arrived after it left can be put in its place among the key's decisions.
import type { Exchange } from '../judge/index.ts';

export class InFlight {
  /** Per key, by seq, when each request was sent. */
  readonly #byKey = new Map<string, Map<number, number>>();

  arrived(key: string, exchange: Pick<Exchange, 'seq' | 'sentAt'>): void {
    let waiting = this.#byKey.get(key);
    if (!waiting) this.#byKey.set(key, (waiting = new Map()));
    waiting.set(exchange.seq, exchange.sentAt);
  }

  /** `judged` no longer waits; when the earliest request of the key still waiting was sent, null when none is. */
  judged(key: string, judged: Pick<Exchange, 'seq'>): number | null {
    const waiting = this.#byKey.get(key);
    if (!waiting) return null;
    waiting.delete(judged.seq);
    if (waiting.size === 0) {
      this.#byKey.delete(key);
      return null;
    }
    let oldest = Infinity;
    for (const sentAt of waiting.values()) if (sentAt < oldest) oldest = sentAt;
    return oldest;
  }

  /** Whether a request of the key is still waiting. */
  has(key: string): boolean {
    return this.#byKey.has(key);
  }
}
