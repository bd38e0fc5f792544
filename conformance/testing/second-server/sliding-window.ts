// A sliding log: each admitted request holds one of the limit's slots for exactly the window's
// length from its admission, so room frees one request at a time instead of all at once.
import type { Window } from './window.ts';

export class SlidingLog implements Window {
  readonly name: string;
  readonly limit: number;
  readonly lengthMs: number;
  /** Admission times of the slots still held, oldest first; never more than `limit`, so memory stays bounded. */
  #slots: number[] = [];
  #nowMs = 0;

  constructor(name: string, limit: number, lengthMs: number) {
    this.name = name;
    this.limit = limit;
    this.lengthMs = lengthMs;
  }

  /** Drops the slots that have freed; a log has no beginnings, so never true. */
  roll(nowMs: number): boolean {
    this.#nowMs = nowMs;
    const held = this.#slots.findIndex((admittedMs) => admittedMs + this.lengthMs > nowMs);
    this.#slots.splice(0, held < 0 ? this.#slots.length : held);
    return false;
  }

  get exhausted(): boolean {
    return this.#slots.length >= this.limit;
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.#slots.length);
  }

  /** With nothing held, a request admitted now would hold the first slot until then: like a fresh fixed window. */
  get endMs(): number {
    return (this.#slots[0] ?? this.#nowMs) + this.lengthMs;
  }

  take(nowMs: number): void {
    this.#slots.push(nowMs);
  }

  /** The slots are requests really admitted: a ban does not hand them back, it only outlasts the first. */
  close(): void {}

  read(): () => void {
    const slots = [...this.#slots];
    return () => {
      this.#slots = slots;
    };
  }
}
