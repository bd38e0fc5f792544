// The kit's own manners towards the target's rate limits, for two budgets: the run's key and the
// address (conformance/README.md, Preflight and pacing). The rate-limit key is exhausted on purpose
// by its own area and never paced here.
import { KitError } from '../lib/errors.ts';
import type { RefusalBudget } from '../spec/contract-facts.ts';
import { DEFAULT_TOLERANCES, readSnapshot, retryWaitMs, slackSeconds } from '../spec/rules/snapshot.js';
import type { RequestGate } from './http.ts';
import type { Clock, Exchange, ExchangeRequest } from '../judge/exchange.ts';
import { errorCode } from '../judge/refusal.ts';

export type Budget = RefusalBudget;

/** The target refuses (or would refuse) for longer than the run may wait. */
export class RateLimitedError extends KitError {
  constructor(message: string) {
    super('rate-limited', message);
  }
}

interface BudgetState {
  limit: number | null;
  remaining: number | null;
  /** When the window resets, on the kit's clock (ms). */
  resetAtMs: number | null;
  /** A 429 said: not before this moment (kit's clock, ms). */
  refusedUntilMs: number | null;
  refusedBy?: string;
}

export interface PacerOptions {
  clock: Clock;
  /** Waits `ms` on the run's clock, telling the person why (a countdown on a terminal). */
  wait: (ms: number, why: string) => Promise<void>;
  maxWaitMs: number;
  /** Whether the Date header is the server's clock. */
  dateHeader: boolean;
  clockToleranceSeconds: number;
  /** The Authorization value of the run's key, and of the rate-limit key (never paced). */
  keyAuthorization: string;
  rateLimitAuthorization?: string;
  /**
   * Which budget a 429's Error code names: the x-refusal-codes of the description (the reference
   * server's codes). A code it does not name, or a description without them, falls back to the
   * request's credentials: the codes are never demanded of another implementation.
   */
  refusalCodes: Readonly<Record<string, Budget>>;
}

export interface Attribution {
  budget: Budget;
  code: string | undefined;
  retryAfterMs: number | null;
}

/**
 * Keyless requests keep one request of the address's allowance in hand: a server may refuse valid
 * keys too from an address that has used up its allowance (the reference does, loopback aside).
 */
const ADDRESS_RESERVE = 1;

export class Pacer implements RequestGate {
  readonly #options: PacerOptions;
  readonly #state: Record<Budget, BudgetState> = { key: empty(), address: empty() };
  /** Every 429 the pacer attributed, for the report. */
  readonly attributed: Array<Attribution & { seq: number }> = [];

  constructor(options: PacerOptions) {
    this.#options = options;
  }

