// The rate-limit window of --rate-limit-key: exhaust it, look at the 429, optionally probe a ban,
// wait Retry-After and ask again. The window rules judge every response (rate-limit-verdict.ts);
// this module adds only what they cannot see, such as the 429's Error body and the waits.
import { parseInteger } from '../../spec/rules/fields.js';
import type { Outcome } from '../../judge/rules/window-rules.js';
import { baseBody } from '../generate/cases.ts';
import type { Exchange } from '../../judge/exchange.ts';
import { validateResponse } from '../../judge/contract.ts';
import { RATE_LIMIT_CHECKS, rateLimitChecks } from '../../judge/checks/rate-limit.ts';
import { type Area, type AreaContext } from './area.ts';
import { chargeOf, chargedOnlyOwn, perKey, readKeyWindow, refusedNotApplied, type NotWaited, type RefusedCreate } from './rate-limit-charging.ts';
import { firstAdmitted, type Send } from './rate-limit-start.ts';
import { isAdmitted, isRefusal, rateLimitVerdict, retryWaitOf, type RateLimitVerdict } from '../../judge/rate-limit-verdict.ts';
import { describeStatus, header, status } from '../../judge/answers.ts';
import { send } from './support.ts';
import { DEFAULT_TOLERANCES } from '../../spec/rules/snapshot.js';
import type { CheckLedger } from '../../judge/ledger.ts';
import { answered } from '../../judge/refusal.ts';
import { readingById } from '../../judge/rules/readings.js';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

type Probe = () => Promise<{ ex: Exchange; out: Outcome }>;

/**
 * delay-seconds may be truncated or rounded to the nearest second (readings retry_after.truncated,
 * retry_after.nearest): a retry refused within that second after Retry-After, asking for no more
 * than it, proves nothing either way, and is sent once more that second later.
 */
const ROUNDING_MS = DEFAULT_TOLERANCES.roundingSeconds * 1000;

/** A refusal the rounding readings explain: the rules judged no readmission on it, and it asks for at most the rounding second. */
export function refusedWithinRounding(ex: Exchange, out: Outcome, wait: number | null): boolean {
  return isRefusal(ex) && !out.judged.some((j) => j.kind === 'not_readmitted') && wait !== null && wait <= ROUNDING_MS;
}

/** The rules the concurrency phase's burst checks read from its answers (concurrency-verdicts.ts). */
const BURST_KINDS: ReadonlySet<string> = new Set([
  'over_admitted',
  'under_admitted',
  'remaining_nonzero_on_429',
  'remaining_not_decremented',
  'remaining_skipped',
]);

/**
 * The ledger the window rules report to: a rule the burst checks read, broken by an answer of the
 * concurrency phase's burst, is that burst's finding (concurrency.burst-*, recorded there), not the
 * sequential check's; every other verdict goes through unchanged.
 */
export function burstApart(ledger: CheckLedger): CheckLedger {
  return {
    pass: (id) => ledger.pass(id),
    fail: (id, message, evidence = [], rule, causes) => {
      if (rule !== undefined && BURST_KINDS.has(rule) && evidence.at(-1)?.phase === 'concurrency') return;
      ledger.fail(id, message, evidence, rule, causes);
    },
    assert: (id, condition, message, evidence, causes) => ledger.assert(id, condition, message, evidence, causes),
    notRun: (id, reason, evidence) => ledger.notRun(id, reason, evidence),
    unjudged: (id, reason) => ledger.unjudged(id, reason),
    note: (id, note) => ledger.note(id, note),
    hasFailed: (id) => ledger.hasFailed(id),
  };
}

/** What the phase saw of its key's refusals: the first 429, those repeated after it, those among them without Retry-After, and a ban. */
export interface RefusalLog {
  first?: Exchange;
  repeated: number;
  bare: number;
  firstBare?: Exchange;
  /** 429s of the phase, and those without Retry-After. */
  tooMany: number;
  tooManyBare: number;
  firstTooManyBare?: Exchange;
  /** The answer at which the window rules saw a ban, and how many refusals had been repeated after the first 429 by then. */
  ban?: { ex: Exchange; after: number };
}

