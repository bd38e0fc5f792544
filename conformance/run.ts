// runConformance: the programmatic API behind `npm run conform`. A preflight, then the phases of the
// areas in conformance/checks/, then every area inspects every exchange: one result per check of
// the catalogue.
import { randomBytes, randomInt } from 'node:crypto';
import { checkOptions } from '../lib/cli-options.ts';
import { UsageError } from '../lib/errors.ts';
import { CATALOGUE, checkIdsProblem, checkSelector, NEED_FLAGS, type CheckDef, type Profile } from './catalogue.ts';
import type { Area, AreaContext, ProgressEvent, ResolvedOptions, RunContext } from './checks/area.ts';
import { AREAS } from './checks/index.ts';
import { PHASES } from './phase-plan.ts';
import type { DreddOutcome } from './dredd/run.ts';
import { RequestBudget } from './generate/budget.ts';
import { HttpClient } from './http.ts';
import { keyLabel } from '../spec/rules/redact.js';
import { groupCauses, type SharedCause } from '../judge/causes.ts';
import { Ledger, LIVE_CHECKS, loadContract, type CheckResult, type Clock, type Exchange } from '../judge/index.ts';
import { redactedProgress, redactReport, runKeys } from './report/redact.ts';
import type { Timeline } from '../spec/rules/timeline-svg.js';
import { OPTIONAL_PHASES, RUN_OPTIONS, type CheckedRunOptions, type OptionalPhase, type RunOptionValues } from './options.ts';
import { Pacer, type Attribution } from './pacing.ts';
import { preflight } from './preflight.ts';
import { ExitFirstError, RunHalted, TargetStoppedError } from './silence.ts';
import { DEFAULT_CONNECTIONS } from './transport.ts';

export { TlsError, UnreachableError } from './http.ts';
export { RateLimitedError } from './pacing.ts';
export { PreflightError } from './preflight.ts';
export type { CheckResult, Outcome } from '../judge/ledger.ts';
export type { ProgressEvent } from './checks/area.ts';

/** What a run is given besides its options: the clock, how to wait, where progress goes. */
export interface RunHooks {
  /**
   * The clock the run reads (default: the system clock). A test that passes the server's own clock
   * here (a ManualClock) also makes it the server's time: the Date header, which Node writes from the
   * real clock, is then ignored.
   */
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
  onProgress?: (event: ProgressEvent) => void;
}

/**
 * What runConformance takes: the options of the table in options.ts by their keys (baseUrl and
 * apiKey required, every other one defaulted), and the hooks. conformance/README.md lists them.
 */
export type RunOptions = RunOptionValues & RunHooks;

export interface Counts {
  passed: number;
  failed: number;
  warned: number;
  notRun: number;
  /** Of the checks not run, those that could not judge what they were given (a body past --max-body, Dredd ended early). */
  unjudged: number;
  /** Distinct causes of the failed checks' failures (causes.ts): fewer than `failed` when one cause failed several checks. */
  causes?: number;
}

/** 0 conforms, 1 does not conform, 2 the run could not judge (a must check, or any with --strict, with nothing failed). */
export type ExitCode = 0 | 1 | 2;

/** The verdict each exit code of a finished run stands for. */
export const VERDICT: Readonly<Record<ExitCode, string>> = { 0: 'CONFORMS', 1: 'DOES NOT CONFORM', 2: 'COULD NOT JUDGE' };

export interface Report {
  target: string;
  profile: Profile;
  strict: boolean;
  startedAt: string;
  durationMs: number;
  requests: number;
  results: CheckResult[];
  counts: Counts;
  /** Causes that failed more than one check, each reported under one of them (causes.ts). */
  causes?: SharedCause[];
  /** 1 when a check failed; else 2 when a must check (any check with --strict) could not judge; else 0. */
  exitCode: ExitCode;
  dredd?: DreddOutcome;
  /** Checks that sent Prism's Prefer header. */
  preferUsed: string[];
  /** Seed of the generated inputs: `--seed` with it replays them. */
  seed: number;
  phases: readonly OptionalPhase[];
  /** Requests the generated phases sent, and how many more they wanted beyond --max-requests. */
  generated: { sent: number; leftOut: number };
  /**
   * 429s the kit met, attributed to the budget that refused them, and every wait of the run (for a
   * window, a Retry-After or a ban), each with what it waited for; waitedMs is their sum.
   */
  pacing: { attributed: Array<Attribution & { seq: number }>; waitedMs: number; waits: Array<{ ms: number; why: string }> };
  /** What the target was seen to choose at the points the specification leaves open. */
  choices: Record<string, string>;
  /** The rate-limit key's responses as the window rules saw them (the HTML report draws them), when the rate-limit checks ran. */
  timeline?: Timeline;
  /** Why the run ended before its phases did (the target stopped answering, --exitfirst); its checks without a failure are not run. */
  stopped?: string;
}

