// Client variations: what real clients send and the description never shows (HEAD, RFC 9110 §9.1,
// §9.3.2; the Bearer scheme's case, §11.1, and spaces, RFC 6750 §2.1). Full profile only: a mock of
// the description has none of it. A server may count these against its limits: nothing here counts.
import type { SendOptions } from '../http.ts';
import type { Exchange, ExchangeResponse } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import { type Area, type AreaContext } from './area.ts';
import { SECTION } from '../../judge/check-def.ts';
import { describeStatus, UNKNOWN_PET_ID } from '../../judge/answers.ts';
import { expectResponse, send } from './support.ts';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

const COVERAGE = ['coverage'] as const;

const checks: readonly CheckDef[] = [
  {
    id: 'variations.head',
    level: 'must',
    profile: 'full',
    section: `RFC 9110 §9.1, §9.3.2; ${SECTION.headers}`,
    title:
      'HEAD on every GET operation (listPets, getPet of a known and of an unknown id, listPets without a key) is supported: it answers the status GET answers (never 405 or 501 where GET is served), with no content and the X-RateLimit-* GET carries',
    needs: COVERAGE,
  },
  {
    id: 'variations.head-headers',
    level: 'should',
    profile: 'full',
    section: 'RFC 9110 §9.3.2 (SHOULD)',
    title: 'A HEAD answer carries the header fields its GET answer carries: Content-Type, WWW-Authenticate, Deprecation, Sunset, RateLimit, RateLimit-Policy',
    needs: COVERAGE,
  },
  {
    id: 'variations.scheme-case',
    level: 'must',
    profile: 'full',
    section: `${SECTION.auth}; RFC 9110 §11.1`,
    title: 'The scheme in another case (bearer, BEARER, bEARER) with a valid key is accepted: the authentication scheme is case-insensitive',
    needs: COVERAGE,
  },
  {
    id: 'variations.scheme-spaces',
    level: 'should',
    profile: 'full',
    section: `${SECTION.auth}; RFC 6750 §2.1, RFC 9110 §11.4`,
    title:
      'Two spaces between Bearer and a valid key are accepted: the grammar is "Bearer" 1*SP b64token, though the specification shows one space and no RFC names this case',
    needs: COVERAGE,
  },
  {
    id: 'variations.key-case',
    level: 'should',
    profile: 'full',
    section: `${SECTION.auth}; RFC 6750 §2.1`,
    title: 'A case variant of a valid key (its first letter flipped, the whole key upper- or lower-cased) is an invalid key: 401 with an Error',
    needs: COVERAGE,
  },
  {
    id: 'variations.auth-first',
    level: 'must',
    profile: 'full',
    section: `${SECTION.auth}; ${SECTION.errors}`,
    title:
      'A request without a valid key (none, or an unknown one) whose input is also invalid (createPet with an invalid body, listPets with limit out of range or not an integer, getPet with a non-integer id) answers 401 with an Error, not 400 or 404',
    needs: COVERAGE,
  },
];

/** Spellings of a scheme other than its own: all lower case, all upper case, and every letter's case flipped. */
export function schemeSpellings(scheme: string): string[] {
  const flipped = [...scheme].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  return [...new Set([scheme.toLowerCase(), scheme.toUpperCase(), flipped])].filter((s) => s !== scheme);
}

/** Case variants of a key, each different from it and named by how it differs: the first cased letter flipped, the key upper- and lower-cased. */
export function keyVariants(key: string): Array<{ how: string; variant: string }> {
  const chars = [...key];
  const at = chars.findIndex((c) => c.toLowerCase() !== c.toUpperCase());
  const variants: Array<{ how: string; variant: string }> = [];
  if (at >= 0) {
    const c = chars[at]!;
    const flipped = [...chars.slice(0, at), c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase(), ...chars.slice(at + 1)].join('');
    variants.push({ how: 'its first letter in the other case', variant: flipped });
  }
  variants.push({ how: 'upper-cased', variant: key.toUpperCase() }, { how: 'lower-cased', variant: key.toLowerCase() });
  const seen = new Set([key]);
  return variants.filter(({ variant }) => !seen.has(variant) && seen.add(variant));
}

