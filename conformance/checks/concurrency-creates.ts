// Overlapping creates for the concurrency phase: creates sent at once get ids of their own and are
// kept as sent, and lists read while creates are in flight are whole.
import { type SendOptions } from '../http.ts';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import { validateResponse } from '../../judge/contract.ts';
import { type AreaContext } from './area.ts';
import { describeStatus, isPetArray, status } from '../../judge/answers.ts';
import { nextPage, send } from './support.ts';
import { atOnce, cost, judgeBatch, reserve, sizes, widest, type Size } from './concurrency-waves.ts';

const MAX_PAGES = 10;

interface Created {
  sent: { name: string; categoryId: number; status: string };
  exchange: Exchange;
  id?: number;
}

const petOf = (ex: Exchange) => jsonBody(ex) as Record<string, unknown> | undefined;

function createRequest(sent: Created['sent'], why: string): SendOptions {
  return { operationId: 'createPet', purpose: `create ${sent.name} ${why}`, method: 'POST', path: '/pets', json: sent };
}

function created(sent: Created['sent'][], exchanges: Exchange[]): Created[] {
  return sent.map((s, i) => {
    const ex = exchanges[i]!;
    const id = petOf(ex)?.id;
    return status(ex) === 201 && typeof id === 'number' ? { sent: s, exchange: ex, id } : { sent: s, exchange: ex };
  });
}

/** Every 201 of the run's concurrent creates has an id no other pet of this run was given. */
function judgeIds(ctx: AreaContext, pets: readonly Created[]): void {
  const earlier = new Map<number, Exchange>(ctx.facts.createdIds ?? []);
  if (ctx.facts.created?.id !== undefined) earlier.set(ctx.facts.created.id, ctx.facts.created.exchange);
  const given = pets.filter((p) => p.id !== undefined);
  if (given.length < 2) {
    const answered = [...new Set(pets.map((p) => describeStatus(p.exchange)))].join(', ');
    return ctx.ledger.notRun(
      'concurrency.creates-distinct',
      `fewer than two of the ${pets.length} creates sent at once were answered 201 with an id (${answered})`,
      pets.map((p) => p.exchange),
    );
  }
  const seen = new Map<number, Created>();
  for (const pet of given) {
    const id = pet.id!;
    const twin = seen.get(id);
    const before = earlier.get(id);
    if (twin)
      ctx.ledger.fail('concurrency.creates-distinct', `${twin.sent.name} and ${pet.sent.name}, created at once, were both given id ${id}`, [
        twin.exchange,
        pet.exchange,
      ]);
    else if (before)
      ctx.ledger.fail('concurrency.creates-distinct', `${pet.sent.name} was given id ${id}, which an earlier pet of this run has`, [before, pet.exchange]);
    else ctx.ledger.pass('concurrency.creates-distinct');
    seen.set(id, pet);
  }
}

/** A list answered while creates were in flight: a whole page of whole pets. */
function judgeList(ctx: AreaContext, ex: Exchange, limit: number): void {
  const id = 'concurrency.reads-whole';
  if (status(ex) !== 200) return ctx.ledger.note(id, `${ex.purpose} answered ${describeStatus(ex)}: not judged here`);
  const problems = validateResponse(ctx.contract, 'listPets', ex.response!, 'must')
    .filter((p) => p.where.startsWith('body'))
    .map((p) => `${p.where} ${p.message}`);
  const body = jsonBody(ex);
  if (isPetArray(body)) {
    const ids = body.map((p) => p.id);
    const twice = [...new Set(ids.filter((v, i) => ids.indexOf(v) !== i))];
    if (twice.length > 0) problems.push(`pets ${twice.join(', ')} appear twice on one page`);
    if (body.length > limit) problems.push(`${body.length} pets on a page of limit ${limit}`);
  }
  if (problems.length > 0 && problems[0] === 'body is not valid JSON')
    problems[0] = `the body is not whole JSON: it ends ${JSON.stringify(ex.response!.body.slice(-40))}`;
  ctx.ledger.assert(id, problems.length === 0, `${ex.purpose}: ${problems.join('; ')}`, [ex]);
}

