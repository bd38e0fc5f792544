// Collects verdicts per check id while the areas run, and turns them into one result per check.
// Each area gets a view scoped to the ids it defines: a check is asserted by exactly one module.
import { KitError } from '../lib/errors.ts';
import type { CheckDef, Level, Profile } from './check-def.ts';
import { unreadReason, type Exchange } from './exchange.ts';
import { refusalAmong } from './refusal.ts';

export type Outcome = 'passed' | 'failed' | 'warned' | 'not-run';

export interface Failure {
  message: string;
  evidence: Exchange[];
  /** The rule of judge/rules/window-rules.js the failure breaks, when one does. */
  rule?: string;
  /** Other failures of this check with the same cause (the same causes, else the same message after the request it names), by message. */
  sameCause?: string[];
  /** What is wrong, apart from the answer it was seen on (`causeKey` of causes.ts): failures sharing a key share a cause. */
  causes?: string[];
  /** The other checks this failure's cause broke too, when it is reported here (causes.ts). */
  alsoBroke?: string[];
  /** The checks its causes are reported under, when each is reported under another check. */
  follows?: string[];
}

export interface CheckResult {
  id: string;
  level: Level;
  profile: Profile;
  section: string;
  title: string;
  outcome: Outcome;
  /** How many verdicts the check reached (passes and failures): a check that judged nothing did not run. */
  judged: number;
  /** How many of them were failures; `failures` keeps the first few. */
  failed: number;
  /**
   * How many times the check could not judge what it was given (an answer's body too large to read,
   * Dredd ended before reporting): without failures, the check is then not run, never passed.
   */
  unjudged?: number;
  failures: Failure[];
  /** Why a check did not run. */
  reason?: string;
  /** Notes worth showing even when it passed (e.g. "sent Prefer: code=404"). */
  notes: string[];
  /** Every failure of this check has a cause reported under these checks: it fails only through them. */
  followsFrom?: string[];
  /** Milliseconds the run spent on this check: the requests and judging that led to each of its verdicts (LedgerOptions.now). */
  durationMs?: number;
}

/** What a ledger is told besides its catalogue. */
export interface LedgerOptions {
  /**
   * A monotonic clock in ms: each check is charged the time from the previous verdict (or lap) to
   * its own, the requests and judging that led to it. Without it no check has a duration.
   */
  now?: () => number;
  /** Told each failure as it is recorded (--exitfirst stops the run at the first). */
  onFailure?: (id: string) => void;
}

/** Where the time since the last verdict goes: to the next check that records one. */
interface Stopwatch {
  now: () => number;
  mark: number;
}

/** What an area may do with the checks it defines. */
export interface CheckLedger {
  pass(id: string): void;
  /** `causes`: what is wrong apart from this answer (causes.ts), when the failure has such a cause. */
  fail(id: string, message: string, evidence?: Exchange[], rule?: string, causes?: readonly string[]): void;
  /** Records a pass or a failure; returns the condition so callers can stop early. */
  assert(id: string, condition: boolean, message: string, evidence?: Exchange[], causes?: readonly string[]): boolean;
  /**
   * Why the check did not run, unless something else is recorded for it. When the target refused a
   * request of `evidence` (401, 403, 429), the check could not judge: the refusal is no choice of the
   * user's, and the run must not report CONFORMS for it.
   */
  notRun(id: string, reason: string, evidence?: readonly Exchange[]): void;
  /** The check could not judge this (a body too large to read, a tool that died): never a pass, not a failure. */
  unjudged(id: string, reason: string): void;
  note(id: string, note: string): void;
  hasFailed(id: string): boolean;
}

/** A module recorded a verdict for a check it does not define, or one that does not exist. */
export class CheckScopeError extends KitError {
  constructor(message: string) {
    super('check-scope', message);
  }
}

interface State {
  passes: number;
  failed: number;
  failures: Failure[];
  notRun?: string;
  /** What could not be judged: the count, and the first reason. */
  unjudged: number;
  unjudgedReason?: string;
  notes: string[];
  ms: number;
}

const emptyState = (): State => ({ passes: 0, failed: 0, failures: [], unjudged: 0, notes: [], ms: 0 });

/** Why the first answer among a failure's evidence whose body was not read whole cannot be judged. */
function unreadBody(evidence: readonly Exchange[]): string | undefined {
  for (const ex of evidence) {
    const reason = ex.response && unreadReason(ex.response);
    if (reason) return `${ex.purpose}: ${reason}`;
  }
  return undefined;
}

