// A fixed window opened by the first request after the previous one ended (not aligned to the
// clock): it counts up to its limit and forgets everything at its end.
import { CountingWindow, type Window } from './window.ts';

export class FixedWindow extends CountingWindow implements Window {
  #startMs: number | undefined;
  #count = 0;

  roll(nowMs: number): void {
    if (this.#startMs !== undefined && nowMs < this.#startMs + this.lengthMs) return;
    this.#startMs = nowMs;
    this.#count = 0;
  }

  protected get held(): number {
    return this.#count;
  }

  get endMs(): number {
    return (this.#startMs ?? 0) + this.lengthMs;
  }

  take(): void {
    this.#count++;
  }

  /** The ban serves out this window; the first request after it opens a fresh one. */
  close(): void {
    this.#startMs = undefined;
    this.#count = 0;
  }

  read(): () => void {
    const startMs = this.#startMs;
    const count = this.#count;
    return () => {
      this.#startMs = startMs;
      this.#count = count;
    };
  }
}
