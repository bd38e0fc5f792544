// listPets: the bare array, limit and its bounds, the status filter, and pagination when a page
// announces a next one.
import { LIST_LIMIT } from '../../spec/rules/contract.js';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import { type Area, type AreaContext } from './area.ts';
import { SECTION } from '../../judge/check-def.ts';
import { describeStatus, isPetArray, status } from '../../judge/answers.ts';
import { expectResponse, nextPage, send } from './support.ts';

const checks: readonly CheckDef[] = [
  { id: 'list.200', level: 'must', profile: 'contract', section: SECTION.list, title: 'GET /pets with a key answers 200 with a bare array of Pet' },
  {
    id: 'list.limit',
    level: 'must',
    profile: 'full',
    section: SECTION.list,
    title: `limit caps the number of pets returned (1 and the maximum ${LIST_LIMIT.maximum}), default at most ${LIST_LIMIT.default}`,
  },
  {
    id: 'list.limit-bounds',
    level: 'should',
    profile: 'full',
    section: SECTION.list,
    title: `limit outside ${LIST_LIMIT.minimum}..${LIST_LIMIT.maximum} is refused with 400 and an Error`,
  },
  {
    id: 'list.status-filter',
    level: 'must',
    profile: 'full',
    section: SECTION.list,
    title: 'status=<value> returns only pets with that status, for every PetStatus',
  },
  { id: 'list.status-invalid', level: 'should', profile: 'full', section: SECTION.list, title: 'status outside PetStatus is refused with 400 and an Error' },
  {
    id: 'list.next-link',
    level: 'must',
    profile: 'full',
    section: `${SECTION.list}; RFC 8288`,
    title: 'When a page carries Link rel="next", following it returns the next page',
  },
];

async function contract(ctx: AreaContext): Promise<void> {
  // The preflight sent it.
  const list = ctx.facts.list ?? (await send(ctx, { operationId: 'listPets', purpose: 'list without parameters', method: 'GET', path: '/pets' }));
  ctx.facts.list = list;
  expectResponse(ctx, 'list.200', list, 200);
  const listed = jsonBody(list);
  if (isPetArray(listed) && typeof listed[0]?.id === 'number') ctx.facts.knownId ??= listed[0].id;
}

async function limits(ctx: AreaContext): Promise<Exchange> {
  const { ledger, contract } = ctx;
  const { minimum, maximum, default: byDefault } = contract.listLimit;
  const limitOne = await send(ctx, { operationId: 'listPets', purpose: 'list with limit=1', method: 'GET', path: '/pets', query: { limit: 1 } });
  const limitMax = await send(ctx, { operationId: 'listPets', purpose: `list with limit=${maximum}`, method: 'GET', path: '/pets', query: { limit: maximum } });
  const all = jsonBody(limitMax);
  // A cap is judged only where it bites: a store of fewer pets than the limit says nothing of it.
  const held = status(limitMax) === 200 && Array.isArray(all) ? all.length : 0;
  for (const [ex, limit] of [
    [limitOne, 1],
    [limitMax, maximum],
  ] as const) {
    const body = jsonBody(ex);
    if (status(ex) !== 200 || !Array.isArray(body)) ledger.fail('list.limit', `limit=${limit} answered ${describeStatus(ex)}`, [ex]);
    else if (body.length > limit) ledger.fail('list.limit', `limit=${limit} returned ${body.length} pets`, [ex]);
    else if (limit < held) ledger.pass('list.limit');
  }
  const defaultList = ctx.facts.list ? jsonBody(ctx.facts.list) : undefined;
  if (ctx.facts.list && Array.isArray(defaultList)) {
    if (defaultList.length > byDefault)
      ledger.fail('list.limit', `without limit ${defaultList.length} pets came back; the default is ${byDefault}`, [ctx.facts.list]);
    else if (held > byDefault) ledger.pass('list.limit');
    else ledger.note('list.limit', `the default of ${byDefault} was not judged: the list holds ${held} pets`);
  }
  if (held < 2) ledger.notRun('list.limit', `the list holds ${held} pet(s): no limit can be seen to cap it`);
  const seen: string[] = [];
  for (const limit of [minimum - 1, maximum + 1]) {
    const ex = await send(ctx, { operationId: 'listPets', purpose: `list with limit=${limit}`, method: 'GET', path: '/pets', query: { limit } });
    ledger.assert('list.limit-bounds', status(ex) === 400, `limit=${limit} answered ${describeStatus(ex)}, expected 400`, [ex]);
    seen.push(outOfRangeHandling(ex, limit, Math.min(maximum, Math.max(minimum, limit))));
  }
  const same = seen.every((s) => s.split(':')[0] === seen[0]!.split(':')[0]);
  ctx.facts.choices?.set(
    'limit-out-of-range',
    same ? `${seen[0]!.split(':')[0]}: ${seen.map((s) => s.split(': ')[1]).join(', ')}` : `mixed: ${seen.join('; ')}`,
  );
  return limitOne;
}