export function logRefusal(log: RefusalLog, ex: Exchange, out: Outcome): void {
  if (status(ex) === 429) {
    log.tooMany++;
    if (header(ex, 'retry-after') === undefined) {
      log.tooManyBare++;
      log.firstTooManyBare ??= ex;
    }
  }
  if (isRefusal(ex)) {
    if (!log.first) log.first = ex;
    else {
      log.repeated++;
      if (header(ex, 'retry-after') === undefined) {
        log.bare++;
        log.firstBare ??= ex;
      }
    }
  }
  if (!log.ban && out.events.includes('ban_detected')) log.ban = { ex, after: log.repeated };
}

/** Where a ban was seen, in the words of its answer: "rate-limit request 64 (GET … answered 403 (…), Retry-After 30)". */
export function banAt(ban: { ex: Exchange }): string {
  return `${ban.ex.purpose} (${answered(ban.ex)})`;
}

/**
 * Why ratelimit.ban-lifts could not be judged although a ban was seen: never a bare "not run".
 * `notWaited`: why the run did not wait for it; undefined when it waited, and still nothing named the ban's end.
 */
export function banNotWaited(ban: { ex: Exchange }, notWaited?: NotWaited): string {
  if (!notWaited)
    return `a ban was imposed at ${banAt(ban)}, announced without a Retry-After naming its end: the run could not tell when to look for it to lift (see ratelimit.refused-until-retry)`;
  return `a ban was imposed at ${banAt(ban)}; the run did not wait for it to lift: ${notWaited.reason}`;
}

/** The ban readings (readings.js, point ban) this ban took, for "What the target chose": ban-status stays the status alone (choices.declared compares it). */
function banChoices(ctx: AreaContext, log: RefusalLog, verdict: RateLimitVerdict): void {
  const ban = log.ban;
  const choices = ctx.facts.choices;
  if (!ban || !choices) return;
  const code = status(ban.ex);
  const readings = [`ban.status-${code}`, 'ban.threshold', 'ban.length'];
  choices.set('ban-status', String(code));
  choices.set('ban-threshold', `after ${ban.after + 1} refusals: the first 429 and ${ban.after} repeated after it, the last at ${ban.ex.purpose}`);
  const due = verdict.retryDueMs();
  if (due === null || header(ban.ex, 'retry-after') === undefined) choices.set('ban-length', 'not announced: its answers carried no Retry-After');
  else {
    const window = log.first ? parseInteger(header(log.first, LOWER_HEADERS.rateLimitReset)) : null;
    choices.set(
      'ban-length',
      `${Math.round((due - ban.ex.receivedAt) / 1000)} s, ${window !== null && due / 1000 < window ? 'ending before' : 'past'} the window's end`,
    );
    const reset = parseInteger(header(ban.ex, LOWER_HEADERS.rateLimitReset));
    if (reset !== null) readings.push(Math.abs(reset - due / 1000) <= DEFAULT_TOLERANCES.roundingSeconds + 1 ? 'ban.reset-ban-end' : 'ban.reset-window-end');
  }
  choices.set('ban-readings', readings.map((id) => `${readingById(id)?.name ?? id} (${id})`).join('; '));
}

/** One request in this many of the exhaustion is a create: whatever the window charges, it charges every request of the key. */
const CREATE_EVERY = 3;

function giveUp(ctx: AreaContext, reason: string): void {
  for (const c of RATE_LIMIT_CHECKS) ctx.ledger.notRun(c.id, reason);
}

/** The checks were asked for and the run could not do its part: never a skip, the run cannot conform (exit 2). */
function cannotJudge(ctx: AreaContext, reason: string): void {
  for (const c of RATE_LIMIT_CHECKS) ctx.ledger.unjudged(c.id, reason);
}

/** The Error body of a 429; its headers are the rules' to judge. */
function refusalBody(ctx: AreaContext, ex: Exchange, which: string): void {
  const problems = validateResponse(ctx.contract, ex.operationId, ex.response!, 'must').filter(
    (p) => p.where === 'header content-type' || p.where.startsWith('body'),
  );
  ctx.ledger.assert('ratelimit.429', problems.length === 0, `${which} 429: ${problems.map((p) => `${p.where} ${p.message}`).join('; ')}`, [ex]);
}