/** The rate-limit headers every response carries (Limits › Rate limit response headers). */
const RATE_LIMIT_HEADERS = [LOWER_HEADERS.rateLimitLimit, LOWER_HEADERS.rateLimitRemaining, LOWER_HEADERS.rateLimitReset] as const;
/** Fields RFC 9110 §9.3.2 asks a HEAD answer to repeat; Link and Content-Length follow from the content, which a server may omit. */
export const HEAD_SHOULD_REPEAT = [
  'content-type',
  LOWER_HEADERS.wwwAuthenticate,
  LOWER_HEADERS.deprecation,
  LOWER_HEADERS.sunset,
  LOWER_HEADERS.rateLimit,
  LOWER_HEADERS.rateLimitPolicy,
] as const;

export type HeadVerdict =
  /** Not comparable: one of the two was refused for its rate (429) or got no answer. */
  { incomparable: string } | { incomparable?: undefined; problems: string[]; missing: string[] };

/** Statuses that refuse the method itself: a server that answers HEAD with one does not support it. */
const METHOD_REFUSED: Readonly<Record<number, string>> = { 405: 'Method Not Allowed', 501: 'Not Implemented' };

/** HEAD's answer against GET's to the same request: what breaks RFC 9110 §9.1 and §9.3.2 (problems, must) and what it fails to repeat (missing, should). */
export function judgeHead(get: ExchangeResponse | undefined, head: ExchangeResponse | undefined): HeadVerdict {
  if (!get) return { incomparable: 'GET got no answer' };
  if (!head) return { problems: ['no answer'], missing: [] };
  if (get.status === 429 || head.status === 429) return { incomparable: 'refused for its rate (429)' };
  const problems: string[] = [];
  const refused = METHOD_REFUSED[head.status];
  if (refused !== undefined && head.status !== get.status) {
    problems.push(`refused HEAD with ${head.status} ${refused} where GET answered ${get.status} (RFC 9110 §9.1: servers MUST support GET and HEAD)`);
  } else if (head.status !== get.status) problems.push(`answered ${head.status} where GET answered ${get.status}`);
  const lacking = RATE_LIMIT_HEADERS.filter((name) => get.headers[name] !== undefined && head.headers[name] === undefined);
  if (lacking.length > 0) problems.push(`lacks ${lacking.join(', ')}, which every response carries`);
  const missing = HEAD_SHOULD_REPEAT.filter((name) => get.headers[name] !== undefined && head.headers[name] === undefined);
  return { problems, missing: [...missing] };
}

/** Sends only while the generated phases' budget lasts; undefined when it is spent. */
async function sendWithin(ctx: AreaContext, options: SendOptions, left: { out: number }): Promise<Exchange | undefined> {
  if (!ctx.budget.take()) {
    left.out++;
    return undefined;
  }
  return send(ctx, { ...options, phase: 'coverage' });
}

function budgetReason(ctx: AreaContext): string {
  return `--max-requests ${ctx.options.maxRequests} was spent before these requests`;
}

async function schemeCase(ctx: AreaContext, left: { out: number }): Promise<void> {
  for (const scheme of schemeSpellings('Bearer')) {
    const purpose = `list with the scheme written "${scheme}"`;
    const ex = await sendWithin(
      ctx,
      { operationId: 'listPets', purpose, method: 'GET', path: '/pets', authorization: `${scheme} ${ctx.options.apiKey}` },
      left,
    );
    if (!ex) return ctx.ledger.notRun('variations.scheme-case', budgetReason(ctx));
    expectResponse(ctx, 'variations.scheme-case', ex, 200);
  }
}

async function schemeSpaces(ctx: AreaContext, left: { out: number }): Promise<void> {
  const purpose = 'list with two spaces between Bearer and the key';
  const ex = await sendWithin(ctx, { operationId: 'listPets', purpose, method: 'GET', path: '/pets', authorization: `Bearer  ${ctx.options.apiKey}` }, left);
  if (!ex) return ctx.ledger.notRun('variations.scheme-spaces', budgetReason(ctx));
  expectResponse(ctx, 'variations.scheme-spaces', ex, 200);
}

