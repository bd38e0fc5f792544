// Whether the rate-limit key can be judged at all: admitted now, or once a refusal it meets at the
// start is waited out within --max-wait. A refusal it cannot wait out leaves every rate-limit check
// unjudged (exit 2), in the words of the target's answer, never a plain "not run".
import { parseInteger } from '../../spec/rules/fields.js';
import type { Exchange } from '../../judge/exchange.ts';
import { answered, errorCode } from '../../judge/refusal.ts';
import type { AreaContext } from './area.ts';
import { isAdmitted, isRefusal, retryWaitOf } from '../../judge/rate-limit-verdict.ts';
import { header, status } from '../../judge/answers.ts';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';
import { DEFAULT_TOLERANCES } from '../../spec/rules/snapshot.js';

const ROUNDING_MS = DEFAULT_TOLERANCES.roundingSeconds * 1000;

/** One request with --rate-limit-key. */
export type Send = () => Promise<Exchange>;

/** Why the rate-limit checks cannot be judged at all. */
export interface Unjudged {
  unjudged: string;
}

/**
 * The first admitted response of the key, after waiting out a refusal within --max-wait; else why
 * the checks cannot be judged, in the words of the target's answer. A key the preflight saw admitted
 * and that is refused now, though the run sent nothing else with it, is a finding.
 */
export async function firstAdmitted(ctx: AreaContext, request: Send): Promise<Exchange | Unjudged> {
  let first = await request();
  if (isRefusal(first)) {
    const atStart = ctx.facts.rateLimitKeyAtStart;
    if (atStart && isAdmitted(atStart)) {
      const finding = `the --rate-limit-key, admitted by the preflight, was refused by the next request the run sent with it (${answered(first)}), though the run had sent only --api-key and keyless requests since: either something else uses this key, or the server charged it for those`;
      ctx.ledger.note('ratelimit.per-key', finding);
      ctx.progress({ type: 'note', text: `finding: ${finding}` });
    }
    const waitMs = retryWaitOf(first, ctx.options);
    const maxWait = ctx.options.maxWaitSeconds;
    if (!ctx.options.wait) return { unjudged: `the --rate-limit-key is refused (${answered(first)}), and --no-wait keeps the kit from waiting for it` };
    if (waitMs === null) return { unjudged: `the --rate-limit-key is refused (${answered(first)}) without a usable Retry-After` };
    if (waitMs > maxWait * 1000)
      return {
        unjudged: `the --rate-limit-key is refused (${answered(first)}) for ${Math.ceil(waitMs / 1000)} s more, longer than --max-wait ${maxWait}: run again after that, or with a key that is not refused`,
      };
    await ctx.wait(
      waitMs,
      `window: the rate-limit key is refused (${status(first)} ${errorCode(first) ?? 'without an Error code'}); waiting its Retry-After (${Math.ceil(waitMs / 1000)} s)`,
    );
    first = await request();
    // Refused again asking for at most a second: Retry-After may be truncated or rounded to the nearest second (readings retry_after.*).
    const again = retryWaitOf(first, ctx.options);
    if (isRefusal(first) && again !== null && again <= ROUNDING_MS) {
      await ctx.wait(ROUNDING_MS, 'window: the rate-limit key was refused within a second after Retry-After; asking once more a second later');
      first = await request();
    }
  }
  if (status(first) !== 200) return { unjudged: `the --rate-limit-key is not admitted: ${answered(first)}` };
  const announced = parseInteger(header(first, LOWER_HEADERS.rateLimitRemaining));
  if (announced === null || parseInteger(header(first, LOWER_HEADERS.rateLimitLimit)) === null)
    return { unjudged: 'the first response lacks integer X-RateLimit-Limit/Remaining (see headers.rate-limit)' };
  const max = ctx.options.maxRateLimitRequests;
  if (announced > max) return { unjudged: `Remaining is ${announced}, above --max-rate-limit-requests ${max}: use a key on a smaller plan, or raise it` };
  return first;
}
