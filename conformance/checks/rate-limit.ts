// The rate-limit window of --rate-limit-key: exhaust it, look at the 429, optionally keep asking
// to see a ban, wait Retry-After and ask again. Every response goes through the window rules of
// spec/rules/window-rules.js, the same state machine rate-limit.js (k6) uses; each rule it breaks
// is a failure of the check CHECK_OF_RULE names. This module adds only what the rules cannot see:
// the 429's Error body, and whether the run could do its part (a spare key, the waits).
import { parseInteger } from '../../spec/rules/fields.js';
import { DEFAULT_TOLERANCES, isRefusalStatus, readSnapshot, retryWaitMs, type Tolerances } from '../../spec/rules/snapshot.js';
import { timelinePoint, type TimelinePoint } from '../../spec/rules/timeline-svg.js';
import { createWindowRules, type Kind, type Outcome } from '../../spec/rules/window-rules.js';
import type { CheckDef } from '../catalogue.ts';
import type { Exchange } from '../http.ts';
import type { CheckLedger } from '../ledger.ts';
import { validateResponse } from '../openapi.ts';
import { SECTION, type Area, type AreaContext } from './area.ts';
import { describeStatus, header, send, status } from './support.ts';

const KEY = ['rate-limit-key'] as const;
const BAN = ['rate-limit-key', 'ban-check'] as const;
const { headers: HEADERS, exceeded: EXCEEDED } = SECTION;

const checks: readonly CheckDef[] = [
  {
    id: 'ratelimit.limit-constant',
    level: 'must',
    profile: 'full',
    section: HEADERS,
    title: 'X-RateLimit-* are integers on every response, and Limit stays the same through one window',
    needs: KEY,
  },
  {
    id: 'ratelimit.remaining-decrements',
    level: 'must',
    profile: 'full',
    section: HEADERS,
    title: 'X-RateLimit-Remaining falls by exactly one per admitted request',
    needs: KEY,
  },
  {
    id: 'ratelimit.reset-future',
    level: 'must',
    profile: 'full',
    section: HEADERS,
    title: 'X-RateLimit-Reset is a Unix time in seconds, in the future, within a day',
    needs: KEY,
  },
  { id: 'ratelimit.reset-stable', level: 'must', profile: 'full', section: HEADERS, title: 'X-RateLimit-Reset does not move within a window', needs: KEY },
  {
    id: 'ratelimit.exhaustion-exact',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'The first 429 comes exactly after the requests Remaining announced',
    needs: KEY,
  },
  { id: 'ratelimit.429', level: 'must', profile: 'full', section: EXCEEDED, title: '429 carries an Error body, Retry-After and Remaining 0', needs: KEY },
  {
    id: 'ratelimit.retry-after-valid',
    level: 'must',
    profile: 'full',
    section: `${EXCEEDED}; RFC 9110 §10.2.3`,
    title: 'Retry-After is delay-seconds or an HTTP-date',
    needs: KEY,
  },
  {
    id: 'ratelimit.retry-after-consistent',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'The moment Retry-After names is the moment X-RateLimit-Reset names',
    needs: KEY,
  },
  {
    id: 'ratelimit.retry-after-integer',
    level: 'should',
    profile: 'full',
    section: EXCEEDED,
    title: 'Retry-After is integer delay-seconds, at least 1',
    needs: KEY,
  },
  {
    id: 'ratelimit.429-no-store',
    level: 'should',
    profile: 'full',
    section: `${EXCEEDED}; RFC 6585 §4`,
    title: '429 carries Cache-Control: no-store',
    needs: KEY,
  },
  { id: 'ratelimit.readmitted', level: 'must', profile: 'full', section: EXCEEDED, title: 'After waiting Retry-After, the key is admitted again', needs: KEY },
  {
    id: 'ratelimit.refused-until-retry',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'Requests repeated after a 429 stay refused, each with a valid Retry-After',
    needs: BAN,
  },
  {
    id: 'ratelimit.ban-lifts',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'A temporary ban, if one is imposed, is announced by Retry-After and lifts when it says',
    needs: BAN,
  },
  {
    id: 'ratelimit.per-key',
    level: 'must',
    profile: 'full',
    section: `${SECTION.plans}; ${SECTION.auth}`,
    title: 'Limits apply per key: while --rate-limit-key is refused, --api-key from the same address is still admitted',
    needs: KEY,
  },
];

