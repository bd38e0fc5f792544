// runConformance: the programmatic API behind `npm run conform`. A preflight first (is the target
// there, is the key admitted, how much may the run send), then the phases of the areas in
// conformance/checks/ (each sends the fewest requests that decide its checks; the generated phases
// as many as --max-requests allows), then every area inspects every exchange, and the report has
// one result per check of the catalogue.
import { randomBytes, randomInt } from 'node:crypto';
import { UsageError } from '../lib/errors.ts';
import { CATALOGUE, checkSelector, NEED_FLAGS, type CheckDef, type Profile } from './catalogue.ts';
import type { AreaContext, Phase, ProgressEvent, ResolvedOptions, RunContext } from './checks/area.ts';
import { AREAS } from './checks/index.ts';
import type { DreddOutcome } from './dredd.ts';
import { RequestBudget } from './generate/budget.ts';
import { HttpClient, keyLabel, type Clock } from './http.ts';
import type { Timeline } from '../spec/rules/timeline-svg.js';
import { Ledger, type CheckResult } from './ledger.ts';
import { DEFAULT_SPEC_PATH, loadContract } from './openapi.ts';
import { GENERATED_PHASES, RUN_DEFAULTS, type GeneratedPhase } from './options.ts';
import { Pacer, type Attribution } from './pacing.ts';
import { preflight } from './preflight.ts';
import { parseChoices } from './open-points.ts';

export { TlsError, UnreachableError } from './http.ts';
export { RateLimitedError } from './pacing.ts';
export { PreflightError } from './preflight.ts';
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
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** PEM certificates trusted besides the system's. */
  ca?: string;
  insecure?: boolean;
  waitForTargetSeconds?: number;
  /** The generated phases to run (default all four; [] runs only the fixed checks). */
  phases?: readonly GeneratedPhase[];
  maxExamples?: number;
  maxRequests?: number;
  /** Seed of the generated inputs (default random; the report names it). */
  seed?: number;
  /** What the target chose at points the specification leaves open, to be held to: { paging: 'none' } (open-points.ts). */
  choices?: Record<string, string>;
  /** Check ids or prefixes ending in `*` to run, and to leave out. */
  checks?: readonly string[];
  excludeChecks?: readonly string[];
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
  /** Seed of the generated inputs: `--seed` with it replays them. */
  seed: number;
  phases: readonly GeneratedPhase[];
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
}

interface PhasePlan {
  phase: Phase;
  title: string;
  runs: (options: ResolvedOptions) => boolean;
}

const GENERATED_TITLES: Record<GeneratedPhase, string> = {
  examples: "generated: the description's examples",
  coverage: 'generated: boundaries, negative data, other methods and media types',
  fuzzing: 'generated: fuzzing the schemas (fast-check)',
  stateful: 'generated: stateful sequences (create, get, list, pages)',
};

const PHASES: readonly PhasePlan[] = [
  { phase: 'contract', title: 'contract: status codes, headers, bodies, auth', runs: () => true },
  { phase: 'dredd', title: 'Dredd 14 over the derived description', runs: (o) => o.dredd },
  { phase: 'behaviour', title: 'full: behaviour (auth, persistence, limit, status, pagination)', runs: (o) => o.profile === 'full' },
  ...GENERATED_PHASES.map((phase) => ({
    phase,
    title: GENERATED_TITLES[phase],
    runs: (o: ResolvedOptions) => o.phases.includes(phase) && (phase !== 'stateful' || o.profile === 'full'),
  })),
  { phase: 'rate-limit', title: 'rate limits: exhausting the window of --rate-limit-key', runs: (o) => o.profile === 'full' && o.rateLimitKey !== undefined },
];

