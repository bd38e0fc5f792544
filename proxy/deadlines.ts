// When exchanges run out of --timeout: one sweep over those under way, a few times per timeout,
// rather than a timer set and cleared for every exchange. An exchange is cut at most a tenth of the
// timeout (100 ms at most) after its deadline.
export class Deadlines<T extends object = object> {
  readonly #timeoutMs: number;
  readonly #everyMs: number;
  /** Each exchange under way, with when its deadline passes (performance.now()), in the order they arrived. */
  readonly #due = new Map<T, { atMs: number; expire: (exchange: T) => void }>();
  #sweep: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#everyMs = Math.max(1, Math.min(100, Math.floor(timeoutMs / 10)));
  }

  /** `expire` runs (given the exchange: one function can serve every exchange) once the exchange has lasted the timeout, unless it is cleared first. */
  add(exchange: T, expire: (exchange: T) => void): void {
    this.#due.set(exchange, { atMs: performance.now() + this.#timeoutMs, expire });
    this.#sweep ??= setInterval(() => this.#expire(), this.#everyMs);
  }

  clear(exchange: T): void {
    this.#due.delete(exchange);
    if (this.#due.size === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
  }

  #expire(): void {
    const now = performance.now();
    // Added in arrival order with one timeout: the first not yet due ends the sweep.
    for (const [exchange, { atMs, expire }] of this.#due) {
      if (atMs > now) break;
      this.clear(exchange);
      expire(exchange);
    }
  }
}
