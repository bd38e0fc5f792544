// Small helpers every area uses: sending through the run's client, and the usual assertion that a
// response has the documented status and satisfies the description at must level.
import { linkWithRel, parseLinks } from '../../spec/rules/link.js';
import type { SendOptions } from '../http.ts';
import type { Exchange } from '../../judge/exchange.ts';
import { validateResponse } from '../../judge/contract.ts';
import { describeStatus, header } from '../../judge/answers.ts';
import type { AreaContext } from './area.ts';

/** Whether valid bodies may carry properties the schema does not name: not for a target that declared it refuses them. */
export function acceptsExtra(ctx: AreaContext): boolean {
  return ctx.options.choices['unknown-fields'] !== 'refuse';
}

export async function send(ctx: AreaContext, options: SendOptions): Promise<Exchange> {
  const exchange = await ctx.http.send(options);
  ctx.progress({ type: 'request', exchange });
  return exchange;
}

function rateLimitedHint(ctx: AreaContext, exchange: Exchange): string {
  if (exchange.response?.status !== 429) return '';
  return exchange.request.headers.authorization === ctx.http.bearer()
    ? ' (rate limited: give --api-key a key with more room than this run needs, about 35 requests)'
    : ' (rate limited: the server limits requests without a valid key, probably per address; run again after its Retry-After)';
}

/** The documented status, and every header and body rule the description makes at must level. */
export function expectResponse(ctx: AreaContext, id: string, exchange: Exchange, expected: number): boolean {
  if (!exchange.response) {
    ctx.ledger.fail(id, `expected ${expected}, got ${describeStatus(exchange)}`, [exchange]);
    return false;
  }
  if (exchange.response.status !== expected) {
    ctx.ledger.fail(id, `expected ${expected}, got ${exchange.response.status}${rateLimitedHint(ctx, exchange)}`, [exchange]);
    return false;
  }
  const problems = validateResponse(ctx.contract, exchange.operationId, exchange.response, 'must');
  const message = problems.map((p) => `${p.where} ${p.message}`).join('; ');
  return ctx.ledger.assert(
    id,
    problems.length === 0,
    message,
    [exchange],
    problems.map((p) => p.cause),
  );
}

/** Prism's Prefer header, when the run was asked to send it (--prefer); noted on the check. */
export function preferHeaders(ctx: AreaContext, id: string, code: number): Record<string, string> | undefined {
  if (!ctx.options.prefer) return undefined;
  ctx.preferUsed.push(id);
  ctx.ledger.note(id, `sent Prefer: code=${code} (--prefer)`);
  return { prefer: `code=${code}` };
}

/**
 * Where a page's Link rel="next" leads: a URL of listPets under the base URL, or why there is none
 * to follow (absent, not RFC 8288, or leading elsewhere: to another path, which is no next page of
 * this list, or to another origin, which the kit does not request: `elsewhere`).
 */
export function nextPage(ctx: AreaContext, page: Exchange): { url: string } | { none: string; elsewhere?: true } {
  const field = header(page, 'link');
  const links = parseLinks(field);
  if (links === null) return { none: `Link ${JSON.stringify(field)} is not an RFC 8288 field` };
  const next = linkWithRel(links, 'next');
  if (!next) return { none: 'no Link rel="next"' };
  const url = new URL(next.target, page.request.url);
  const list = new URL(ctx.http.url('/pets'));
  // Another origin may serve the next page, but the kit's key never goes there: judged as data only.
  if (!ctx.http.sendsTo(url.toString()))
    return { none: `Link rel="next" leads to another origin (${url.origin}), where the kit sends nothing, its key least of all`, elsewhere: true };
  if (url.origin !== list.origin || url.pathname !== list.pathname)
    return { none: `Link rel="next" leads to ${url.origin}${url.pathname}, not to ${list.origin}${list.pathname}` };
  return { url: url.toString() };
}