/** The check that reports each rule of spec/rules/window-rules.js; a rule's level is its check's level. */
export const CHECK_OF_RULE: Readonly<Record<Kind, string>> = {
  malformed_headers: 'ratelimit.limit-constant',
  limit_changed: 'ratelimit.limit-constant',
  limit_mismatch: 'ratelimit.limit-constant',
  remaining_negative: 'ratelimit.remaining-decrements',
  remaining_above_limit: 'ratelimit.remaining-decrements',
  remaining_not_decremented: 'ratelimit.remaining-decrements',
  remaining_skipped: 'ratelimit.remaining-decrements',
  remaining_not_reset: 'ratelimit.remaining-decrements',
  reset_in_past: 'ratelimit.reset-future',
  reset_too_far: 'ratelimit.reset-future',
  reset_moved: 'ratelimit.reset-stable',
  over_admitted: 'ratelimit.exhaustion-exact',
  under_admitted: 'ratelimit.exhaustion-exact',
  remaining_nonzero_on_429: 'ratelimit.429',
  retry_after_missing: 'ratelimit.429',
  retry_after_invalid: 'ratelimit.retry-after-valid',
  retry_after_form: 'ratelimit.retry-after-integer',
  retry_after_early: 'ratelimit.retry-after-consistent',
  retry_after_late: 'ratelimit.retry-after-consistent',
  refusal_cacheable: 'ratelimit.429-no-store',
  not_readmitted: 'ratelimit.readmitted',
  served_before_retry_after: 'ratelimit.refused-until-retry',
  ban_not_enforced: 'ratelimit.refused-until-retry',
  ban_not_lifted: 'ratelimit.ban-lifts',
};

export interface RateLimitVerdict {
  /** Judges one more response of the key, in the order the requests were made. */
  observe(exchange: Exchange): Outcome;
  /** Judges requests of the key sent at once (concurrently), after everything observed before; their answers may have arrived in any order. */
  observeBatch(exchanges: readonly Exchange[]): Outcome;
  /** When every Retry-After of the current refusals has passed (the kit's clock); null when none is pending. */
  retryDueMs(): number | null;
  banned(): boolean;
  /** Every response judged so far, as the timeline draws it (spec/rules/timeline-svg.js). */
  timeline(): TimelinePoint[];
}

/** The kit's verdict on the exchanges of one key: each rule judged is a pass of its check, each rule broken a failure. */
export function rateLimitVerdict(ledger: CheckLedger, options: { tolerances?: Partial<Tolerances>; dateHeader: boolean }): RateLimitVerdict {
  const rules = createWindowRules(options.tolerances ? { tolerances: options.tolerances } : {});
  const points: TimelinePoint[] = [];
  const observeBatch = (exchanges: readonly Exchange[]): Outcome => {
    const snapshots = exchanges.map((ex) =>
      readSnapshot(
        { status: ex.response?.status ?? 0, headers: ex.response?.headers ?? null, receivedAtMs: ex.receivedAt, sentAtMs: ex.sentAt, ref: ex },
        { dateHeader: options.dateHeader },
      ),
    );
    const out = rules.observe(snapshots);
    for (const s of snapshots) {
      const own = { ...out, violations: out.violations.filter((v) => v.refs[v.refs.length - 1] === s.ref) };
      points.push(timelinePoint(s, own));
    }
    const broken = new Set<string>();
    for (const v of out.violations) {
      broken.add(v.kind);
      const evidence = v.refs.filter((r): r is Exchange => typeof r === 'object' && r !== null);
      ledger.fail(CHECK_OF_RULE[v.kind], `${v.detail} (rule: ${v.rule})`, evidence, v.kind);
    }
    for (const j of out.judged) if (!broken.has(j.kind)) ledger.pass(CHECK_OF_RULE[j.kind]);
    return out;
  };
  return {
    observe: (ex) => observeBatch([ex]),
    observeBatch,
    retryDueMs: () => rules.retryDueMs(),
    banned: () => rules.report().banned,
    timeline: () => [...points],
  };
}

type Probe = () => Promise<{ ex: Exchange; out: Outcome }>;

/** Refused by the limiter: 429, or 403 during a ban (the shared rules). */
function isRefusal(ex: Exchange): boolean {
  return isRefusalStatus(status(ex) ?? 0);
}

function isAdmitted(ex: Exchange): boolean {
  const code = status(ex) ?? 0;
  return code >= 200 && code < 300;
}
type Send = () => Promise<Exchange>;

function giveUp(ctx: AreaContext, reason: string): void {
  for (const c of checks) ctx.ledger.notRun(c.id, reason);
}