const HOOKS: ReadonlySet<string> = new Set(['clock', 'sleep', 'onProgress'] satisfies Array<keyof RunHooks>);

/** The rules that relate two options to each other; each option's own rule is in the table. */
function relationsProblem(o: CheckedRunOptions): string | undefined {
  if (o.banCheck && !o.rateLimitKey) return '--ban-check needs --rate-limit-key';
  if (o.hookfiles.length > 0 && !o.dredd) return '--hookfiles are loaded by the Dredd run, which --no-dredd leaves out';
  if (o.rateLimitKey && o.profile === 'contract') return '--rate-limit-key applies to the full profile only';
  if (o.replay !== undefined && o.profile === 'contract') return '--replay sends a history of the model phase, which the full profile runs';
  if (o.rateLimitKey !== undefined && o.rateLimitKey === o.apiKey)
    return '--rate-limit-key is the same key as --api-key: the rate-limit checks exhaust it (and may get it banned) while the other checks need it; give --rate-limit-key a key of its own';
  return undefined;
}

/**
 * The one validation of a run's options, whether they came from the command line, a config file or
 * code. The check ids are checked here, not in the options table, which sits below the catalogue. A
 * problem is a UsageError naming the flag.
 */
export function resolveOptions(input: RunOptions): ResolvedOptions {
  const values = Object.fromEntries(Object.entries(input).filter(([key, v]) => v !== undefined && !HOOKS.has(key)));
  const unknown = Object.keys(values).filter((key) => !RUN_OPTIONS.some((spec) => spec.key === key));
  if (unknown.length > 0)
    throw new UsageError(`unknown option ${unknown.map((k) => JSON.stringify(k)).join(', ')} (options go by the keys conformance/README.md lists)`);
  const checked = checkOptions(RUN_OPTIONS, values) as CheckedRunOptions;
  const problem = checkIdsProblem('checks', checked.checks) ?? checkIdsProblem('exclude-checks', checked.excludeChecks) ?? relationsProblem(checked);
  if (problem !== undefined) throw new UsageError(problem);
  const { ca, insecure, checks, excludeChecks, seed, ...rest } = checked;
  return {
    ...rest,
    seed: seed ?? randomInt(0, 2 ** 31),
    dateHeader: input.clock === undefined,
    tls: { ...(ca ? { ca } : {}), insecure },
    selected: checkSelector(CATALOGUE, checks, excludeChecks).selected,
  };
}

/** Why a check is outside this run, or undefined when it is in it. */
function outside(options: ResolvedOptions) {
  return (def: CheckDef): string | undefined => {
    if (!options.selected(def.id)) return 'left out (--checks / --exclude-checks)';
    if (def.profile === 'full' && options.profile === 'contract') return 'behaviour check: not part of the contract profile';
    const needs = def.needs ?? [];
    if (needs.includes('dredd') && !options.dredd) return 'Dredd was disabled (--no-dredd)';
    if (needs.includes('rate-limit-key') && !options.rateLimitKey) return `needs ${NEED_FLAGS['rate-limit-key']} (a key whose window the kit may exhaust)`;
    if (needs.includes('ban-check') && !options.banCheck) return `needs ${NEED_FLAGS['ban-check']}`;
    if (needs.includes('max-response-time') && options.maxResponseTimeMs === undefined) return `off: needs ${NEED_FLAGS['max-response-time']}`;
    const phase = needs.find((n): n is OptionalPhase => (OPTIONAL_PHASES as readonly string[]).includes(n));
    if (phase && !options.phases.includes(phase)) return `the ${phase} phase is off (--phases)`;
    return undefined;
  };
}

