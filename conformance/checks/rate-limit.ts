// The rate-limit window of --rate-limit-key: exhaust it with reads and creates, look at the 429,
// send a create that must be refused, optionally keep asking to see a ban, wait Retry-After and ask
// again. Every response goes through the window rules of spec/rules/window-rules.js, the same state
// machine rate-limit.js (k6) uses; each rule it breaks is a failure of the check CHECK_OF_RULE names.
// This module adds only what the rules cannot see: the 429's Error body, that a refused create stored
// nothing, what the other key's traffic cost --api-key, and whether the run could do its part (a
// spare key, the waits).
import { parseInteger } from '../../spec/rules/fields.js';
import { createArrivalBuffer } from '../../spec/rules/arrival.js';
import { DEFAULT_TOLERANCES, isRefusalStatus, readSnapshot, retryWaitMs, type Snapshot, type Tolerances } from '../../spec/rules/snapshot.js';
import { timelinePoint, type TimelinePoint } from '../../spec/rules/timeline-svg.js';
import { createWindowRules, type Kind, type Outcome } from '../../spec/rules/window-rules.js';
import type { CheckDef } from '../catalogue.ts';
import { baseBody } from '../generate/cases.ts';
import { jsonBody, type Exchange } from '../http.ts';
import type { CheckLedger } from '../ledger.ts';
import { validateResponse } from '../openapi.ts';
import { SECTION, type Area, type AreaContext } from './area.ts';
import { describeStatus, header, isPetArray, nextPage, send, status } from './support.ts';

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
    title: 'X-RateLimit-Remaining falls by exactly one per admitted request, a create as much as a read',
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
    id: 'ratelimit.refused-not-applied',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'A create refused over the limit stores nothing: its pet is neither in the list nor behind an id the refusal named, once the key is admitted again',
    needs: KEY,
  },
  {
    id: 'ratelimit.per-key',
    level: 'must',
    profile: 'full',
    section: `${SECTION.plans}; ${SECTION.auth}`,
    title:
      "Limits apply per key: while --rate-limit-key is refused, --api-key from the same address is still admitted, and within its window --api-key's Remaining fell only by its own requests",
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
  /**
   * Judges a stream whose answers arrive in any order (the judging proxy): the exchange is held
   * until no request of the key still waiting for its answer (the earliest sent at
   * `oldestPendingSentMs`; null when none) can have been decided before it.
   */
  observeArrival(exchange: Exchange, oldestPendingSentMs: number | null): Outcome;
  /** When every Retry-After of the current refusals has passed (the kit's clock); null when none is pending. */
  retryDueMs(): number | null;
  banned(): boolean;
  /** Every response judged so far, as the timeline draws it (spec/rules/timeline-svg.js). */
  timeline(): TimelinePoint[];
}

/** What one exchange says about its key's rate limit, as the window rules read it; the exchange is the snapshot's ref. */
export function snapshotOf(ex: Exchange, dateHeader: boolean): Snapshot {
  return readSnapshot(
    { status: ex.response?.status ?? 0, headers: ex.response?.headers ?? null, receivedAtMs: ex.receivedAt, sentAtMs: ex.sentAt, ref: ex },
    { dateHeader },
  );
}