const MAX_FAILURES_KEPT = 5;
const MAX_SAME_CAUSE_KEPT = 20;

/** What a failure says is wrong: its causes when it names them, else its message without the request it names ("list without a key: body/code …" → "body/code …"). */
function causeOf(message: string, causes: readonly string[] | undefined): string {
  if (causes?.length) return [...causes].sort().join('\n');
  const at = message.indexOf(': ');
  return at < 0 ? message : message.slice(at + 2);
}

/** Checked ids as a set, once per list: a judge that keeps a ledger per key scopes the same lists again and again. */
const OWN_IDS = new WeakMap<readonly CheckDef[], WeakMap<readonly string[], ReadonlySet<string>>>();

function ownIds(owner: string, ids: readonly string[], catalogue: readonly CheckDef[]): ReadonlySet<string> {
  let lists = OWN_IDS.get(catalogue);
  if (!lists) OWN_IDS.set(catalogue, (lists = new WeakMap()));
  const known = lists.get(ids);
  if (known) return known;
  for (const id of ids) if (!catalogue.some((c) => c.id === id)) throw new CheckScopeError(`${owner}: unknown check id ${id}`);
  const own = new Set(ids);
  lists.set(ids, own);
  return own;
}

export class Ledger {
  readonly #catalogue: readonly CheckDef[];
  readonly #state = new Map<string, State>();
  #halted: { reason: string; unjudged: boolean } | undefined;
  readonly #stopwatch: Stopwatch | undefined;
  readonly #onFailure: ((id: string) => void) | undefined;

  constructor(catalogue: readonly CheckDef[], options: LedgerOptions = {}) {
    this.#catalogue = catalogue;
    if (options.now) this.#stopwatch = { now: options.now, mark: options.now() };
    this.#onFailure = options.onFailure;
  }