async function head(ctx: AreaContext, left: { out: number }): Promise<void> {
  const known = ctx.facts.knownId;
  const targets: Array<Pick<SendOptions, 'operationId' | 'path' | 'authorization'> & { what: string }> = [
    { what: 'list', operationId: 'listPets', path: '/pets' },
    ...(known !== undefined ? [{ what: `get pet ${known}`, operationId: 'getPet' as const, path: `/pets/${known}` }] : []),
    { what: 'get an unknown pet', operationId: 'getPet', path: `/pets/${UNKNOWN_PET_ID}` },
    // Last, so that the pacer's view of the address comes from an answer that was counted there.
    { what: 'list without Authorization', operationId: 'listPets', path: '/pets', authorization: null },
  ];
  for (const { what, ...target } of targets) {
    const get = await sendWithin(ctx, { ...target, purpose: `${what} (GET, to compare HEAD with)`, method: 'GET' }, left);
    const ex =
      get && (await sendWithin(ctx, { ...target, purpose: `${what} with HEAD`, method: 'HEAD', outside: 'HEAD: judged against GET by variations.head' }, left));
    if (!get || !ex) {
      ctx.ledger.notRun('variations.head', budgetReason(ctx));
      ctx.ledger.notRun('variations.head-headers', budgetReason(ctx));
      break;
    }
    const verdict = judgeHead(get.response, ex.response);
    if (verdict.incomparable !== undefined) {
      ctx.ledger.note('variations.head', `${what}: not compared, ${verdict.incomparable} (GET: ${describeStatus(get)}, HEAD: ${describeStatus(ex)})`);
      continue;
    }
    ctx.ledger.assert('variations.head', verdict.problems.length === 0, `${what} with HEAD: ${verdict.problems.join('; ')}`, [get, ex]);
    ctx.ledger.assert(
      'variations.head-headers',
      verdict.missing.length === 0,
      `${what} with HEAD: lacks ${verdict.missing.join(', ')}, which GET's answer carries`,
      [get, ex],
    );
  }
}

async function keyCase(ctx: AreaContext, left: { out: number }): Promise<void> {
  const variants = keyVariants(ctx.options.apiKey);
  if (variants.length === 0) return ctx.ledger.notRun('variations.key-case', 'the key has no letters: no case variant differs from it');
  for (const { how, variant } of variants) {
    const purpose = `list with the key ${how}`;
    const ex = await sendWithin(ctx, { operationId: 'listPets', purpose, method: 'GET', path: '/pets', authorization: ctx.http.bearer(variant) }, left);
    if (!ex) return ctx.ledger.notRun('variations.key-case', budgetReason(ctx));
    expectResponse(ctx, 'variations.key-case', ex, 401);
  }
}

/** Requests whose input is invalid, each without a valid key: none, or an unknown one. */
function invalidWithoutKey(ctx: AreaContext): SendOptions[] {
  const unknown = ctx.http.bearer(`conformance-unknown-${ctx.token}`);
  const below = ctx.contract.listLimit.minimum - 1;
  return [
    { operationId: 'createPet', purpose: 'create an empty body without Authorization', method: 'POST', path: '/pets', authorization: null, json: {} },
    {
      operationId: 'createPet',
      purpose: 'create a body of wrong types with an unknown key',
      method: 'POST',
      path: '/pets',
      authorization: unknown,
      json: { name: 5, categoryId: 'not-a-number' },
    },
    {
      operationId: 'listPets',
      purpose: `list with limit=${below} without Authorization`,
      method: 'GET',
      path: '/pets',
      authorization: null,
      query: { limit: below },
    },
    {
      operationId: 'listPets',
      purpose: 'list with limit=abc with an unknown key',
      method: 'GET',
      path: '/pets',
      authorization: unknown,
      query: { limit: 'abc' },
    },
    { operationId: 'getPet', purpose: 'get /pets/abc without Authorization', method: 'GET', path: '/pets/abc', authorization: null },
  ];
}

async function authFirst(ctx: AreaContext, left: { out: number }): Promise<void> {
  for (const options of invalidWithoutKey(ctx)) {
    const ex = await sendWithin(ctx, options, left);
    if (!ex) return ctx.ledger.notRun('variations.auth-first', budgetReason(ctx));
    expectResponse(ctx, 'variations.auth-first', ex, 401);
  }
}

async function coverage(ctx: AreaContext): Promise<void> {
  if (ctx.options.profile !== 'full') return;
  const left = { out: 0 };
  // Requests that the server counts on the key come first, keyless ones last: the pacer counts any
  // Authorization that is not the key's exact value on the address.
  if (ctx.options.selected('variations.scheme-case')) await schemeCase(ctx, left);
  if (ctx.options.selected('variations.scheme-spaces')) await schemeSpaces(ctx, left);
  if (ctx.options.selected('variations.head') || ctx.options.selected('variations.head-headers')) await head(ctx, left);
  if (ctx.options.selected('variations.key-case')) await keyCase(ctx, left);
  if (ctx.options.selected('variations.auth-first')) await authFirst(ctx, left);
  if (left.out > 0) ctx.progress({ type: 'note', text: `variations: ${left.out} requests left out (--max-requests ${ctx.options.maxRequests})` });
}

export const variationsArea: Area = { name: 'variations', checks, phases: { coverage } };
