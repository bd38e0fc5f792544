// The order in which finished exchanges go to the judge: the order their requests arrived (their seq),
// whatever order their answers came back in. One map and a counter, rather than a promise per exchange
// chained on the one before it.
export class Turns {
  /** The next seq to hand on. */
  #next: number;
  /** Finished exchanges waiting for an earlier one, by seq. */
  readonly #waiting = new Map<number, () => void>();

  constructor(first = 1) {
    this.#next = first;
  }

  /** The exchange `seq` is finished: `judge` runs once every exchange that arrived before it has run its own. */
  done(seq: number, judge: () => void): void {
    if (seq !== this.#next) {
      this.#waiting.set(seq, judge);
      return;
    }
    let run: (() => void) | undefined = judge;
    while (run) {
      this.#next++;
      try {
        run();
      } catch {
        // One exchange's failure must not hold up the exchanges that came after it.
      }
      run = this.#waiting.get(this.#next);
      if (run) this.#waiting.delete(this.#next);
    }
  }

  /** Exchanges finished and waiting for an earlier one. */
  get waiting(): number {
    return this.#waiting.size;
  }
}
