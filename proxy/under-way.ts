// The exchanges under way, in the order their requests arrived: what cuts them at --timeout (one sweep
// a few times per timeout, not a timer each), what stop() cuts, and the order in which finished ones go
// to the judge (an exchange waits for every one that arrived before it). One list linked through the
// exchanges themselves, not a Set, a Map of deadlines and a Map of waiting turns: each of those keeps
// its entries in tables that V8 replaces as they churn, and a replaced table still in the old
// generation held every exchange it had named through the next scavenges, and with each its client
// request and answer (issue 42: the proxy's forwarding thread spent a tenth of its time in GC).

/** What the list keeps on each exchange (RawExchange has these fields): its links, and when its --timeout runs out. */
export interface UnderWayEntry {
  /** The one that arrived before it and the one after, while it is on the list. */
  prevArrived: UnderWayEntry | undefined;
  nextArrived: UnderWayEntry | undefined;
  /** When its --timeout runs out (performance.now()); Infinity once it has expired or is over. */
  dueAtMs: number;
  /** Over: its answer came, or it was cut or abandoned; it waits only for earlier ones to be handed on. */
  over: boolean;
}

export interface UnderWayHandlers<T> {
  /** The exchange has lasted --timeout and is not over (it is cut; finish() follows, now or later). */
  expire(exchange: T): void;
  /** The exchange is over, and so is every one that arrived before it: in arrival order, once each. */
  handOn(exchange: T): void;
}

export class UnderWay<T extends UnderWayEntry> {
  readonly #timeoutMs: number;
  readonly #everyMs: number;
  readonly #handlers: UnderWayHandlers<T>;
  #first: T | undefined;
  #last: T | undefined;
  /** On the list and not over. */
  #open = 0;
  #sweep: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, handlers: UnderWayHandlers<T>) {
    this.#timeoutMs = timeoutMs;
    // Cut at most a tenth of the timeout (100 ms at most) after its deadline.
    this.#everyMs = Math.max(1, Math.min(100, Math.floor(timeoutMs / 10)));
    this.#handlers = handlers;
  }

  /** Exchanges under way and not over. */
  get open(): number {
    return this.#open;
  }

  /** Finished exchanges waiting for an earlier one to be handed on. */
  get waiting(): number {
    let count = 0;
    for (let at = this.#first; at; at = at.nextArrived as T | undefined) if (at.over) count++;
    return count;
  }

  /** A request arrived: last in the order, due --timeout from now. */
  arrived(exchange: T): void {
    exchange.dueAtMs = performance.now() + this.#timeoutMs;
    exchange.over = false;
    exchange.prevArrived = this.#last;
    exchange.nextArrived = undefined;
    if (this.#last) this.#last.nextArrived = exchange;
    else this.#first = exchange;
    this.#last = exchange;
    this.#open++;
    // The connections hold the process open, never the sweep.
    this.#sweep ??= setInterval(() => this.#expire(), this.#everyMs).unref();
  }

  /** The exchange is over (once; again is nothing): it and every over one after it are handed on once none before them is under way. */
  finished(exchange: T): void {
    if (exchange.over) return;
    exchange.over = true;
    exchange.dueAtMs = Infinity;
    if (--this.#open === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
    while (this.#first?.over) {
      const next = this.#first;
      this.#unlink(next);
      try {
        this.#handlers.handOn(next);
      } catch {
        // One exchange's failure must not hold up the exchanges that came after it.
      }
    }
  }

  /** Every exchange not over, in arrival order (stop() cuts them). */
  openOnes(): T[] {
    const open: T[] = [];
    for (let at = this.#first; at; at = at.nextArrived as T | undefined) if (!at.over) open.push(at);
    return open;
  }

  #unlink(exchange: T): void {
    const { prevArrived: prev, nextArrived: next } = exchange;
    if (prev) prev.nextArrived = next;
    else this.#first = next as T | undefined;
    if (next) next.prevArrived = prev;
    else this.#last = prev as T | undefined;
    // Nothing of the list is left on it: a dead exchange in the old generation holds no young one.
    exchange.prevArrived = undefined;
    exchange.nextArrived = undefined;
  }

  #expire(): void {
    const now = performance.now();
    // Arrived in order with one timeout: the first one under way and not yet due ends the search.
    const due: T[] = [];
    for (let at = this.#first; at; at = at.nextArrived as T | undefined) {
      // Over, or expired already and not yet finished: passed.
      if (at.dueAtMs === Infinity) continue;
      if (at.dueAtMs > now) break;
      at.dueAtMs = Infinity;
      due.push(at);
    }
    // Expired after the walk: a cut may finish (and unlink) an exchange at once.
    for (const exchange of due) if (!exchange.over) this.#handlers.expire(exchange);
  }
}
