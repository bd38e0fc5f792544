// What an area of checks is, and what it is given. An area defines its checks and records verdicts
// only for them (its ledger refuses any other id). It may send requests in the run's phases, and
// may inspect every exchange the run made once the phases are over (Schemathesis-like: a check of
// one response is a function of the exchange and the context).
import type { DreddOutcome } from '../dredd/run.ts';
import type { HttpClient } from '../http.ts';
import type { Clock, Exchange } from '../../judge/exchange.ts';
import type { RequestBudget } from '../generate/budget.ts';
import type { CheckLedger } from '../../judge/ledger.ts';
import type { Contract } from '../../judge/contract.ts';
import type { CheckedRunOptions } from '../options.ts';
import type { Pacer } from '../pacing.ts';
import type { TlsSettings } from '../../lib/tls.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import type { InspectContext, LiveChecks } from '../../judge/checks/inspect.ts';

export type { InspectContext };
import type { GeneratedPhase } from '../../judge/phases.ts';

export type Phase = 'contract' | 'dredd' | 'behaviour' | GeneratedPhase | 'rate-limit' | 'concurrency' | 'model';

export type ProgressEvent =
  | { type: 'phase'; name: string }
  | { type: 'request'; exchange: Exchange }
  | { type: 'wait'; ms: number; why: string }
  | { type: 'dredd'; outcome: DreddOutcome }
  | { type: 'note'; text: string };

/**
 * The run's options with every default applied and every value checked (resolveOptions): the
 * table's values (options.ts), with --ca and --insecure as one TLS setting and --checks and
 * --exclude-checks as one selection.
 */
export type ResolvedOptions = Omit<CheckedRunOptions, 'ca' | 'insecure' | 'checks' | 'excludeChecks' | 'seed'> & {
  /** Seed of the generated inputs: the one given, else a random one (the report names it). */
  seed: number;
  /** Whether a response's Date header is the server's clock (not when a test injects the server's own clock). */
  dateHeader: boolean;
  tls: TlsSettings;
  /** Whether a check is in the run (--checks, --exclude-checks). */
  selected: (id: string) => boolean;
};

/** What one area leaves for another. */
export interface Facts {
  list?: Exchange;
  /** The valid pet the contract phase created, and its id when the 201 gave one. */
  created?: { sent: { name: string; categoryId: number; status: string }; exchange: Exchange; id?: number };
  /** An id that exists: the created pet's, else the first listed. */
  knownId?: number;
  getCreated?: Exchange;
  notFound?: { exchange: Exchange; preferred: boolean };
  dredd?: DreddOutcome;
  /** The preflight's GET /pets without Authorization. */
  keyless?: Exchange;
  /** The preflight's GET /pets with --rate-limit-key, the first request the run sent with it. */
  rateLimitKeyAtStart?: Exchange;
  /** Names carried by invalid bodies the generated phases sent, with the exchange that sent each. */
  markers?: Map<string, Exchange>;
  /** Ids of the pets the generated phases created. */
  createdIds?: Map<number, Exchange>;
  /** What the target was seen to choose where the specification is silent, by open point. */
  choices?: Map<string, string>;
  /** The window rules' verdict on --rate-limit-key: every later request sent with that key goes through it (observeBatch for requests sent at once). */
  rateLimitVerdict?: import('../../judge/rate-limit-verdict.ts').RateLimitVerdict;
}

export interface RunContext {
  http: HttpClient;
  contract: Contract;
  options: ResolvedOptions;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  /** Waits on the run's clock and says why (the console shows a countdown). */
  wait: (ms: number, why: string) => Promise<void>;
  /** Every wait so far, with what it waited for. */
  waits: Array<{ ms: number; why: string }>;
  progress: (event: ProgressEvent) => void;
  pacer: Pacer;
  /** What the generated phases may still send (--max-requests). */
  budget: RequestBudget;
  /** Unique to this run, so the pets it creates are its own. */
  token: string;
  /** Checks that sent Prism's Prefer header. */
  preferUsed: string[];
  facts: Facts;
}

export interface AreaContext extends RunContext {
  ledger: CheckLedger;
}

export interface Area {
  name: string;
  checks: readonly CheckDef[];
  phases?: Partial<Record<Phase, (ctx: AreaContext) => Promise<void>>>;
  inspect?: (exchange: Exchange, ctx: AreaContext) => void;
  /** After every area has inspected every exchange: verdicts that need the whole run. */
  finish?: (ctx: AreaContext) => void;
}

/** An area whose inspect judges one exchange with nothing but the contract: the judge's live checks, driven by conform. */
export type LiveArea = Area & LiveChecks;