/** The Error body of a 429; its headers are the rules' to judge. */
function refusalBody(ctx: AreaContext, ex: Exchange, which: string): void {
  const problems = validateResponse(ctx.contract, ex.operationId, ex.response!, 'must').filter(
    (p) => p.where === 'header content-type' || p.where.startsWith('body'),
  );
  ctx.ledger.assert('ratelimit.429', problems.length === 0, `${which} 429: ${problems.map((p) => `${p.where} ${p.message}`).join('; ')}`, [ex]);
}

/** Waits until every Retry-After has passed, within --max-wait; false (and why) when it will not. */
async function waitRetryAfter(ctx: AreaContext, verdict: RateLimitVerdict, why: string): Promise<string | null> {
  if (!ctx.options.wait) return 'waiting for Retry-After was disabled (--no-wait)';
  const due = verdict.retryDueMs();
  if (due === null) return 'Retry-After is unusable, so there is nothing to wait for';
  const wait = Math.max(0, due - ctx.clock.now());
  if (wait > ctx.options.maxWaitSeconds * 1000) return `Retry-After asks for ${Math.ceil(wait / 1000)} s, above --max-wait ${ctx.options.maxWaitSeconds}`;
  await ctx.wait(wait, why);
  return null;
}

/** Sends until the first 429: Remaining said how many are admitted; a few more catch over-admission. */
async function exhaust(ctx: AreaContext, probe: Probe, first: Exchange, announced: number): Promise<Exchange | undefined> {
  const slack = 3;
  let budget = announced + slack;
  let restarted = false;
  let last = first;
  for (let sent = 0; sent <= budget; sent++) {
    const { ex, out } = await probe();
    if (isRefusal(ex)) return ex;
    if (!isAdmitted(ex)) {
      ctx.ledger.fail('ratelimit.exhaustion-exact', `a rate-limit request answered ${describeStatus(ex)}`, [ex]);
      giveUp(ctx, 'the window could not be exhausted');
      return undefined;
    }
    if (out.events.includes('window_crossed') && !restarted) {
      // The window rolled over while we counted: count the new one, once.
      restarted = true;
      ctx.ledger.note('ratelimit.exhaustion-exact', 'the window rolled over during the run; counting restarted once');
      budget = (parseInteger(header(ex, 'x-ratelimit-remaining')) ?? announced) + slack;
      sent = -1;
    }
    last = ex;
  }
  ctx.ledger.fail('ratelimit.exhaustion-exact', `no 429 after ${budget} requests past one announcing Remaining ${announced}`, [first, last]);
  giveUp(ctx, 'no 429 was received');
  return undefined;
}

async function banProbe(ctx: AreaContext, probe: Probe, verdict: RateLimitVerdict): Promise<void> {
  ctx.progress({ type: 'phase', name: `rate limits: ${ctx.options.banProbe} requests after the 429 (ban check)` });
  for (let i = 0; i < ctx.options.banProbe; i++) {
    const { ex } = await probe();
    if (!isRefusal(ex)) break;
    if (status(ex) === 429) refusalBody(ctx, ex, `repeated (${i + 1})`);
    else ctx.facts.choices?.set('ban-status', String(status(ex)));
  }
  if (!verdict.banned()) {
    ctx.ledger.notRun('ratelimit.ban-lifts', `no ban within ${ctx.options.banProbe} repeated requests (the specification says a ban "may" follow)`);
    return;
  }
  ctx.facts.choices?.set('ban-status', ctx.facts.choices.get('ban-status') ?? '429');
  await probeDuringBan(ctx, probe, verdict);
}

/** Probes spread across an announced ban, one at each third: a ban that is announced must be enforced. */
const BAN_PROBES = 2;

async function probeDuringBan(ctx: AreaContext, probe: Probe, verdict: RateLimitVerdict): Promise<void> {
  const due = verdict.retryDueMs();
  if (due === null) return;
  const start = ctx.clock.now();
  const length = due - start;
  // Waiting out the ban is judged by ratelimit.ban-lifts, within --max-wait; probes only inside it.
  if (!ctx.options.wait || length > ctx.options.maxWaitSeconds * 1000) return;
  ctx.facts.choices?.set('ban-length', `${Math.round(length / 1000)} s`);
  for (let i = 1; i <= BAN_PROBES; i++) {
    const at = start + (length * i) / (BAN_PROBES + 1);
    await ctx.wait(
      Math.max(0, at - ctx.clock.now()),
      `ban: the rate-limit key is banned for ${Math.round(length / 1000)} s; probe ${i} of ${BAN_PROBES} checks it is enforced`,
    );
    const { ex } = await probe();
    if (!isRefusal(ex)) return;
  }
}

