// When the target stops answering. A server whose handler never returns while it holds a lock keeps
// its port open and answers nothing: every later request waits out --timeout, and a run of hundreds
// of requests would take most of an hour. A few requests in a row without any answer end the run instead
// (conformance/README.md, Decisions: A target that stops answering). Dredd's worker counts the same
// way (dredd/worker.cjs), with the same number.
import { KitError } from '../lib/errors.ts';

/** Requests in a row that get no answer at all (a timeout, a refused or reset connection) before the run ends. */
export const UNANSWERED_IN_A_ROW = 3;

/** Why the run ended before its phases did; what it ran is reported, what it did not is never a pass. */
export class RunHalted extends KitError {}

/** The target stopped answering: the message names the last request answered and the first that was not. */
export class TargetStoppedError extends RunHalted {
  constructor(message: string) {
    super('target-stopped', message);
  }
}

/** --exitfirst: a check failed that stops the run. */
export class ExitFirstError extends RunHalted {
  constructor(id: string, level: string) {
    super('exit-first', `--exitfirst: ${id} (${level}) failed; the run stopped there`);
  }
}

/** The words every report uses for a stop, given the requests as "<METHOD> <url>". */
export function stoppedText(stop: { count: number; why: string; lastAnswered?: string; firstUnanswered: string }): string {
  const last = stop.lastAnswered === undefined ? 'none' : stop.lastAnswered;
  return `the target stopped answering: ${stop.count} requests in a row got no answer (${stop.why}); the last answered: ${last}; the first unanswered: ${stop.firstUnanswered}. The run ended there`;
}

/**
 * Counts requests in a row that got no answer. Only once the target has answered something: a
 * target that never answered is the preflight's to report (unreachable, --wait-for-target).
 */
export class Silence {
  readonly #limit: number;
  #lastAnswered: string | undefined;
  #unanswered: Array<{ what: string; why: string }> = [];
  #stopped: string | undefined;

  constructor(limit = UNANSWERED_IN_A_ROW) {
    this.#limit = limit;
  }

  /** A request that got an answer, any answer: "GET http://… (200, request 12)". */
  answered(what: string): void {
    this.#lastAnswered = what;
    this.#unanswered = [];
  }

  /** A request that got none; returns the stop's message once `limit` came in a row. */
  unanswered(what: string, why: string): string | undefined {
    if (this.#lastAnswered === undefined || this.#stopped !== undefined) return this.#stopped;
    this.#unanswered.push({ what, why });
    if (this.#unanswered.length < this.#limit) return undefined;
    const whys = [...new Set(this.#unanswered.map((u) => u.why))].join(', ');
    this.#stopped = stoppedText({ count: this.#unanswered.length, why: whys, lastAnswered: this.#lastAnswered, firstUnanswered: this.#unanswered[0]!.what });
    return this.#stopped;
  }

  /** The last request that got an answer. */
  get lastAnswered(): string | undefined {
    return this.#lastAnswered;
  }

  /** The stop's message, once the target stopped answering. */
  get stopped(): string | undefined {
    return this.#stopped;
  }
}
