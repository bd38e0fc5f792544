// runConformance: the programmatic API behind `npm run conform`. It runs the phases of the areas in
// conformance/checks/ (each sends the fewest requests that decide its checks), then lets every area
// inspect every exchange, and reports one result per check of the catalogue.
import { randomBytes } from 'node:crypto';
import { CATALOGUE, NEED_FLAGS, type CheckDef, type Profile } from './catalogue.ts';
import type { AreaContext, Phase, ProgressEvent, ResolvedOptions, RunContext } from './checks/area.ts';
import { AREAS } from './checks/index.ts';
import type { DreddOutcome } from './dredd.ts';
import { HttpClient, type Clock } from './http.ts';
import { Ledger, type CheckResult } from './ledger.ts';
import { DEFAULT_SPEC_PATH, loadContract } from './openapi.ts';
import { RUN_DEFAULTS } from './options.ts';

export { UnreachableError } from './http.ts';
export type { CheckResult, Outcome } from './ledger.ts';
export type { ProgressEvent } from './checks/area.ts';

export interface RunOptions {
  /** The prefix `/pets` is appended to, e.g. http://127.0.0.1:3000/v1. */
  baseUrl: string;
  apiKey: string;
  /** A key whose minute window the rate-limit checks may exhaust. Without it they do not run. */
  rateLimitKey?: string;
  profile?: Profile;
  /** Send Prism's `Prefer: code=NNN` where a stateless mock cannot pick the status itself (contract checks only). */
  prefer?: boolean;
  /** Run Dredd as part of the contract checks. */
  dredd?: boolean;
  /** Wait for Retry-After to check re-admission; false reports that check as not run. */
  wait?: boolean;
  /** Longest single wait the run accepts, in seconds. */
  maxWaitSeconds?: number;
  /** Also repeat requests after a 429 to see a temporary ban (needs rateLimitKey). */
  banCheck?: boolean;
  /** How many requests the ban check sends after the first 429. */
  banProbe?: number;
  /** Refuse to exhaust a window larger than this many requests. */
  maxRateLimitRequests?: number;
  /** Allowed disagreement between the kit's and the server's clocks, in seconds, where a response has no Date header. */
  clockToleranceSeconds?: number;
  timeoutMs?: number;
  strict?: boolean;
  specPath?: string;
  /**
   * The clock the run reads (default: the system clock). A test that passes the server's own clock
   * here (a ManualClock) also makes it the server's time: the Date header, which Node writes from the
   * real clock, is then ignored.
   */
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
  onProgress?: (event: ProgressEvent) => void;
}

export interface Counts {
  passed: number;
  failed: number;
  warned: number;
  notRun: number;
}

export interface Report {
  target: string;
  profile: Profile;
  strict: boolean;
  startedAt: string;
  durationMs: number;
  requests: number;
  results: CheckResult[];
  counts: Counts;
  /** 0 when no check failed, 1 otherwise. */
  exitCode: 0 | 1;
  dredd?: DreddOutcome;
  /** Checks that sent Prism's Prefer header. */
  preferUsed: string[];
}

interface PhasePlan {
  phase: Phase;
  title: string;
  runs: (options: ResolvedOptions) => boolean;
}

const PHASES: readonly PhasePlan[] = [
  { phase: 'contract', title: 'contract: status codes, headers, bodies, auth', runs: () => true },
  { phase: 'dredd', title: 'Dredd 14 over the derived description', runs: (o) => o.dredd },
  { phase: 'behaviour', title: 'full: behaviour (auth, persistence, limit, status, pagination)', runs: (o) => o.profile === 'full' },
  { phase: 'rate-limit', title: 'rate limits: exhausting the window of --rate-limit-key', runs: (o) => o.profile === 'full' && o.rateLimitKey !== undefined },
];

export function resolveOptions(input: RunOptions): ResolvedOptions {
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<RunOptions>;
  const { clock: _clock, sleep: _sleep, onProgress: _onProgress, rateLimitKey, ...rest } = given;
  return {
    ...RUN_DEFAULTS,
    specPath: DEFAULT_SPEC_PATH,
    dateHeader: input.clock === undefined,
    ...rest,
    ...(rateLimitKey ? { rateLimitKey } : {}),
  } as ResolvedOptions;
}

/** Why a check is outside this run, or undefined when it is in it. */
function outside(options: ResolvedOptions) {
  return (def: CheckDef): string | undefined => {
    if (def.profile === 'full' && options.profile === 'contract') return 'behaviour check: not part of the contract profile';
    const needs = def.needs ?? [];
    if (needs.includes('dredd') && !options.dredd) return 'Dredd was disabled (--no-dredd)';
    if (needs.includes('rate-limit-key') && !options.rateLimitKey) return `needs ${NEED_FLAGS['rate-limit-key']} (a key whose window the kit may exhaust)`;
    if (needs.includes('ban-check') && !options.banCheck) return `needs ${NEED_FLAGS['ban-check']}`;
    return undefined;
  };
}

function count(results: readonly CheckResult[]): Counts {
  const counts: Counts = { passed: 0, failed: 0, warned: 0, notRun: 0 };
  for (const r of results) {
    if (r.outcome === 'passed') counts.passed++;
    else if (r.outcome === 'failed') counts.failed++;
    else if (r.outcome === 'warned') counts.warned++;
    else counts.notRun++;
  }
  return counts;
}

export async function runConformance(input: RunOptions): Promise<Report> {
  const options = resolveOptions(input);
  const clock = input.clock ?? { now: () => Date.now() };
  const started = Date.now();
  const ledger = new Ledger(CATALOGUE);
  const run: RunContext = {
    http: new HttpClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, clock, timeoutMs: options.timeoutMs }),
    contract: await loadContract(options.specPath),
    options,
    clock,
    sleep: input.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    progress: input.onProgress ?? (() => {}),
    token: randomBytes(4).toString('hex'),
    preferUsed: [],
    facts: {},
  };
  // Each area records verdicts only for the checks it defines.
  const areas = AREAS.map((area) => ({ area, ctx: { ...run, ledger: ledger.scope(area.name, area.checks.map((c) => c.id)) } satisfies AreaContext }));

  for (const plan of PHASES.filter((p) => p.runs(options))) {
    run.progress({ type: 'phase', name: plan.title });
    for (const { area, ctx } of areas) await area.phases?.[plan.phase]?.(ctx);
  }
  for (const exchange of run.http.exchanges) {
    for (const { area, ctx } of areas) area.inspect?.(exchange, ctx);
  }

  const results = ledger.results({ strict: options.strict, selected: outside(options) });
  const counts = count(results);
  const dredd = run.facts.dredd;
  return {
    target: options.baseUrl,
    profile: options.profile,
    strict: options.strict,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    requests: run.http.exchanges.length + (dredd?.transactions.filter((t) => t.status !== 'skip').length ?? 0),
    results,
    counts,
    exitCode: counts.failed > 0 ? 1 : 0,
    preferUsed: [...new Set(run.preferUsed)],
    ...(dredd ? { dredd } : {}),
  };
}