/** The first admitted response of the key, after waiting out a window a previous run left closed; a reason when there is none. */
async function firstAdmitted(ctx: AreaContext, request: Send): Promise<Exchange | string> {
  let first = await request();
  if (status(first) === 429) {
    const s = readSnapshot({ status: 429, headers: first.response!.headers, receivedAtMs: first.receivedAt }, { dateHeader: ctx.options.dateHeader });
    const waitMs = retryWaitMs(s, { ...DEFAULT_TOLERANCES, clockSkewSeconds: ctx.options.clockToleranceSeconds });
    const finding = `the --rate-limit-key was refused (${describeStatus(first)}, Retry-After ${header(first, 'retry-after') ?? 'missing'}) by the first request this run sent with it: if nothing else uses this key, the server counts something other than the key (the address?)`;
    ctx.ledger.note('ratelimit.per-key', finding);
    ctx.progress({ type: 'note', text: `finding: ${finding}` });
    if (!ctx.options.wait || waitMs === null || waitMs > ctx.options.maxWaitSeconds * 1000)
      return 'the --rate-limit-key is refused (429) before the checks started; use a fresh key';
    await ctx.wait(waitMs, `window: the rate-limit key was refused at the start; waiting its Retry-After (${Math.ceil(waitMs / 1000)} s)`);
    first = await request();
  }
  if (status(first) !== 200) return `the --rate-limit-key is not admitted (${describeStatus(first)})`;
  const announced = parseInteger(header(first, 'x-ratelimit-remaining'));
  if (announced === null || parseInteger(header(first, 'x-ratelimit-limit')) === null)
    return 'the first response lacks integer X-RateLimit-Limit/Remaining (see headers.rate-limit)';
  const max = ctx.options.maxRateLimitRequests;
  if (announced > max) return `Remaining is ${announced}, above --max-rate-limit-requests ${max}; use a key on a smaller plan`;
  return first;
}

/** While the rate-limit key is refused, the run's own key, from the same address, must still be admitted. */
async function perKey(ctx: AreaContext, refused: Exchange): Promise<void> {
  const ex = await send(ctx, {
    operationId: 'listPets',
    purpose: 'per key: --api-key while --rate-limit-key is refused',
    method: 'GET',
    path: '/pets',
    query: { limit: 1 },
  });
  ctx.ledger.assert(
    'ratelimit.per-key',
    isAdmitted(ex),
    `while --rate-limit-key was refused (${describeStatus(refused)}), --api-key from the same address answered ${describeStatus(ex)}: the limit is not counted per key`,
    [refused, ex],
  );
}

async function rateLimit(ctx: AreaContext): Promise<void> {
  const { options } = ctx;
  const verdict = rateLimitVerdict(ctx.ledger, { tolerances: { clockSkewSeconds: options.clockToleranceSeconds }, dateHeader: options.dateHeader });
  ctx.facts.rateLimitVerdict = verdict;
  ctx.facts.rateLimitTimeline = () => verdict.timeline();
  let n = 0;
  const request: Send = () =>
    send(ctx, {
      operationId: 'listPets',
      purpose: `rate-limit request ${++n}`,
      method: 'GET',
      path: '/pets',
      query: { limit: 1 },
      authorization: ctx.http.bearer(options.rateLimitKey),
    });
  const probe: Probe = async () => {
    const ex = await request();
    return { ex, out: verdict.observe(ex) };
  };
  // Nothing is judged until the run can do its part: a key it may exhaust, admitted now.
  const first = await firstAdmitted(ctx, request);
  if (typeof first === 'string') return giveUp(ctx, first);
  verdict.observe(first);
  const refused = await exhaust(ctx, probe, first, parseInteger(header(first, 'x-ratelimit-remaining'))!);
  if (!refused) return;
  ctx.progress({ type: 'phase', name: `rate limits: ${status(refused)} after ${n} requests` });
  if (status(refused) === 429) refusalBody(ctx, refused, 'first');
  await perKey(ctx, refused);
  if (options.banCheck) await banProbe(ctx, probe, verdict);
  const banned = verdict.banned();
  const skipped = await waitRetryAfter(
    ctx,
    verdict,
    `${banned ? 'ban' : 'window'}: the rate-limit key is refused${banned ? ' (banned)' : ''}; waiting until every Retry-After has passed to check it is admitted again`,
  );
  if (skipped !== null) {
    ctx.ledger.notRun('ratelimit.readmitted', skipped);
    ctx.ledger.notRun('ratelimit.ban-lifts', skipped);
    return;
  }
  await probe();
}

export const rateLimitArea: Area = { name: 'rate limits', checks, phases: { 'rate-limit': rateLimit } };