/** Waits until every Retry-After has passed, within --max-wait; null when it did, else why not. */
async function waitRetryAfter(ctx: AreaContext, verdict: RateLimitVerdict, why: string): Promise<NotWaited | null> {
  if (!ctx.options.wait) return { reason: 'waiting for Retry-After was disabled (--no-wait)', unjudged: false };
  const due = verdict.retryDueMs();
  if (due === null) return { reason: 'Retry-After is unusable, so there is nothing to wait for', unjudged: false };
  const wait = Math.max(0, due - ctx.clock.now());
  if (wait > ctx.options.maxWaitSeconds * 1000)
    return {
      reason: `Retry-After asks for ${Math.ceil(wait / 1000)} s, above --max-wait ${ctx.options.maxWaitSeconds} (raise it to judge this)`,
      unjudged: true,
    };
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
      budget = (parseInteger(header(ex, LOWER_HEADERS.rateLimitRemaining)) ?? announced) + slack;
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
async function banProbe(
  ctx: AreaContext,
  probe: Probe,
  verdict: RateLimitVerdict,
  log: RefusalLog,
  depth: { depth: number; how: string },
  repeated: number,
): Promise<void> {
  const reads = Math.max(0, depth.depth - repeated);
  ctx.progress({ type: 'phase', name: `rate limits: ${reads} more requests after the 429 (ban check, ${depth.how})` });
  let sent = repeated;
  for (let i = 0; i < reads; i++) {
    const { ex } = await probe();
    sent++;
    if (!isRefusal(ex)) break;
    if (status(ex) === 429) refusalBody(ctx, ex, `repeated (${sent})`);
  }
  if (!log.ban) {
    // Refusals that name no wait may be a ban or not: the run saw something it cannot judge, never "no ban".
    if (log.bare > 0 && log.firstBare)
      return ctx.ledger.unjudged(
        'ratelimit.ban-lifts',
        `${log.bare} of the ${log.repeated} refusals repeated after the first 429 carried no Retry-After, the first at ${banAt({ ex: log.firstBare })}: whether they were a ban, and when it lifts, cannot be told (see ratelimit.refused-until-retry)`,
      );
    return ctx.ledger.notRun(
      'ratelimit.ban-lifts',
      `no ban within ${sent} repeated requests after the first 429 (${depth.how}); the specification says a ban "may" follow`,
    );
  }
  banChoices(ctx, log, verdict);
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

async function rateLimit(ctx: AreaContext): Promise<void> {
  const { options } = ctx;
  const verdict = rateLimitVerdict(burstApart(ctx.ledger), { tolerances: { clockSkewSeconds: options.clockToleranceSeconds }, dateHeader: options.dateHeader });
  ctx.facts.rateLimitVerdict = verdict;
  const authorization = ctx.http.bearer(options.rateLimitKey);
  let n = 0;
  const request: Send = () =>
    send(ctx, { operationId: 'listPets', purpose: `rate-limit request ${++n}`, method: 'GET', path: '/pets', query: { limit: 1 }, authorization });
  const log: RefusalLog = { repeated: 0, bare: 0, tooMany: 0, tooManyBare: 0 };
  const observe = (ex: Exchange): { ex: Exchange; out: Outcome } => {
    const out = verdict.observe(ex);
    logRefusal(log, ex, out);
    return { ex, out };
  };
  const probe: Probe = async () => observe(await request());
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
    return observe(ex);
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
  if ('unjudged' in first) return cannotJudge(ctx, first.unjudged);
  // Since the preflight's request with the key, the run sent only --api-key and keyless ones: none may have been charged to it.
  const atStart = ctx.facts.rateLimitKeyAtStart;
  if (atStart && isAdmitted(atStart)) chargedOnlyOwn(ctx, chargeOf(ctx, 'rate-limit-key'), atStart, first);
  verdict.observe(first);
  if (!body)
    ctx.ledger.note('ratelimit.remaining-decrements', 'the description has no valid example body to create with: the window was exhausted with reads only');
  const before = await readKeyWindow(ctx);
  const refused = await exhaust(ctx, charged, first, parseInteger(header(first, LOWER_HEADERS.rateLimitRemaining))!);
  if (!refused) return;
  ctx.progress({ type: 'phase', name: `rate limits: ${status(refused)} after ${n} requests` });
  // "A request over the limit receives 429": any other refusal there fails the check, not skips it.
  if (status(refused) === 429) refusalBody(ctx, refused, 'first');
  else ctx.ledger.fail('ratelimit.429', `the request over the limit was answered ${describeStatus(refused)}, not 429`, [refused]);
  let marker: RefusedCreate | undefined;
  if (body) {
    const name = `rl-refused-${ctx.token}`;
    const { ex } = await create(name, `create ${name} while the key is refused: it must not be stored`);
    if (status(ex) === 429) refusalBody(ctx, ex, 'a refused create');
    marker = { ex, name };
  }
  await perKey(ctx, refused, before);
  if (options.banCheck) await banProbe(ctx, probe, verdict, log, banDepth(ctx, parseInteger(header(first, LOWER_HEADERS.rateLimitLimit))!), marker ? 1 : 0);
  if (log.tooManyBare > 0 && log.firstTooManyBare)
    ctx.ledger.note(
      'ratelimit.429',
      `${log.tooManyBare} of the ${log.tooMany} 429s carried no Retry-After, the first at ${banAt({ ex: log.firstTooManyBare })}`,
    );
  if (log.bare > 0 && log.firstBare)
    ctx.ledger.note(
      'ratelimit.refused-until-retry',
      `${log.bare} of the ${log.repeated} refusals repeated after the first 429 carried no Retry-After, the first at ${banAt({ ex: log.firstBare })}`,
    );
  const banned = verdict.banned();
  const skipped = await waitRetryAfter(
    ctx,
    verdict,
    `${banned ? 'ban' : 'window'}: the rate-limit key is refused${banned ? ' (banned)' : ''}; waiting until every Retry-After has passed to check it is admitted again`,
  );
  const ban = log.ban;
  if (skipped === null) {
    let { ex, out } = await probe();
    if (refusedWithinRounding(ex, out, retryWaitOf(ex, options))) {
      await ctx.wait(
        ROUNDING_MS,
        'window: refused within a second after Retry-After (it may be truncated or rounded to the nearest second); asking once more a second later',
      );
      ({ ex, out } = await probe());
    }
    // Seen, waited for, and still not judged: nothing named the ban's end.
    if (ban && !out.judged.some((j) => j.kind === 'ban_not_lifted')) ctx.ledger.unjudged('ratelimit.ban-lifts', banNotWaited(ban));
    if (!out.judged.some((j) => j.kind === 'not_readmitted')) {
      if (ban) ctx.ledger.unjudged('ratelimit.readmitted', banNotWaited(ban));
      else ctx.ledger.notRun('ratelimit.readmitted', `the request sent once every Retry-After had passed answered ${describeStatus(ex)}`, [ex]);
    }
  } else {
    if (skipped.unjudged) ctx.ledger.unjudged('ratelimit.readmitted', skipped.reason);
    else ctx.ledger.notRun('ratelimit.readmitted', skipped.reason);
    // A ban seen is never a plain "not run": only --no-wait, the user's choice, leaves it unjudged without changing the exit status.
    if (!ban) ctx.ledger.notRun('ratelimit.ban-lifts', skipped.reason);
    else if (skipped.unjudged || options.wait) ctx.ledger.unjudged('ratelimit.ban-lifts', banNotWaited(ban, skipped));
    else ctx.ledger.notRun('ratelimit.ban-lifts', banNotWaited(ban, skipped));
  }
  await refusedNotApplied(ctx, marker, skipped);
}

export const rateLimitArea: Area = { ...rateLimitChecks, phases: { 'rate-limit': rateLimit } };