function count(results: readonly CheckResult[]): Counts {
  const counts: Counts = { passed: 0, failed: 0, warned: 0, notRun: 0, unjudged: 0 };
  for (const r of results) {
    if (r.outcome === 'passed') counts.passed++;
    else if (r.outcome === 'failed') counts.failed++;
    else if (r.outcome === 'warned') counts.warned++;
    else {
      counts.notRun++;
      if (r.unjudged !== undefined) counts.unjudged++;
    }
  }
  return counts;
}

/** A failure is a finding, whatever else could not be judged; a must check that could not judge leaves the run unjudged, never conforming. */
function exitCodeOf(results: readonly CheckResult[], strict: boolean): ExitCode {
  if (results.some((r) => r.outcome === 'failed')) return 1;
  if (results.some((r) => r.outcome === 'not-run' && r.unjudged !== undefined && (r.level === 'must' || strict))) return 2;
  return 0;
}

function context(options: ResolvedOptions, input: RunHooks, contract: RunContext['contract']): RunContext {
  const clock = input.clock ?? { now: () => Date.now() };
  const sleep = input.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const progress = redactedProgress(input.onProgress ?? (() => {}), runKeys(options));
  const waits: Array<{ ms: number; why: string }> = [];
  const wait = async (ms: number, why: string) => {
    if (ms <= 0) return;
    waits.push({ ms, why });
    progress({ type: 'wait', ms, why });
    await sleep(ms);
  };
  const http = new HttpClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    clock,
    timeoutMs: options.timeoutMs,
    headers: options.headers,
    tls: options.tls,
    // --clients requests of the concurrency phase are really in flight together.
    connections: Math.max(DEFAULT_CONNECTIONS, options.clients),
    secrets: { CONFORMANCE_API_KEY: options.apiKey, CONFORMANCE_RATE_LIMIT_KEY: options.rateLimitKey },
    maxBodyBytes: options.maxBodyBytes,
  });
  const pacer = new Pacer({
    clock,
    wait,
    maxWaitMs: options.maxWaitSeconds * 1000,
    dateHeader: options.dateHeader,
    clockToleranceSeconds: options.clockToleranceSeconds,
    keyAuthorization: http.bearer(),
    refusalCodes: contract.facts.refusalCodes,
    ...(options.rateLimitKey ? { rateLimitAuthorization: http.bearer(options.rateLimitKey) } : {}),
  });
  http.gate = pacer;
  return {
    http,
    contract,
    options,
    clock,
    sleep,
    wait,
    waits,
    progress,
    pacer,
    budget: new RequestBudget(options.maxRequests),
    token: randomBytes(4).toString('hex'),
    preferUsed: [],
    facts: { choices: new Map() },
  };
}

/** With --exitfirst, what a failure does: a must failure (any, with --strict) of a check in the run halts it. */
function exitFirst(options: ResolvedOptions, run: () => RunContext): ((id: string) => void) | undefined {
  if (!options.exitFirst) return undefined;
  const inRun = outside(options);
  return (id) => {
    const def = CATALOGUE.find((c) => c.id === id);
    if (!def || inRun(def) !== undefined || (def.level !== 'must' && !options.strict)) return;
    run().http.halt(new ExitFirstError(id, def.level));
  };
}

/**
 * The checks that judge one exchange alone, on each exchange as it completes, into a ledger of their
 * own: the run's verdicts are still made once, after the phases; this only finds the first failure
 * when it happens, as Schemathesis's -x does.
 */
function judgeAtOnce(run: RunContext, onFailure: ((id: string) => void) | undefined): (exchange: Exchange) => void {
  const probe = new Ledger(CATALOGUE, { ...(onFailure ? { onFailure } : {}) });
  const areas = LIVE_CHECKS.map((area) => ({
    area,
    ctx: {
      ledger: probe.scope(
        area.name,
        area.checks.map((c) => c.id),
      ),
      contract: run.contract,
      options: run.options,
    },
  }));
  return (exchange) => {
    for (const { area, ctx } of areas) area.inspect(exchange, ctx);
  };
}

type ActiveArea = { area: Area; ctx: AreaContext };

/** The areas one of whose checks is selected, each with its context; an area none of whose checks is selected sends nothing. */
function activeAreas(run: RunContext, ledger: Ledger): ActiveArea[] {
  // Each area records verdicts only for the checks it defines.
  return AREAS.filter((area) => area.checks.some((c) => run.options.selected(c.id))).map((area) => ({
    area,
    ctx: {
      ...run,
      ledger: ledger.scope(
        area.name,
        area.checks.map((c) => c.id),
      ),
    } satisfies AreaContext,
  }));
}

