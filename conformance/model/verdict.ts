// The model phase's history judged whole, by the judging core: every answer by the musts one answer
// shows (the input it was sent, the judge's live checks), each key's answers by the window rules under
// every allowed reading (all spellings of a key as the one key they are), the store by linearizability.
// Verdicts go into a collector, not the run's ledger: shrinking judges many parts of one history.
import { judgeStoreHistory } from '../../judge/history/store-history.ts';
import { describeStatus, header, status } from '../../judge/answers.ts';
import { parseInteger } from '../../spec/rules/fields.js';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';
import type { Contract } from '../../judge/contract.ts';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import type { CheckLedger } from '../../judge/ledger.ts';
import { JUDGE_CHECKS, LIVE_CHECKS } from '../../judge/checks/index.ts';
import { isRefusal, rateLimitVerdict } from '../../judge/rate-limit-verdict.ts';
import type { Profile } from '../../judge/check-def.ts';
import { inputArea } from '../checks/input.ts';
import { judge as judgeInput } from '../checks/input-judge.ts';
import type { Execution, Sent } from './execute.ts';
import { describeCredentials, type KeyRole } from './program.ts';

// Musts only: the shoulds of the same answers are the hand-written checks', which judge every
// exchange of the run, the model's included, and know the choices a target declared.
export const MODEL_CHECK = {
  answers: 'model.answers',
  windows: 'model.window-admissible',
  store: 'history.linearizable',
} as const;
export type ModelCheck = (typeof MODEL_CHECK)[keyof typeof MODEL_CHECK];

export interface ModelFinding {
  check: ModelCheck;
  message: string;
  exchanges: Exchange[];
  /** What is wrong apart from this answer (judge/causes.ts): a header missing everywhere is one cause, however many checks it fails. */
  causes?: readonly string[];
}

export interface ModelVerdict {
  findings: ModelFinding[];
  /** Checks that judged something and found it right. */
  judged: Set<ModelCheck>;
}

export interface VerdictOptions {
  contract: Contract;
  profile: Profile;
  dateHeader: boolean;
  clockToleranceSeconds: number;
}

/** The level of each check whose verdicts the model takes over: the judge's and the generated inputs'. */
const LEVEL = new Map([...JUDGE_CHECKS, ...inputArea.checks].map((c) => [c.id, c.level]));

/** A ledger whose must-level verdicts become `into`'s, the check named in the message; its shoulds are left to the run's own checks. */
function collector(verdict: ModelVerdict, into: ModelCheck): CheckLedger {
  const must = (id: string) => LEVEL.get(id) !== 'should';
  return {
    pass: (id) => void (must(id) && verdict.judged.add(into)),
    fail: (id, message, evidence = [], _rule, causes) =>
      void (must(id) && verdict.findings.push({ check: into, message: `${id}: ${message}`, exchanges: evidence, ...(causes ? { causes } : {}) })),
    assert(id, condition, message, evidence = [], causes) {
      if (condition) this.pass(id);
      else this.fail(id, message, evidence, undefined, causes);
      return condition;
    },
    notRun: () => {},
    unjudged: () => {},
    note: () => {},
    hasFailed: () => verdict.findings.some((f) => f.check === into),
  };
}

