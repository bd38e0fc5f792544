// What each key's traffic is charged, seen from outside the window rules: --api-key's Remaining
// across --rate-limit-key's traffic and --rate-limit-key's across the run's before it (per key by
// count, not only by admission), and a create refused over the limit that must have stored nothing.
import { parseInteger } from '../../spec/rules/fields.js';
import { DEFAULT_TOLERANCES } from '../../spec/rules/snapshot.js';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import type { AreaContext } from './area.ts';
import { isAdmitted, isRefusal } from '../../judge/rate-limit-verdict.ts';
import { describeStatus, header, isPetArray, status } from '../../judge/answers.ts';
import { nextPage, send } from './support.ts';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

/** A create sent with --rate-limit-key after its first 429, by the name that finds it if it was stored anyway. */
export interface RefusedCreate {
  ex: Exchange;
  name: string;
}

/** Pages the search for a refused create walks at most. */
const MAX_PAGES = 50;

/** What an admitted answer says of its key's window; null when it says nothing usable. */
function windowOf(ex: Exchange): { remaining: number; reset: number } | null {
  if (!isAdmitted(ex)) return null;
  const remaining = parseInteger(header(ex, LOWER_HEADERS.rateLimitRemaining));
  const reset = parseInteger(header(ex, LOWER_HEADERS.rateLimitReset));
  return remaining === null || reset === null ? null : { remaining, reset };
}

/** --api-key's window just before the other key's traffic, with room left for the reading after it (else the pacer would wait in between). */
export async function readKeyWindow(ctx: AreaContext): Promise<Exchange> {
  await ctx.pacer.ensure('key', 2, "reading --api-key's window before --rate-limit-key's traffic");
  return send(ctx, {
    operationId: 'listPets',
    purpose: "per key: --api-key's window before --rate-limit-key's traffic",
    method: 'GET',
    path: '/pets',
    query: { limit: 1 },
  });
}

/** Whose Remaining is read (by its Authorization and its flag), and whose traffic must not be charged to it. */
export interface Charged {
  key: { authorization: string; flag: string };
  other: { authorization: string; flag: string };
}

/** --api-key's window across --rate-limit-key's traffic, and the other way round. */
export function chargeOf(ctx: AreaContext, of: 'api-key' | 'rate-limit-key'): Charged {
  const apiKey = { authorization: ctx.http.bearer(), flag: '--api-key' };
  const rateLimitKey = { authorization: ctx.http.bearer(ctx.options.rateLimitKey), flag: '--rate-limit-key' };
  return of === 'api-key' ? { key: apiKey, other: rateLimitKey } : { key: rateLimitKey, other: apiKey };
}

/**
 * Per key by count: within one window of a key (the same Reset), its Remaining fell by no more than
 * its own requests, whatever the other key sent meanwhile. Fewer is no sharing (a window that
 * refills as it slides), and another window cannot be compared: both are noted, never passed silently.
 */