/** How a limit out of range was handled: refused, clamped (at most the clamped value served) or ignored. */
function outOfRangeHandling(ex: Exchange, limit: number, clamped: number): string {
  const code = status(ex) ?? 0;
  const body = jsonBody(ex);
  if (code >= 400 && code < 500) return `refuse: ${code}`;
  if (code === 200 && Array.isArray(body)) return `${body.length <= clamped ? 'clamp' : 'ignore'}: ${body.length} for limit=${limit}`;
  return `other: ${describeStatus(ex)}`;
}

async function statusFilter(ctx: AreaContext): Promise<void> {
  const { ledger, contract } = ctx;
  for (const value of contract.petStatuses) {
    const ex = await send(ctx, {
      operationId: 'listPets',
      purpose: `list with status=${value}`,
      method: 'GET',
      path: '/pets',
      query: { status: value, limit: contract.listLimit.maximum },
    });
    const body = jsonBody(ex);
    if (status(ex) !== 200 || !isPetArray(body)) {
      ledger.fail('list.status-filter', `status=${value} answered ${describeStatus(ex)}`, [ex]);
      continue;
    }
    if (body.length === 0) {
      ledger.note('list.status-filter', `status=${value} was not judged: no pet with that status was listed`);
      continue;
    }
    const others = body.filter((p) => p.status !== value);
    const ids = others
      .slice(0, 5)
      .map((p) => String(p.id))
      .join(', ');
    ledger.assert(
      'list.status-filter',
      others.length === 0,
      `status=${value} returned pets with status ${[...new Set(others.map((p) => String(p.status)))].join(', ')} (ids ${ids})`,
      [ex],
    );
  }
  ledger.notRun('list.status-filter', 'no status filter returned a pet to judge');
  const badStatus = await send(ctx, {
    operationId: 'listPets',
    purpose: 'list with status=adopted',
    method: 'GET',
    path: '/pets',
    query: { status: 'adopted' },
  });
  ledger.assert('list.status-invalid', status(badStatus) === 400, `status=adopted answered ${describeStatus(badStatus)}, expected 400`, [badStatus]);
}

/** Pagination is never demanded; a next link a page does announce must lead on. */
async function nextLink(ctx: AreaContext, page: Exchange): Promise<void> {
  const { ledger } = ctx;
  const next = nextPage(ctx, page);
  if ('none' in next) {
    if (next.none.startsWith('no Link')) {
      ctx.facts.choices?.set('paging', 'none: no Link rel="next" (another mechanism, or none)');
      ledger.notRun(
        'list.next-link',
        `${next.none} on a one-pet page: the target's paging is not a Link the kit can follow (the mechanism is left open by the specification)`,
      );
    } else if (next.elsewhere) ledger.notRun('list.next-link', `${next.none}: whether it leads to the next page cannot be seen from here`);
    else ledger.fail('list.next-link', `${next.none}: it cannot lead to the next page`, [page]);
    return;
  }
  const params = [...new URL(next.url).searchParams.keys()];
  ctx.facts.choices?.set('paging', `link: Link rel="next"${params.length ? ` with ${params.join(', ')}` : ''}`);
  const page2 = await send(ctx, { operationId: 'listPets', purpose: 'follow Link rel="next"', method: 'GET', path: next.url });
  const first = jsonBody(page);
  const second = jsonBody(page2);
  const firstIds = new Set(isPetArray(first) ? first.map((p) => p.id) : []);
  if (status(page2) !== 200 || !isPetArray(second)) ledger.fail('list.next-link', `the next page answered ${describeStatus(page2)}`, [page, page2]);
  else
    ledger.assert(
      'list.next-link',
      second.every((p) => !firstIds.has(p.id)),
      'the next page repeats pets of the first page',
      [page, page2],
    );
}

export const listArea: Area = {
  name: 'list',
  checks,
  phases: {
    contract,
    behaviour: async (ctx) => {
      const onePet = await limits(ctx);
      await statusFilter(ctx);
      await nextLink(ctx, onePet);
    },
  },
};
