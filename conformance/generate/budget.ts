// The requests the generated phases may still send (--max-requests), shared by every phase and by
// shrinking; what did not fit is counted, so the report can say how much was left out.
export class RequestBudget {
  #left: number;
  used = 0;
  /** Requests a phase wanted but the budget refused. */
  refused = 0;

  constructor(max: number) {
    this.#left = max;
  }

  get left(): number {
    return this.#left;
  }

  /** Takes one request from the budget; false when none is left. */
  take(): boolean {
    if (this.#left <= 0) {
      this.refused++;
      return false;
    }
    this.#left--;
    this.used++;
    return true;
  }
}