/** What one answer says, the limiter aside: its input's expectation (generate/cases.ts) and who it was sent as. */
function judgeAnswer(s: Sent & { exchange: Exchange }, verdict: ModelVerdict): void {
  const { step, exchange } = s;
  const code = status(exchange);
  const what = `step ${step.id} (${step.label}, ${describeCredentials(step.credentials)})`;
  const fail = (message: string): void => void verdict.findings.push({ check: MODEL_CHECK.answers, message: `${what}: ${message}`, exchanges: [exchange] });
  if (code === undefined) return fail(describeStatus(exchange));
  if (code >= 500) return fail(`answered ${code}: a server error for a request the specification answers`);
  if ('invalid' in step.credentials) {
    // No key: 401, or a limit on requests without one (an address's) refusing first.
    if (code === 401 || code === 429) return void verdict.judged.add(MODEL_CHECK.answers);
    return fail(`answered ${code}; a request without a valid key is answered 401`);
  }
  // The limiter's refusals are judged by the window rules.
  if (isRefusal(exchange)) return;
  // A method the description does not give the path: only never a 5xx (above); its 405 and Allow are methods.405's, a should.
  if (step.request.op === 'other') return void verdict.judged.add(MODEL_CHECK.answers);
  if (code === 401 && 'spelling' in step.credentials && step.credentials.spelling === 'two-spaces') return;
  if (code === 401)
    return fail(`answered 401 to a valid key: the scheme is case-insensitive and one or more spaces may follow it (RFC 9110 §11.1, RFC 6750 §2.1)`);
  if (exchange.request.method === 'HEAD') {
    const e = step.expect;
    // What GET's answer may be at should level only (a decision of the reference's) binds HEAD no more.
    const ok =
      e.level === 'should' || (e.valid ? e.success.includes(code) : (code >= 400 && code < 500) || (e.servedAtMost !== undefined && code >= 200 && code < 300));
    if (ok) return void verdict.judged.add(MODEL_CHECK.answers);
    return fail(`HEAD answered ${code}, where GET's answer would be ${e.valid ? e.success.join(' or ') : 'a 4xx'} (RFC 9110 §9.3.2)`);
  }
  const kept = keptAsSent(s);
  if (kept) return fail(kept);
  const judgement = judgeInput(step.expect, exchange, what);
  if (judgement.passed.some((id) => LEVEL.get(id) !== 'should')) verdict.judged.add(MODEL_CHECK.answers);
  if (judgement.problem && LEVEL.get(judgement.problem.check) !== 'should')
    verdict.findings.push({ check: MODEL_CHECK.answers, message: judgement.problem.message, exchanges: [exchange] });
}

/** A walk's page whose next link leads back to a page the walk has read: the walk never ends (list.next-link's must). */
function judgeWalks(sent: ReadonlyArray<Sent & { exchange: Exchange }>, verdict: ModelVerdict): void {
  const pages = new Map<number, Array<Sent & { exchange: Exchange }>>();
  for (const s of sent) {
    const r = s.step.request;
    const walk = r.op === 'next' ? r.walk : r.op === 'list' ? r.walk : undefined;
    if (walk !== undefined) pages.set(walk, [...(pages.get(walk) ?? []), s]);
  }
  for (const walk of pages.values()) {
    const seen = new Set<string>();
    for (const page of walk.sort((a, b) => a.step.id - b.step.id)) {
      const url = page.exchange.request.url;
      if (seen.has(url)) {
        verdict.findings.push({
          check: MODEL_CHECK.answers,
          message: `step ${page.step.id}: the walk of step ${walk[0]!.step.id} was led back to a page it had read (${new URL(url).search || 'the first page'}) by Link rel="next": the walk never ends`,
          exchanges: walk.filter((p) => p.step.id <= page.step.id).map((p) => p.exchange),
        });
        break;
      }
      seen.add(url);
    }
  }
}

/** A create answered 2xx whose pet is not the one sent: a Pet is all the fields of NewPet, plus id (Resources › Pet). */
function keptAsSent({ step, exchange, name }: Sent & { exchange: Exchange }): string | undefined {
  const r = step.request;
  const code = exchange.response?.status ?? 0;
  if (r.op !== 'create' || 'raw' in r.body || code < 200 || code >= 300) return undefined;
  const sent = r.body.json as Record<string, unknown> | null;
  const pet = jsonBody(exchange) as Record<string, unknown> | undefined;
  if (!sent || typeof sent !== 'object' || Array.isArray(sent) || !pet || typeof pet !== 'object') return undefined;
  const fields: Record<string, unknown> = { ...sent, ...(name !== undefined ? { name } : {}) };
  for (const field of ['name', 'categoryId', 'status']) {
    if (!(field in fields)) continue;
    if (JSON.stringify(pet[field]) !== JSON.stringify(fields[field]))
      return `answered ${code} with ${field} ${JSON.stringify(pet[field])} where ${JSON.stringify(fields[field])} was sent: the pet created is not the one sent`;
  }
  return undefined;
}

/**
 * One key's answers through the window rules, each round's as one batch (decided in any order): a
 * round's requests were in flight together, and all were answered before the next round's left.
 */