/** The kit's verdict on the exchanges of one key: each rule judged is a pass of its check, each rule broken a failure. */
export function rateLimitVerdict(ledger: CheckLedger, options: { tolerances?: Partial<Tolerances>; dateHeader: boolean }): RateLimitVerdict {
  const rules = createWindowRules(options.tolerances ? { tolerances: options.tolerances } : {});
  const points: TimelinePoint[] = [];
  const arrivals = createArrivalBuffer(options.tolerances);
  const read = (ex: Exchange): Snapshot => snapshotOf(ex, options.dateHeader);
  const observeBatch = (exchanges: readonly Exchange[]): Outcome => judge(exchanges.map(read));
  const judge = (snapshots: Snapshot[]): Outcome => {
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
    observeArrival(ex, oldestPendingSentMs) {
      arrivals.offer(read(ex));
      return judge(arrivals.release(oldestPendingSentMs));
    },
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

/** A create sent with --rate-limit-key after its first 429, by the name that finds it if it was stored anyway. */
interface RefusedCreate {
  ex: Exchange;
  name: string;
}

/** One request in this many of the exhaustion is a create: whatever the window charges, it charges every request of the key. */
const CREATE_EVERY = 3;
/** Pages the search for a refused create walks at most. */
const MAX_PAGES = 50;

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
      if (ex.operationId === 'createPet' && ex.response) {
        // The target would not take the create (the create checks judge why): the window goes on with reads.
        ctx.ledger.note(
          'ratelimit.remaining-decrements',
          `a create of the exhaustion answered ${describeStatus(ex)}: the window was exhausted with reads from there`,
        );
        continue;
      }
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

/**
 * How many requests the ban check repeats after the first 429: by default a window's worth (the
 * announced Limit, within --max-rate-limit-requests), so that a threshold as deep as the window is
 * reached; --ban-probes above that is capped to it. `how` says so in the report.
 */
function banDepth(ctx: AreaContext, limit: number): { depth: number; how: string } {
  const allowance = Math.min(limit, ctx.options.maxRateLimitRequests);
  const asked = ctx.options.banProbes;
  if (asked === undefined) return { depth: allowance, how: `probed up to the window's allowance of ${allowance}` };
  if (asked > allowance) {
    ctx.ledger.note('ratelimit.refused-until-retry', `--ban-probes ${asked} is above the window's allowance of ${allowance}: capped to it`);
    return { depth: allowance, how: `--ban-probes ${asked}, capped to the window's allowance of ${allowance}` };
  }
  return { depth: asked, how: `--ban-probes ${asked}; the window's allowance is ${allowance}` };
}

/** Repeats requests after the first 429 (`repeated` of them already sent) to the depth asked, to see whether a ban follows. */
async function banProbe(ctx: AreaContext, probe: Probe, verdict: RateLimitVerdict, depth: { depth: number; how: string }, repeated: number): Promise<void> {
  const reads = Math.max(0, depth.depth - repeated);
  ctx.progress({ type: 'phase', name: `rate limits: ${reads} more requests after the 429 (ban check, ${depth.how})` });
  let sent = repeated;
  for (let i = 0; i < reads; i++) {
    const { ex } = await probe();
    sent++;
    if (!isRefusal(ex)) break;
    if (status(ex) === 429) refusalBody(ctx, ex, `repeated (${sent})`);
    else ctx.facts.choices?.set('ban-status', String(status(ex)));
  }
  if (!verdict.banned()) {
    ctx.ledger.notRun(
      'ratelimit.ban-lifts',
      `no ban within ${sent} repeated requests after the first 429 (${depth.how}); the specification says a ban "may" follow`,
    );
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

/** What an admitted answer says of its key's window; null when it says nothing usable. */
function windowOf(ex: Exchange): { remaining: number; reset: number } | null {
  if (!isAdmitted(ex)) return null;
  const remaining = parseInteger(header(ex, 'x-ratelimit-remaining'));
  const reset = parseInteger(header(ex, 'x-ratelimit-reset'));
  return remaining === null || reset === null ? null : { remaining, reset };
}

/** --api-key's window just before the other key's traffic, with room left for the reading after it (else the pacer would wait in between). */
async function readKeyWindow(ctx: AreaContext): Promise<Exchange> {
  await ctx.pacer.ensure('key', 2, "reading --api-key's window before --rate-limit-key's traffic");
  return send(ctx, {
    operationId: 'listPets',
    purpose: "per key: --api-key's window before --rate-limit-key's traffic",
    method: 'GET',
    path: '/pets',
    query: { limit: 1 },
  });
}

/**
 * Per key by count: within one window of --api-key (the same Reset), its Remaining fell by no more
 * than its own requests, whatever --rate-limit-key sent meanwhile. Fewer is no sharing (a window that
 * refills as it slides), and another window cannot be compared: both are noted, never passed silently.
 */
function chargedOnlyOwn(ctx: AreaContext, before: Exchange, after: Exchange): void {
  const id = 'ratelimit.per-key';
  const a = windowOf(before);
  const b = windowOf(after);
  if (!a || !b) {
    ctx.ledger.note(
      id,
      `--api-key's answers before and after --rate-limit-key's traffic (${describeStatus(before)}, ${describeStatus(after)}) do not both carry integer X-RateLimit-Remaining and Reset: what that traffic cost --api-key was not counted`,
    );
    return;
  }
  const between = ctx.http.exchanges.filter((e) => e.seq > before.seq && e.seq <= after.seq);
  const own = between.filter((e) => e.request.headers.authorization === ctx.http.bearer());
  const other = between.filter((e) => e.request.headers.authorization === ctx.http.bearer(ctx.options.rateLimitKey)).length;
  const unsure = own.find((e) => !isAdmitted(e));
  if (unsure) {
    ctx.ledger.note(
      id,
      `a request of --api-key between the two readings answered ${describeStatus(unsure)}: what the other key's traffic cost it was not counted`,
    );
    return;
  }
  if (Math.abs(a.reset - b.reset) > DEFAULT_TOLERANCES.roundingSeconds) {
    ctx.ledger.note(
      id,
      `--api-key's window changed between the readings before and after --rate-limit-key's ${other} requests (X-RateLimit-Reset ${a.reset}, then ${b.reset}): what they cost --api-key could not be counted`,
    );
    return;
  }
  const fell = a.remaining - b.remaining;
  ctx.ledger.assert(
    id,
    fell <= own.length,
    `--api-key's X-RateLimit-Remaining fell from ${a.remaining} to ${b.remaining} within one window (X-RateLimit-Reset ${a.reset}) while it sent ${own.length} request(s) and --rate-limit-key ${other}: ${fell - own.length} of the other key's requests were charged to it (counted by address, not by key; unless something else used --api-key meanwhile)`,
    [before, after],
  );
  if (fell < own.length)
    ctx.ledger.note(
      id,
      `--api-key's X-RateLimit-Remaining fell from ${a.remaining} to ${b.remaining} across ${own.length} request(s) of its own: fewer than it sent (a window that refills as it slides), so nothing of the other key's was charged to it`,
    );
}

/** While the rate-limit key is refused, the run's own key, from the same address, must still be admitted, and charged only for itself. */
async function perKey(ctx: AreaContext, refused: Exchange, before: Exchange): Promise<void> {
  const ex = await send(ctx, {
    operationId: 'listPets',
    purpose: 'per key: --api-key while --rate-limit-key is refused',
    method: 'GET',
    path: '/pets',
    query: { limit: 1 },
  });
  const admitted = ctx.ledger.assert(
    'ratelimit.per-key',
    isAdmitted(ex),
    `while --rate-limit-key was refused (${describeStatus(refused)}), --api-key from the same address answered ${describeStatus(ex)}: the limit is not counted per key`,
    [refused, ex],
  );
  if (admitted) chargedOnlyOwn(ctx, before, ex);
}

/** The id a refusal gave away, in its body or a Location: a refused create must not have made it. */
function leakedId(ex: Exchange): number | undefined {
  const body = jsonBody(ex) as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && Number.isSafeInteger(body.id)) return body.id as number;
  const segment = /\/(\d+)\/?$/.exec(header(ex, 'location') ?? '')?.[1];
  return segment === undefined ? undefined : Number(segment);
}

/**
 * A create refused over the limit must store nothing: looked for with --api-key by its name, walking
 * the list as the run's other searches do, and at any id the refusal named. After the key's
 * readmission when the run waits for it, so that a create queued and applied later shows too.
 */
async function refusedNotApplied(ctx: AreaContext, refused: RefusedCreate | undefined, notWaited: string | null): Promise<void> {
  const id = 'ratelimit.refused-not-applied';
  if (!refused) return ctx.ledger.notRun(id, 'the description has no valid example body to create a pet with');
  const { ex, name } = refused;
  if (!isRefusal(ex))
    return ctx.ledger.notRun(id, `the create sent while the key was refused answered ${describeStatus(ex)}, not a refusal (the window rules judge that)`);
  if (notWaited !== null) ctx.ledger.note(id, `looked before the key was admitted again (${notWaited}): a refused create applied later would not be seen`);
  const leaked = leakedId(ex);
  if (leaked !== undefined) {
    const got = await send(ctx, {
      operationId: 'getPet',
      purpose: `refused create: pet ${leaked}, which the refusal named`,
      method: 'GET',
      path: `/pets/${leaked}`,
    });
    const pet = jsonBody(got) as Record<string, unknown> | undefined;
    if (status(got) === 200 && pet?.name === name)
      return ctx.ledger.fail(
        id,
        `the create of ${JSON.stringify(name)} was refused (${describeStatus(ex)}), yet pet ${leaked}, which the refusal named, is that pet`,
        [ex, got],
      );
  }
  const limit = ctx.contract.listLimit.maximum;
  let path = '/pets';
  let query: Record<string, number> | undefined = { limit };
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await send(ctx, {
      operationId: 'listPets',
      purpose: `refused create: list page ${page}, looking for ${name}`,
      method: 'GET',
      path,
      ...(query ? { query } : {}),
    });
    const pets = jsonBody(list);
    if (status(list) !== 200 || !isPetArray(pets)) return ctx.ledger.notRun(id, `the list answered ${describeStatus(list)}`);
    const stored = pets.find((p) => p.name === name);
    if (stored)
      return ctx.ledger.fail(
        id,
        `the create of ${JSON.stringify(name)} was refused (${describeStatus(ex)}), yet pet ${String(stored.id)} of that name is in the list`,
        [ex, list],
      );
    const next = nextPage(ctx, list);
    if ('none' in next) {
      if (pets.length >= limit) return ctx.ledger.notRun(id, `the list is longer than one page and ${next.none} leads further`);
      return ctx.ledger.pass(id);
    }
    path = next.url;
    query = undefined;
  }
  ctx.ledger.notRun(id, `the list is longer than ${MAX_PAGES} pages of ${limit}`);
}

async function rateLimit(ctx: AreaContext): Promise<void> {
  const { options } = ctx;
  const verdict = rateLimitVerdict(ctx.ledger, { tolerances: { clockSkewSeconds: options.clockToleranceSeconds }, dateHeader: options.dateHeader });
  ctx.facts.rateLimitVerdict = verdict;
  ctx.facts.rateLimitTimeline = () => verdict.timeline();
  const authorization = ctx.http.bearer(options.rateLimitKey);
  let n = 0;
  const request: Send = () =>
    send(ctx, { operationId: 'listPets', purpose: `rate-limit request ${++n}`, method: 'GET', path: '/pets', query: { limit: 1 }, authorization });
  const probe: Probe = async () => {
    const ex = await request();
    return { ex, out: verdict.observe(ex) };
  };
  const body = baseBody(ctx.contract.operations.get('createPet')!);
  const create = async (name: string, why: string): Promise<{ ex: Exchange; out: Outcome }> => {
    const ex = await send(ctx, {
      operationId: 'createPet',
      purpose: `rate-limit request ${++n}: ${why}`,
      method: 'POST',
      path: '/pets',
      json: { ...body, name },
      authorization,
    });
    return { ex, out: verdict.observe(ex) };
  };
  // Creates among the reads, judged in the same order by the same rules: a create charged twice
  // shows as Remaining skipping.
  let creating = body !== undefined;
  let made = 0;
  const charged: Probe = async () => {
    if (!creating || (n + 1) % CREATE_EVERY !== 0) return probe();
    const name = `rl-${ctx.token}-${++made}`;
    const sent = await create(name, `create ${name}, charged to the window like a read`);
    if (!isAdmitted(sent.ex) && !isRefusal(sent.ex)) creating = false;
    return sent;
  };
  // Nothing is judged until the run can do its part: a key it may exhaust, admitted now.
  const first = await firstAdmitted(ctx, request);
  if (typeof first === 'string') return giveUp(ctx, first);
  verdict.observe(first);
  if (!body)
    ctx.ledger.note('ratelimit.remaining-decrements', 'the description has no valid example body to create with: the window was exhausted with reads only');
  const before = await readKeyWindow(ctx);
  const refused = await exhaust(ctx, charged, first, parseInteger(header(first, 'x-ratelimit-remaining'))!);
  if (!refused) return;
  ctx.progress({ type: 'phase', name: `rate limits: ${status(refused)} after ${n} requests` });
  if (status(refused) === 429) refusalBody(ctx, refused, 'first');
  let marker: RefusedCreate | undefined;
  if (body) {
    const name = `rl-refused-${ctx.token}`;
    const { ex } = await create(name, `create ${name} while the key is refused: it must not be stored`);
    if (status(ex) === 429) refusalBody(ctx, ex, 'a refused create');
    marker = { ex, name };
  }
  await perKey(ctx, refused, before);
  if (options.banCheck) await banProbe(ctx, probe, verdict, banDepth(ctx, parseInteger(header(first, 'x-ratelimit-limit'))!), marker ? 1 : 0);
  const banned = verdict.banned();
  const skipped = await waitRetryAfter(
    ctx,
    verdict,
    `${banned ? 'ban' : 'window'}: the rate-limit key is refused${banned ? ' (banned)' : ''}; waiting until every Retry-After has passed to check it is admitted again`,
  );
  if (skipped !== null) {
    ctx.ledger.notRun('ratelimit.readmitted', skipped);
    ctx.ledger.notRun('ratelimit.ban-lifts', skipped);
  } else await probe();
  await refusedNotApplied(ctx, marker, skipped);
}

export const rateLimitArea: Area = { name: 'rate limits', checks, phases: { 'rate-limit': rateLimit } };