export function chargedOnlyOwn(ctx: AreaContext, { key, other }: Charged, before: Exchange, after: Exchange): void {
  const id = 'ratelimit.per-key';
  const a = windowOf(before);
  const b = windowOf(after);
  if (!a || !b) {
    ctx.ledger.note(
      id,
      `${key.flag}'s answers before and after ${other.flag}'s traffic (${describeStatus(before)}, ${describeStatus(after)}) do not both carry integer X-RateLimit-Remaining and Reset: what that traffic cost ${key.flag} was not counted`,
    );
    return;
  }
  const between = ctx.http.exchanges.filter((e) => e.seq > before.seq && e.seq <= after.seq);
  const own = between.filter((e) => e.request.headers.authorization === key.authorization);
  const others = between.filter((e) => e.request.headers.authorization === other.authorization);
  const unsure = own.find((e) => !isAdmitted(e));
  if (unsure) {
    ctx.ledger.note(
      id,
      `a request of ${key.flag} between the two readings answered ${describeStatus(unsure)}: what the other key's traffic cost it was not counted`,
    );
    return;
  }
  if (Math.abs(a.reset - b.reset) > DEFAULT_TOLERANCES.roundingSeconds) {
    ctx.ledger.note(
      id,
      `${key.flag}'s window changed between the readings before and after ${other.flag}'s ${others.length} requests (X-RateLimit-Reset ${a.reset}, then ${b.reset}): what they cost ${key.flag} could not be counted`,
    );
    return;
  }
  const fell = a.remaining - b.remaining;
  const excess = fell - own.length;
  // Another client of the key may explain a few requests more; a counter kept by address charges
  // every request the other key had admitted meanwhile (as many as the key had left, Remaining
  // stopping at 0), and only that fails the check.
  const otherAdmitted = others.filter(isAdmitted).length;
  const shared = otherAdmitted > 0 && excess > 0 && excess >= Math.min(otherAdmitted, a.remaining - own.length);
  ctx.ledger.assert(
    id,
    !shared,
    `${key.flag}'s X-RateLimit-Remaining fell from ${a.remaining} to ${b.remaining} within one window (X-RateLimit-Reset ${a.reset}) while it sent ${own.length} request(s) and ${other.flag} had ${otherAdmitted} of its ${others.length} admitted: ${excess} more than its own, as many as the other key's (counted by address, not by key)`,
    [before, after],
  );
  if (!shared && excess > 0)
    ctx.ledger.note(
      id,
      `${key.flag}'s X-RateLimit-Remaining fell from ${a.remaining} to ${b.remaining}: ${excess} more than its own ${own.length} request(s), fewer than the ${otherAdmitted} ${other.flag} had admitted (something else using ${key.flag} meanwhile?)`,
    );
  if (excess < 0)
    ctx.ledger.note(
      id,
      `${key.flag}'s X-RateLimit-Remaining fell from ${a.remaining} to ${b.remaining} across ${own.length} request(s) of its own: fewer than it sent (a window that refills as it slides), so nothing of the other key's was charged to it`,
    );
}

/** While the rate-limit key is refused, the run's own key, from the same address, must still be admitted, and charged only for itself. */
export async function perKey(ctx: AreaContext, refused: Exchange, before: Exchange): Promise<void> {
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
  if (admitted) chargedOnlyOwn(ctx, chargeOf(ctx, 'api-key'), before, ex);
}

/** Why the run did not see the key admitted again: the user's choice (--no-wait), or a refusal longer than it may wait. */
export interface NotWaited {
  reason: string;
  /** The target refused for longer than --max-wait: what needed the wait could not be judged. */
  unjudged: boolean;
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
export async function refusedNotApplied(ctx: AreaContext, refused: RefusedCreate | undefined, notWaited: NotWaited | null): Promise<void> {
  const id = 'ratelimit.refused-not-applied';
  if (!refused) return ctx.ledger.notRun(id, 'the description has no valid example body to create a pet with');
  const { ex, name } = refused;
  if (!isRefusal(ex))
    return ctx.ledger.notRun(id, `the create sent while the key was refused answered ${describeStatus(ex)}, not a refusal (the window rules judge that)`);
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
    if (status(list) !== 200 || !isPetArray(pets)) return ctx.ledger.notRun(id, `the list answered ${describeStatus(list)}`, [list]);
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
      // Not stored now; whether it is stored once the key is admitted again was not seen.
      if (notWaited !== null) {
        const why = `not stored when looked at before the key was admitted again (${notWaited.reason})`;
        return notWaited.unjudged ? ctx.ledger.unjudged(id, why) : ctx.ledger.notRun(id, why);
      }
      return ctx.ledger.pass(id);
    }
    path = next.url;
    query = undefined;
  }
  ctx.ledger.notRun(id, `the list is longer than ${MAX_PAGES} pages of ${limit}`);
}
