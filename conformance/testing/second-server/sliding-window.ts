// A sliding log: each admitted request holds one of the limit's slots for exactly the window's
// length from its admission, so room frees one request at a time instead of all at once.
import { CountingWindow, type Window } from './window.ts';

export class SlidingLog extends CountingWindow implements Window {
  /** Admission times of the slots still held, oldest first; never more than `limit`, so memory stays bounded. */
  #slots: number[] = [];
  #nowMs = 0;

  /** Drops the slots that have freed. */
  roll(nowMs: number): void {
    this.#nowMs = nowMs;
    const oldestHeld = this.#slots.findIndex((admittedMs) => admittedMs + this.lengthMs > nowMs);
    this.#slots.splice(0, oldestHeld < 0 ? this.#slots.length : oldestHeld);
  }

  protected get held(): number {
    return this.#slots.length;
  }

  /** With nothing held, a request admitted now would hold the first slot until then: like a fresh fixed window. */
  get endMs(): number {
    return (this.#slots[0] ?? this.#nowMs) + this.lengthMs;
  }

  /** When the newest slot frees: the whole log is empty again. */
  protected get emptyMs(): number {
    return (this.#slots.at(-1) ?? this.#nowMs) + this.lengthMs;
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

/**
 * A moving window as Flask-Limiter's (the `limits` library's moving window) reads "the moment the
 * limit resets" literally: when the whole window is empty again, Remaining back to the limit. Reset
 * moves forward whenever an admission falls in a later second; refusals and bans wait for it too.
 */
export class MovingWindow extends SlidingLog implements Window {
  override get endMs(): number {
    return this.emptyMs;
  }
}