export function resolveOptions(input: RunOptions): ResolvedOptions {
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<RunOptions>;
  const { clock: _clock, sleep: _sleep, onProgress: _onProgress, rateLimitKey, ca, insecure, checks, excludeChecks, ...rest } = given;
  const selection = checkSelector(CATALOGUE, checks, excludeChecks);
  if (selection.unknown.length > 0) throw new UsageError(`--checks/--exclude-checks: ${selection.unknown.join(', ')} names no check (see --list-checks)`);
  const unknownPhases = (given.phases ?? []).filter((p) => !(GENERATED_PHASES as readonly string[]).includes(p));
  if (unknownPhases.length > 0) throw new UsageError(`--phases: ${unknownPhases.join(', ')} is not one of ${GENERATED_PHASES.join(', ')}, none`);
  if (rateLimitKey !== undefined && rateLimitKey === given.apiKey) {
    throw new UsageError(
      '--rate-limit-key is the same key as --api-key: the rate-limit checks exhaust it (and may get it banned) while the other checks need it; give --rate-limit-key a key of its own',
    );
  }
  return {
    ...RUN_DEFAULTS,
    specPath: DEFAULT_SPEC_PATH,
    dateHeader: input.clock === undefined,
    headers: {},
    seed: randomInt(0, 2 ** 31),
    ...rest,
    tls: { ...(ca ? { ca } : {}), insecure: insecure ?? RUN_DEFAULTS.insecure },
    choices: parseChoices(Object.entries(given.choices ?? {}).map(([point, value]) => `${point}=${value}`)),
    selected: selection.selected,
    ...(rateLimitKey ? { rateLimitKey } : {}),
  } as ResolvedOptions;
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
    const phase = needs.find((n): n is GeneratedPhase => (GENERATED_PHASES as readonly string[]).includes(n));
    if (phase && !options.phases.includes(phase)) return `the ${phase} phase is off (--phases)`;
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

function context(options: ResolvedOptions, input: RunOptions, contract: RunContext['contract']): RunContext {
  const clock = input.clock ?? { now: () => Date.now() };
  const sleep = input.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const progress = input.onProgress ?? (() => {});
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
    secrets: { CONFORMANCE_API_KEY: options.apiKey, CONFORMANCE_RATE_LIMIT_KEY: options.rateLimitKey },
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

export async function runConformance(input: RunOptions): Promise<Report> {
  const options = resolveOptions(input);
  const started = Date.now();
  const ledger = new Ledger(CATALOGUE);
  const run = context(options, input, await loadContract(options.specPath));
  try {
    const checked = await preflight(run);
    run.facts.list = checked.list;
    run.facts.keyless = checked.keyless;
    // Each area records verdicts only for the checks it defines; an area none of whose checks is
    // selected sends nothing.
    const areas = AREAS.map((area) => ({
      area,
      ctx: {
        ...run,
        ledger: ledger.scope(
          area.name,
          area.checks.map((c) => c.id),
        ),
      } satisfies AreaContext,
    }));
    const active = areas.filter(({ area }) => area.checks.some((c) => options.selected(c.id)));
    for (const plan of PHASES.filter((p) => p.runs(options))) {
      const working = active.filter(({ area }) => area.phases?.[plan.phase]);
      if (working.length === 0) continue;
      run.progress({ type: 'phase', name: plan.title });
      for (const { area, ctx } of working) await area.phases![plan.phase]!(ctx);
    }
    for (const exchange of run.http.exchanges) {
      for (const { area, ctx } of active) area.inspect?.(exchange, ctx);
    }
    for (const { area, ctx } of active) area.finish?.(ctx);
  } finally {
    run.http.close();
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
    seed: options.seed,
    phases: options.phases,
    generated: { sent: run.budget.used, leftOut: run.budget.refused },
    pacing: { attributed: run.pacer.attributed, waitedMs: run.waits.reduce((sum, w) => sum + w.ms, 0), waits: run.waits },
    choices: Object.fromEntries(run.facts.choices ?? []),
    ...(run.facts.rateLimitTimeline && options.rateLimitKey
      ? { timeline: { key: keyLabel(options.rateLimitKey), points: run.facts.rateLimitTimeline() } }
      : {}),
    ...(dredd ? { dredd } : {}),
  };
}