/** Walks the list of `petStatus` (Link rel="next") until every wanted id is found; what it found, and whether the list was seen to its end. */
async function walk(ctx: AreaContext, petStatus: string, wanted: ReadonlySet<number>) {
  const limit = ctx.contract.listLimit.maximum;
  const found = new Map<number, { pet: Record<string, unknown>; page: Exchange }>();
  let path = '/pets';
  let query: SendOptions['query'] = { status: petStatus, limit };
  for (let n = 0; n < MAX_PAGES; n++) {
    if (!reserve(ctx, 1)) return { found, end: `--max-requests ran out after ${n} page(s)` };
    const page = await send(ctx, {
      operationId: 'listPets',
      purpose: `list status=${petStatus}, page ${n + 1}, looking for the pets created at once`,
      method: 'GET',
      path,
      query,
      phase: 'concurrency',
    });
    const body = jsonBody(page);
    if (status(page) !== 200 || !isPetArray(body)) return { found, end: `page ${n + 1} answered ${describeStatus(page)}`, page };
    for (const pet of body) if (typeof pet.id === 'number' && wanted.has(pet.id)) found.set(pet.id, { pet, page });
    if ([...wanted].every((id) => found.has(id))) return { found, complete: true as const };
    const next = nextPage(ctx, page);
    if ('none' in next) return body.length < limit ? { found, complete: true as const, page } : { found, end: `${next.none} after a full page ${n + 1}`, page };
    path = next.url;
    query = undefined;
  }
  return { found, end: `not all found within ${MAX_PAGES} pages` };
}

const differing = (sent: Created['sent'], got: Record<string, unknown> | undefined) =>
  Object.entries(sent)
    .filter(([k, v]) => got?.[k] !== v)
    .map(([k]) => k);

/** Each pet created at once, read back by its id (while the second wave's creates are in flight): the pet as sent. */
function judgeRead(ctx: AreaContext, pet: Required<Created>, got: Exchange): void {
  const body = petOf(got);
  const wrong = differing(pet.sent, body);
  ctx.ledger.assert(
    'concurrency.creates-kept',
    status(got) === 200 && wrong.length === 0,
    status(got) !== 200
      ? `${pet.sent.name}, created as pet ${pet.id}, is gone: GET /pets/${pet.id} answered ${describeStatus(got)}`
      : `${pet.sent.name}, created as pet ${pet.id}, was overwritten: GET /pets/${pet.id} returns ${wrong.map((k) => `${k} ${JSON.stringify(body?.[k])}`).join(', ')}`,
    [pet.exchange, got],
  );
}

/** Each pet created at once is in the list of its status, as it was sent. */
async function judgeListed(ctx: AreaContext, pets: readonly Required<Created>[], petStatus: string): Promise<void> {
  const id = 'concurrency.creates-kept';
  const listed = await walk(ctx, petStatus, new Set(pets.map((p) => p.id)));
  for (const pet of pets) {
    const seen = listed.found.get(pet.id);
    if (seen) {
      const wrong = differing(pet.sent, seen.pet);
      ctx.ledger.assert(id, wrong.length === 0, `${pet.sent.name}, created as pet ${pet.id}, is listed with another ${wrong.join(', ')}`, [
        pet.exchange,
        seen.page,
      ]);
    } else if ('complete' in listed)
      ctx.ledger.fail(id, `${pet.sent.name}, created as pet ${pet.id}, is missing from the whole list of status=${petStatus}`, [
        pet.exchange,
        ...(listed.page ? [listed.page] : []),
      ]);
    else ctx.ledger.note(id, `${pet.sent.name} was not looked for in the list: ${listed.end}`);
  }
}

const withId = (pets: readonly Created[]) => pets.filter((p): p is Required<Created> => p.id !== undefined);

/**
 * The largest size the budget, the key's Limit and the room left in its window allow, so that the
 * pacer need not wait a window for the phase; when none fits that room, the pacer waits. A reason
 * instead when not even the smallest fits.
 */
async function sizeFor(ctx: AreaContext): Promise<Size | string> {
  const clients = ctx.options.clients;
  const ladder = sizes(clients);
  const full = ladder[0]!;
  const smallest = ladder[ladder.length - 1]!;
  const budget = ctx.budget.left;
  const key = ctx.pacer.known('key');
  const limit = key.limit ?? Infinity;
  const fresh = key.resetAtMs !== null && key.resetAtMs <= ctx.clock.now();
  const room = key.remaining === null || fresh ? Infinity : key.remaining;
  if (cost(smallest) > budget) return `--max-requests left ${budget} requests, not the ${cost(smallest)} the smallest concurrency phase needs`;
  if (widest(smallest) > limit) return `the key's X-RateLimit-Limit ${limit} is below the ${widest(smallest)} requests the smallest wave sends at once`;
  const affordable = ladder.filter((s) => cost(s) <= budget && widest(s) <= limit);
  let size = affordable.find((s) => cost(s) <= room);
  if (size === undefined) {
    size = affordable[0]!;
    await ctx.pacer.ensure('key', cost(size), `the concurrency phase's ${cost(size)} requests`);
  }
  if (size !== full) {
    const bounds = [
      cost(full) > budget ? `--max-requests left ${budget} requests` : '',
      widest(full) > limit ? `the key's window holds ${limit} requests` : '',
      size !== affordable[0] ? `the key had ${room} requests left in its window` : '',
    ].filter(Boolean);
    ctx.ledger.note(
      'concurrency.creates-distinct',
      `${size.creates} creates at once, then ${size.pairs} creates with ${size.pairs} lists, not the ${full.creates} and ${full.pairs} of --clients ${clients} (${cost(size)} requests, not ${cost(full)}): ${bounds.join(', ')}`,
    );
  }
  return size;
}