  budgetOf(request: Pick<ExchangeRequest, 'headers'>): Budget | null {
    const auth = request.headers.authorization;
    if (auth !== undefined && auth === this.#options.rateLimitAuthorization) return null;
    return auth === this.#options.keyAuthorization ? 'key' : 'address';
  }

  /** What the pacer knows of a budget (for the preflight and the report). */
  known(budget: Budget): Readonly<BudgetState> {
    return this.#state[budget];
  }

  /** How long a request of this budget would have to wait now (ms, 0 when it may go), and for which budget. */
  delay(budget: Budget, needed = 1): { ms: number; blocking: Budget } {
    const now = this.#options.clock.now();
    let worst = { ms: 0, blocking: budget };
    // An address with nothing left may be refused keyed requests too (the reference, loopback aside): everyone waits for it.
    for (const b of budget === 'address' ? (['address'] as const) : (['key', 'address'] as const)) {
      const s = this.#state[b];
      const want = b === budget ? needed : 1;
      let until = 0;
      if (s.refusedUntilMs !== null && s.refusedUntilMs > now) until = s.refusedUntilMs;
      if (s.remaining !== null && s.remaining < want && s.resetAtMs !== null && s.resetAtMs > now) until = Math.max(until, s.resetAtMs);
      if (until - now > worst.ms) worst = { ms: until - now, blocking: b };
    }
    return worst;
  }

  async before(request: ExchangeRequest): Promise<void> {
    const budget = this.budgetOf(request);
    if (budget === null) return;
    await this.ensure(budget, budget === 'address' ? ADDRESS_RESERVE + 1 : 1, `${request.method} ${new URL(request.url).pathname}`);
  }

  /**
   * Waits, if need be, until `needed` requests of the budget can go without running it down past
   * its reserve: before a request, and before Dredd, whose requests the kit cannot pace one by one.
   */
  async ensure(budget: Budget, needed: number, what: string): Promise<void> {
    const { ms, blocking } = this.delay(budget, needed);
    if (ms <= 0) return;
    const s = this.#state[blocking];
    const now = this.#options.clock.now();
    const name = blocking === 'key' ? 'the key (--api-key)' : 'the address (requests without a valid key)';
    const cause =
      s.refusedUntilMs !== null && s.refusedUntilMs > now
        ? `${name} was refused (429 ${s.refusedBy})`
        : `${name} has ${s.remaining ?? 0} of ${s.limit ?? '?'} requests left`;
    if (ms > this.#options.maxWaitMs) {
      throw new RateLimitedError(
        `${cause} and its window reopens in ${Math.ceil(ms / 1000)} s, longer than --max-wait ${Math.round(this.#options.maxWaitMs / 1000)}: run again later, or with a key that has more room`,
      );
    }
    await this.#options.wait(ms, `${cause}; waiting for its window before ${what}`);
    // The window reopened: what was known of it no longer holds.
    const after = this.#options.clock.now();
    for (const state of Object.values(this.#state)) {
      if (state.resetAtMs !== null && state.resetAtMs <= after) state.remaining = null;
      if (state.refusedUntilMs !== null && state.refusedUntilMs <= after) state.refusedUntilMs = null;
    }
  }

  /** Requests the kit sent without seeing their answers (Dredd's): what is left shrinks by as many. */
  spent(budget: Budget, n: number): void {
    const s = this.#state[budget];
    if (s.remaining !== null) s.remaining = Math.max(0, s.remaining - n);
  }

  async after(exchange: Exchange): Promise<boolean> {
    const budget = this.budgetOf(exchange.request);
    const res = exchange.response;
    if (budget === null || !res) return false;
    const snapshot = readSnapshot(
      { status: res.status, headers: res.headers, receivedAtMs: exchange.receivedAt, sentAtMs: exchange.sentAt },
      { dateHeader: this.#options.dateHeader },
    );
    const tolerances = { ...DEFAULT_TOLERANCES, clockSkewSeconds: this.#options.clockToleranceSeconds };
    // The server's clock against the kit's: the reset instant moved onto the kit's clock, with the slack.
    const offsetMs = exchange.receivedAt - snapshot.serverNowMs;
    const resetAtMs = snapshot.reset === null ? null : snapshot.reset * 1000 + offsetMs + slackSeconds(snapshot, tolerances) * 1000;
    if (res.status !== 429) {
      const s = this.#state[budget];
      if (snapshot.remaining !== null) {
        s.remaining = snapshot.remaining;
        s.limit = snapshot.limit;
        s.resetAtMs = resetAtMs;
      }
      return false;
    }
    const code = errorCode(exchange);
    const codes = this.#options.refusalCodes;
    const refused: Budget = code !== undefined && Object.hasOwn(codes, code) ? codes[code]! : budget;
    const wait = retryWaitMs(snapshot, tolerances);
    const s = this.#state[refused];
    s.refusedUntilMs = exchange.receivedAt + (wait ?? Math.max(0, (resetAtMs ?? exchange.receivedAt) - exchange.receivedAt)) + 1000;
    s.refusedBy = `${code ?? 'without an Error code'}, Retry-After ${snapshot.retryAfterRaw ?? 'missing'}`;
    s.remaining = 0;
    if (resetAtMs !== null) s.resetAtMs = resetAtMs;
    this.attributed.push({ budget: refused, code, retryAfterMs: wait, seq: exchange.seq });
    exchange.retried = `429${code ? ` ${code}` : ''}: ${refused === 'key' ? 'the key' : 'the address'} was refused; the kit waited and sent the request again`;
    return true;
  }
}

function empty(): BudgetState {
  return { limit: null, remaining: null, resetAtMs: null, refusedUntilMs: null };
}
