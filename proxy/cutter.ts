// How one exchange of the proxy is cut short (its --timeout, the proxy's stop, its client gone), and why.
import type { ServerResponse } from 'node:http';

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
  /** Made when first needed: most exchanges have one thing to cut, or none. */
  #then: Array<() => void> | undefined;

  cut(reason: Cut): void {
    if (this.reason) return;
    this.reason = reason;
    for (const then of this.#then ?? []) then();
  }

  /** The exchange is over: nothing is cut any more, and what was to be run is let go (with what it holds: a request, an answer). */
  release(): void {
    this.#then = undefined;
  }

  /** Runs `then` when the exchange is cut (at once if it was). */
  onCut(then: () => void): void {
    if (this.reason) then();
    else (this.#then ??= []).push(then);
  }
}

/** How the exchange is judged: on what came, or not at all (nobody's doing), or as a fault the proxy answered. */
export type Verdict = 'judge' | 'injected' | 'abandon';

/** The client's exchange ends without an answer from the target: 502 or 504 when nothing was sent yet. */
export function cutShort(res: ServerResponse, exchange: { receivedAt: number; error?: string | undefined }, reason: Cut, nowMs: number): 'judge' | 'abandon' {
  exchange.receivedAt = nowMs;
  exchange.error = `${reason.code}: ${reason.message}`;
  if (!res.headersSent && !res.destroyed) {
    res.writeHead(reason.code === 'ETIMEDOUT' ? 504 : 502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(`adoption-kit proxy: ${reason.message}\n`);
  } else res.destroy();
  // A target that never answered in time is the target's doing; a stop or a client gone is nobody's.
  return reason.code === 'ETIMEDOUT' ? 'judge' : 'abandon';
}
