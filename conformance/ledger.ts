// Collects verdicts per check id while the groups run, and turns them into one result per check.
import { CATALOGUE, type CheckDef, type Level, type Profile } from './catalogue.ts';
import type { Exchange } from './http.ts';

export type Outcome = 'passed' | 'failed' | 'warned' | 'not-run';

export interface Failure {
  message: string;
  evidence: Exchange[];
}

export interface CheckResult {
  id: string;
  level: Level;
  profile: Profile;
  section: string;
  title: string;
  outcome: Outcome;
  failures: Failure[];
  /** Why a check did not run. */
  reason?: string;
  /** Notes worth showing even when it passed (e.g. "sent Prefer: code=404"). */
  notes: string[];
}

interface State {
  passes: number;
  failures: Failure[];
  notRun?: string;
  notes: string[];
}

const MAX_FAILURES_KEPT = 5;

export class Ledger {
  readonly #state = new Map<string, State>();

  #get(id: string): State {
    if (!CATALOGUE.some((c) => c.id === id)) throw new Error(`unknown check id ${id}`);
    let state = this.#state.get(id);
    if (!state) {
      state = { passes: 0, failures: [], notes: [] };
      this.#state.set(id, state);
    }
    return state;
  }

  pass(id: string): void {
    this.#get(id).passes++;
  }

  fail(id: string, message: string, evidence: Exchange[] = []): void {
    const state = this.#get(id);
    if (state.failures.length < MAX_FAILURES_KEPT) state.failures.push({ message, evidence });
    else if (state.failures.length === MAX_FAILURES_KEPT) state.failures.push({ message: '(further failures not shown)', evidence: [] });
  }

  /** Records a pass or a failure; returns the condition so callers can stop early. */
  assert(id: string, condition: boolean, message: string, evidence: Exchange[] = []): boolean {
    if (condition) this.pass(id);
    else this.fail(id, message, evidence);
    return condition;
  }

  notRun(id: string, reason: string): void {
    const state = this.#get(id);
    state.notRun ??= reason;
  }

  note(id: string, note: string): void {
    const state = this.#get(id);
    if (!state.notes.includes(note)) state.notes.push(note);
  }

  hasFailed(id: string): boolean {
    return (this.#state.get(id)?.failures.length ?? 0) > 0;
  }

  results(options: { strict: boolean; selected: (def: CheckDef) => string | undefined }): CheckResult[] {
    return CATALOGUE.map((def) => {
      const state = this.#state.get(def.id) ?? { passes: 0, failures: [], notes: [] };
      const skipped = options.selected(def);
      let outcome: Outcome;
      let reason: string | undefined;
      if (skipped !== undefined && state.passes === 0 && state.failures.length === 0) {
        outcome = 'not-run';
        reason = skipped;
      } else if (state.failures.length > 0) {
        outcome = def.level === 'must' || options.strict ? 'failed' : 'warned';
      } else if (state.passes > 0) {
        outcome = 'passed';
      } else {
        outcome = 'not-run';
        reason = state.notRun ?? 'nothing to check';
      }
      const result: CheckResult = {
        id: def.id,
        level: def.level,
        profile: def.profile,
        section: def.section,
        title: def.title,
        outcome,
        failures: state.failures,
        notes: state.notes,
      };
      if (reason !== undefined) result.reason = reason;
      return result;
    });
  }
}