/** The lists of the second wave, in turn: the creates' status at the largest limit, and without parameters. */
function listsFor(ctx: AreaContext, petStatus: string, pairs: number): Array<{ query: Record<string, string | number>; limit: number }> {
  const { default: byDefault, maximum } = ctx.contract.listLimit;
  const kinds: Array<{ query: Record<string, string | number>; limit: number }> = [
    { query: { status: petStatus, limit: maximum }, limit: maximum },
    { query: {}, limit: byDefault },
  ];
  return Array.from({ length: pairs }, (_, i) => kinds[i % kinds.length]!);
}

export async function creates(ctx: AreaContext): Promise<void> {
  const statuses = ctx.contract.petStatuses;
  const petStatus = statuses[statuses.length - 1] ?? 'available';
  const bodies = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({ name: `conformance-${ctx.token}-${tag}-${i + 1}`, categoryId: i + 1, status: petStatus }));

  const size = await sizeFor(ctx);
  if (typeof size === 'string' || !reserve(ctx, size.creates)) {
    const why = typeof size === 'string' ? size : `--max-requests left ${ctx.budget.left} requests, not the ${size.creates} creates this needs`;
    for (const c of ['concurrency.creates-distinct', 'concurrency.creates-kept', 'concurrency.reads-whole']) ctx.ledger.notRun(c, why);
    return;
  }
  ctx.progress({ type: 'phase', name: `concurrency: ${size.creates} creates at once` });
  const first = bodies(size.creates, 'at-once');
  const wave = await atOnce(
    ctx,
    first.map((s) => createRequest(s, 'at once with others')),
  );
  judgeBatch(ctx, wave, `${size.creates} creates sent at once`);
  const pets = created(first, wave);
  const readable = withId(pets);

  // Creates, lists and reads of the first wave's pets at once, creates and lists interleaved so
  // that the lists are read while creates are in flight.
  const second = bodies(size.pairs, 'while-listing');
  const lists = listsFor(ctx, petStatus, size.pairs);
  const requests: SendOptions[] = [
    ...second.flatMap((s, i) => {
      const { query, limit } = lists[i]!;
      const what = Object.entries(query).map(([k, v]) => `${k}=${String(v)}`);
      return [
        createRequest(s, 'while lists are read'),
        {
          operationId: 'listPets',
          purpose: `list ${what.join('&') || 'without parameters'} (limit ${limit}) while creates are in flight`,
          method: 'GET',
          path: '/pets',
          query,
        },
      ] satisfies SendOptions[];
    }),
    ...readable.map(
      (p) => ({ operationId: 'getPet', purpose: `get pet ${p.id}, created at once with others`, method: 'GET', path: `/pets/${p.id}` }) satisfies SendOptions,
    ),
  ];
  if (reserve(ctx, requests.length)) {
    ctx.progress({ type: 'phase', name: `concurrency: ${second.length} creates at once with ${lists.length} lists and ${readable.length} reads` });
    const mixed = await atOnce(ctx, requests);
    judgeBatch(ctx, mixed, `${second.length} creates, ${lists.length} lists and ${readable.length} reads sent at once`);
    lists.forEach(({ limit }, i) => judgeList(ctx, mixed[2 * i + 1]!, limit));
    readable.forEach((pet, i) => judgeRead(ctx, pet, mixed[2 * second.length + i]!));
    pets.push(
      ...created(
        second,
        second.map((_, i) => mixed[2 * i]!),
      ),
    );
  } else {
    const why = `--max-requests left ${ctx.budget.left} requests, not the ${requests.length} reads and creates this needs`;
    for (const c of ['concurrency.creates-kept', 'concurrency.reads-whole']) ctx.ledger.notRun(c, why);
  }

  judgeIds(ctx, pets);
  if (withId(pets).length === 0)
    ctx.ledger.notRun(
      'concurrency.creates-kept',
      'no create sent at once was answered 201 with an id',
      pets.map((p) => p.exchange),
    );
  else await judgeListed(ctx, withId(pets), petStatus);
}
