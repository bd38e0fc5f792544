// A ledger view that tells of each failure as it is recorded: the judge hears of a finding the
// moment a check fails, without the checks knowing a judge is listening.
import type { CheckLedger, Exchange } from '../judge/index.ts';
import { slim } from './sample.ts';

/** A ledger view that tells of each failure as it is recorded; a class, so a key's views cost no closures. */
export class TellingLedger implements CheckLedger {
  readonly #view: CheckLedger;
  readonly #told: (id: string, message: string, rule?: string) => void;

  constructor(view: CheckLedger, told: (id: string, message: string, rule?: string) => void) {
    this.#view = view;
    this.#told = told;
  }

  pass(id: string): void {
    this.#view.pass(id);
  }

  fail(id: string, message: string, evidence: Exchange[] = [], rule?: string): void {
    // The ledger keeps the first failures' evidence for the reports: slimmed, as the sample keeps its
    // exchanges, or each key would hold up to --capture bytes of two bodies per kept failure.
    this.#view.fail(id, message, evidence.map(slim), rule);
    this.#told(id, message, rule);
  }

  assert(id: string, condition: boolean, message: string, evidence: Exchange[] = []): boolean {
    if (condition) this.#view.pass(id);
    else this.fail(id, message, evidence);
    return condition;
  }

  notRun(id: string, reason: string): void {
    this.#view.notRun(id, reason);
  }

  unjudged(id: string, reason: string): void {
    this.#view.unjudged(id, reason);
  }

  note(id: string, note: string): void {
    this.#view.note(id, note);
  }

  hasFailed(id: string): boolean {
    return this.#view.hasFailed(id);
  }
}
