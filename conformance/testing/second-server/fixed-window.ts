// A fixed window opened by the first request after the previous one ended (not aligned to the
// clock): it counts up to its limit and forgets everything at its end.
import type { Window } from './window.ts';

export class FixedWindow implements Window {
  readonly name: string;
  readonly limit: number;
  readonly lengthMs: number;
  #startMs: number | undefined;
  #count = 0;

  constructor(name: string, limit: number, lengthMs: number) {
    this.name = name;
    this.limit = limit;
    this.lengthMs = lengthMs;
  }

  roll(nowMs: number): boolean {
    if (this.#startMs !== undefined && nowMs < this.#startMs + this.lengthMs) return false;
    this.#startMs = nowMs;
    this.#count = 0;
    return true;
  }

  get exhausted(): boolean {
    return this.#count >= this.limit;
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.#count);
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
