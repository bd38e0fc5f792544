// Fail open: while Redis cannot answer, each instance limits on its own with a memory store,
// so the API keeps serving (each instance then admits up to the full limit on its own). When
// Redis is back, decisions go back to it.
import type { MemoryStore } from './memory-store.ts';
import type { RedisStore } from './redis-store.ts';
import type { ConsumeRequest, ConsumeResult, LimiterStore } from './store.ts';

export type FailoverEvent =
  | { type: 'fallback'; error: Error | undefined }
  | { type: 'recovered' };

export class FailoverStore implements LimiterStore {
  readonly kind = 'failover';
  readonly primary: RedisStore;
  readonly fallback: MemoryStore;
  readonly #onEvent: (event: FailoverEvent) => void;
  #degraded = false;

  constructor(primary: RedisStore, fallback: MemoryStore, onEvent: (event: FailoverEvent) => void = () => {}) {
    this.primary = primary;
    this.fallback = fallback;
    this.#onEvent = onEvent;
    primary.onStatus((status, error) => {
      if (status === 'ready') this.#recovered();
      else this.#degrade(error);
    });
  }

  /** True while decisions are taken by this instance alone. */
  get degraded(): boolean {
    return this.#degraded || !this.primary.ready;
  }

  async consume(request: ConsumeRequest): Promise<ConsumeResult> {
    if (this.primary.ready) {
      try {
        const result = await this.primary.consume(request);
        this.#recovered();
        return result;
      } catch (error) {
        this.#degrade(error as Error);
      }
    } else {
      this.#degrade(undefined);
    }
    return this.fallback.consumeNow(request);
  }

  async reset(): Promise<void> {
    await this.fallback.reset();
    await this.primary.reset();
  }

  async advance(ms: number): Promise<void> {
    await this.fallback.advance(ms);
    await this.primary.advance(ms);
  }

  async close(): Promise<void> {
    await this.primary.close();
    await this.fallback.close();
  }

  #degrade(error: Error | undefined): void {
    if (this.#degraded) return;
    this.#degraded = true;
    this.#onEvent({ type: 'fallback', error });
  }

  #recovered(): void {
    if (!this.#degraded) return;
    this.#degraded = false;
    this.#onEvent({ type: 'recovered' });
  }
}