/** The preflight, then each phase of the run in turn. */
async function phases(run: RunContext, active: readonly ActiveArea[], ledger: Ledger): Promise<void> {
  const checked = await preflight(run);
  run.facts.list = checked.list;
  run.facts.keyless = checked.keyless;
  if (checked.rateLimitKey) run.facts.rateLimitKeyAtStart = checked.rateLimitKey;
  for (const plan of PHASES.filter((p) => p.runs(run.options))) {
    const working = active.filter(({ area }) => area.phases?.[plan.phase]);
    if (working.length === 0) continue;
    run.progress({ type: 'phase', name: plan.title });
    for (const { area, ctx } of working) {
      // A halt the last request of the previous phase brought: nothing is started, Dredd least of all.
      if (run.http.halted) throw run.http.halted;
      ledger.lap();
      await area.phases![plan.phase]!(ctx);
    }
  }
}

/** Runs the checks with options resolveOptions has checked (the command line resolves them first, to report a usage error as one). */
export async function runResolved(options: ResolvedOptions, hooks: RunHooks = {}): Promise<Report> {
  const started = Date.now();
  // Each check is charged the real time that led to its verdicts (JUnit's time), whatever clock the run reads.
  const stopsRun = exitFirst(options, () => run);
  const ledger = new Ledger(CATALOGUE, { now: () => performance.now(), onFailure: stopsRun });
  const run = context(options, hooks, await loadContract(options.specPath));
  if (options.exitFirst) run.http.observer = judgeAtOnce(run, stopsRun);
  const active = activeAreas(run, ledger);
  let halted: RunHalted | undefined;
  try {
    try {
      await phases(run, active, ledger);
    } catch (error) {
      if (!(error instanceof RunHalted)) throw error;
      halted = error;
    }
    // A halt the last request of a phase brought: nothing was sent after it, nothing threw.
    halted ??= run.http.halted;
    if (halted) {
      run.progress({ type: 'note', text: halted.message });
      const why = halted instanceof ExitFirstError ? `not run: ${halted.message}` : halted.message;
      ledger.halt(why, { unjudged: halted instanceof TargetStoppedError });
    }
    ledger.lap();
    for (const exchange of run.http.exchanges) {
      for (const { area, ctx } of active) area.inspect?.(exchange, ctx);
    }
    for (const { area, ctx } of active) area.finish?.(ctx);
  } finally {
    run.http.close();
  }

  // Failures of one cause (a header missing from every answer) are told once, under one check: the verdicts stay.
  const { results, causes, distinct } = groupCauses(ledger.results({ strict: options.strict, selected: outside(options) }));
  const counts = { ...count(results), causes: distinct };
  const dredd = run.facts.dredd;
  const report: Report = {
    target: options.baseUrl,
    profile: options.profile,
    strict: options.strict,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    requests: run.http.exchanges.length + (dredd?.transactions.filter((t) => t.status !== 'skip').length ?? 0),
    results,
    counts,
    causes,
    exitCode: exitCodeOf(results, options.strict),
    preferUsed: [...new Set(run.preferUsed)],
    seed: options.seed,
    phases: options.phases,
    generated: { sent: run.budget.used, leftOut: run.budget.refused },
    pacing: { attributed: run.pacer.attributed, waitedMs: run.waits.reduce((sum, w) => sum + w.ms, 0), waits: run.waits },
    choices: Object.fromEntries(run.facts.choices ?? []),
    ...(run.facts.rateLimitVerdict && options.rateLimitKey
      ? { timeline: { key: keyLabel(options.rateLimitKey), points: run.facts.rateLimitVerdict.timeline() } }
      : {}),
    ...(dredd ? { dredd } : {}),
    ...(halted ? { stopped: halted.message } : {}),
  };
  // Keys are replaced here, once: every format and every library caller gets the redacted report.
  return redactReport(report, runKeys(options));
}

/** The library's entry: options as code passes them, checked once (a problem rejects with a UsageError), then the run. */
export async function runConformance(input: RunOptions): Promise<Report> {
  return runResolved(resolveOptions(input), input);
}