  /** Time from now on goes to the next check that records a verdict, not to the last one (a new phase begins). */
  lap(): void {
    if (this.#stopwatch) this.#stopwatch.mark = this.#stopwatch.now();
  }

  /**
   * The run ended before its phases did: every check of the run without a failure is not run, with
   * `reason` (and what it had judged). `unjudged`: the run could not judge what it was asked to (the
   * target stopped answering), so a must check among them makes the run COULD NOT JUDGE.
   */
  halt(reason: string, options: { unjudged: boolean }): void {
    this.#halted ??= { reason, unjudged: options.unjudged };
  }

  /** The ledger as one module sees it: recording any id outside `ids` throws. */
  scope(owner: string, ids: readonly string[]): CheckLedger {
    return new ScopedLedger(owner, ownIds(owner, ids, this.#catalogue), this.#state, bodyFreeIds(this.#catalogue), this.#stopwatch, this.#onFailure);
  }

  results(options: { strict: boolean; selected: (def: CheckDef) => string | undefined }): CheckResult[] {
    return this.#catalogue.map((def) => {
      const state = this.#state.get(def.id) ?? emptyState();
      const skipped = options.selected(def);
      let outcome: Outcome;
      let reason: string | undefined;
      const outside = skipped !== undefined && state.passes === 0 && state.failures.length === 0;
      const halted = !outside && state.failures.length === 0 ? this.#halted : undefined;
      if (outside) {
        outcome = 'not-run';
        reason = skipped;
      } else if (halted) {
        // Whatever it judged before the run ended, it did not judge all it was asked to: never a pass.
        outcome = 'not-run';
        reason = `${halted.reason}${state.passes > 0 ? `; ${state.passes} judged and passed before that` : ''}`;
      } else if (state.failures.length > 0) {
        outcome = def.level === 'must' || options.strict ? 'failed' : 'warned';
      } else if (state.unjudged > 0) {
        // What was judged passed, but not all of it could be: a run that could not judge never reports a pass.
        outcome = 'not-run';
        const more = state.unjudged > 1 ? ` (and ${state.unjudged - 1} more not judged)` : '';
        reason = `could not judge: ${state.unjudgedReason}${more}${state.passes > 0 ? `; ${state.passes} judged and passed` : ''}`;
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
        judged: state.passes + state.failed,
        failed: state.failed,
        failures: state.failures,
        notes: state.notes,
      };
      // A check outside the run judged nothing it was asked to: what it could not judge changes no exit status.
      if (state.unjudged > 0 && !outside) result.unjudged = state.unjudged;
      else if (halted?.unjudged) result.unjudged = 1;
      if (reason !== undefined) result.reason = reason;
      if (this.#stopwatch) result.durationMs = Math.round(state.ms * 1000) / 1000;
      return result;
    });
  }
}

/** The ids of the checks that read only an answer's status and headers, once per catalogue. */
const BODY_FREE = new WeakMap<readonly CheckDef[], ReadonlySet<string>>();

function bodyFreeIds(catalogue: readonly CheckDef[]): ReadonlySet<string> {
  let ids = BODY_FREE.get(catalogue);
  if (!ids) BODY_FREE.set(catalogue, (ids = new Set(catalogue.filter((c) => c.reads === 'status-and-headers').map((c) => c.id))));
  return ids;
}

/** One module's view of a ledger; its methods live on the prototype, so a view costs one small object. */
class ScopedLedger implements CheckLedger {
  readonly #owner: string;
  readonly #own: ReadonlySet<string>;
  readonly #state: Map<string, State>;
  readonly #bodyFree: ReadonlySet<string>;
  readonly #stopwatch: Stopwatch | undefined;
  readonly #onFailure: ((id: string) => void) | undefined;

  constructor(
    owner: string,
    own: ReadonlySet<string>,
    state: Map<string, State>,
    bodyFree: ReadonlySet<string>,
    stopwatch?: Stopwatch,
    onFailure?: (id: string) => void,
  ) {
    this.#owner = owner;
    this.#own = own;
    this.#state = state;
    this.#bodyFree = bodyFree;
    this.#stopwatch = stopwatch;
    this.#onFailure = onFailure;
  }

  /** The check's state, charged the time since the last verdict recorded. */
  #record(id: string): State {
    const state = this.#get(id);
    const watch = this.#stopwatch;
    if (watch) {
      const now = watch.now();
      state.ms += now - watch.mark;
      watch.mark = now;
    }
    return state;
  }

  #get(id: string): State {
    if (!this.#own.has(id)) throw new CheckScopeError(`${this.#owner} recorded a verdict for ${id}, a check it does not define`);
    let state = this.#state.get(id);
    if (!state) {
      state = emptyState();
      this.#state.set(id, state);
    }
    return state;
  }

  pass(id: string): void {
    this.#record(id).passes++;
  }

  fail(id: string, message: string, evidence: Exchange[] = [], rule?: string, causes?: readonly string[]): void {
    const state = this.#record(id);
    // Every check reads bodies through one accessor that sees none not read whole (--max-body, a
    // proxy's --capture); what it then missed is no finding about the target. Checks of status and headers alone still judge.
    const unread = this.#bodyFree.has(id) ? undefined : unreadBody(evidence);
    if (unread) return this.unjudged(id, unread);
    state.failed++;
    this.#onFailure?.(id);
    // One cause, one failure: the same problem on another request joins the first one's.
    const cause = causeOf(message, causes);
    const first = state.failures.find((f) => f.rule === rule && causeOf(f.message, f.causes) === cause && f.evidence.length > 0);
    if (first) {
      // The first few are named; the rest only counted (state.failed), so a stream of one mistake stays small.
      if ((first.sameCause?.length ?? 0) < MAX_SAME_CAUSE_KEPT) (first.sameCause ??= []).push(message);
      return;
    }
    const failure: Failure = { message, evidence, ...(rule === undefined ? {} : { rule }), ...(causes?.length ? { causes: [...causes] } : {}) };
    if (state.failures.length < MAX_FAILURES_KEPT) state.failures.push(failure);
    else if (state.failures.length === MAX_FAILURES_KEPT) state.failures.push({ message: '(further failures not shown)', evidence: [] });
  }

  assert(id: string, condition: boolean, message: string, evidence: Exchange[] = [], causes?: readonly string[]): boolean {
    if (condition) this.pass(id);
    else this.fail(id, message, evidence, undefined, causes);
    return condition;
  }

  notRun(id: string, reason: string, evidence: readonly Exchange[] = []): void {
    const refused = refusalAmong(evidence);
    if (refused !== undefined) return this.unjudged(id, `${reason}: the target refused it: ${refused}`);
    this.#record(id).notRun ??= reason;
  }

  unjudged(id: string, reason: string): void {
    const state = this.#record(id);
    state.unjudged++;
    state.unjudgedReason ??= reason;
  }

  note(id: string, note: string): void {
    const state = this.#get(id);
    if (!state.notes.includes(note)) state.notes.push(note);
  }

  hasFailed(id: string): boolean {
    return this.#get(id).failures.length > 0;
  }
}
