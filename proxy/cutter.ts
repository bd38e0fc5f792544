// How one exchange of the proxy is cut short (its --timeout, the proxy's stop, its client gone), and why.

/** Why an exchange was cut short. */
export class Cut {
  constructor(
    readonly message: string,
    readonly code: string,
  ) {}
}

/** What cuts one exchange short (its --timeout, the stop, the client gone): lighter than an AbortController per request. */
export class Cutter {
  reason: Cut | undefined;
  #then: Array<() => void> = [];

  cut(reason: Cut): void {
    if (this.reason) return;
    this.reason = reason;
    for (const then of this.#then) then();
  }

  /** Runs `then` when the exchange is cut (at once if it was). */
  onCut(then: () => void): void {
    if (this.reason) then();
    else this.#then.push(then);
  }
}