function judgeWindow(sent: ReadonlyArray<Sent & { exchange: Exchange }>, ledger: CheckLedger, options: VerdictOptions): void {
  const verdict = rateLimitVerdict(ledger, { tolerances: { clockSkewSeconds: options.clockToleranceSeconds }, dateHeader: options.dateHeader });
  const rounds = new Map<number, Array<Sent & { exchange: Exchange }>>();
  for (const s of sent) if (s.exchange.response) rounds.set(s.round, [...(rounds.get(s.round) ?? []), s]);
  // Within a round the server decided in an order no answer states: the order its Remaining values
  // tell, refusals last. An answer the limiter may not have counted has no place the rules can trust
  // (arrange() puts it first): they take it as decided anywhere in the round (window-count.js).
  const remaining = (s: Sent & { exchange: Exchange }) => parseInteger(header(s.exchange, LOWER_HEADERS.rateLimitRemaining)) ?? -1;
  for (const round of [...rounds.keys()].sort((a, b) => a - b)) {
    const ordered = rounds.get(round)!.sort((a, b) => remaining(b) - remaining(a) || a.exchange.seq - b.exchange.seq);
    verdict.observeBatch(ordered.map(countable));
  }
}

/**
 * An answer that is neither admitted (2xx) nor refused by the limiter (a 400, a 404): whether the
 * limiter counted it the specification does not say, so the window rules get it as a request that may
 * or may not have been counted, as one without an answer.
 */
function countable({ exchange: ex, step }: Sent & { exchange: Exchange }): Exchange {
  const code = ex.response?.status ?? 0;
  // A method the description does not give the path is outside what the headers are promised on; it may still be counted.
  if (step.request.op !== 'other' && ((code >= 200 && code < 300) || isRefusal(ex))) return ex;
  const { response: _, ...rest } = ex;
  return { ...rest, error: `answered ${code}: whether the limiter counted it, the specification does not say` };
}

/** The families of checks the history is judged by: shrinking judges only the family of the failure it shrinks. */
export type Family = 'answers' | 'windows' | 'store';

export const FAMILY_OF: Readonly<Record<ModelCheck, Family>> = {
  'model.answers': 'answers',
  'model.window-admissible': 'windows',
  'history.linearizable': 'store',
};

/** The whole history's verdict (or one family's); the pets judged by name are those whose names carry the execution's namespace. */
export function judgeExecution(execution: Execution, options: VerdictOptions, only?: Family): ModelVerdict {
  const verdict: ModelVerdict = { findings: [], judged: new Set() };
  const sent = execution.sent.filter((s): s is Sent & { exchange: Exchange } => s.exchange !== undefined);
  if (only === undefined || only === 'answers') {
    judgeWalks(sent, verdict);
    const live = collector(verdict, MODEL_CHECK.answers);
    for (const s of sent) {
      judgeAnswer(s, verdict);
      for (const area of LIVE_CHECKS) area.inspect(s.exchange, { ledger: live, contract: options.contract, options: { profile: options.profile } });
    }
  }
  if (only === undefined || only === 'windows') {
    const windows = collector(verdict, MODEL_CHECK.windows);
    const byKey = new Map<KeyRole, Array<Sent & { exchange: Exchange }>>();
    for (const s of sent) {
      if ('key' in s.step.credentials) byKey.set(s.step.credentials.key, [...(byKey.get(s.step.credentials.key) ?? []), s]);
    }
    for (const ofKey of byKey.values()) judgeWindow(ofKey, windows, options);
  }
  if (only === undefined || only === 'store') {
    const ours = `${execution.namespace}-`;
    const store = judgeStoreHistory(
      sent.map((s) => s.exchange),
      { tracked: (name) => name.startsWith(ours) },
    );
    for (const f of store) verdict.findings.push({ check: MODEL_CHECK.store, message: `${f.rule}: ${f.message}`, exchanges: f.exchanges });
    if (sent.some((s) => s.step.request.op !== 'create') && sent.some((s) => s.step.request.op === 'create')) verdict.judged.add(MODEL_CHECK.store);
  }
  return verdict;
}
