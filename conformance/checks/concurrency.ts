// Concurrency: what only overlapping requests show. A store that reads its next id and writes it a
// few milliseconds apart, a list read while a create is half written, a limiter whose counter is
// read and written apart: each passes every sequential check. The phase sends creates at once,
// lists while creates are in flight, and (with --rate-limit-key) a burst past the allowance at
// once. Answers arrive in another order than the server decided them, so every verdict here is
// order-free: ids and Remaining values as sets, counts per window.
import { parseInteger } from '../../spec/rules/fields.js';
import { isRefusalStatus } from '../../spec/rules/snapshot.js';
import type { CheckDef } from '../catalogue.ts';
import { jsonBody, type Exchange, type SendOptions } from '../http.ts';
import { validateResponse } from '../openapi.ts';
import { SECTION, type Area, type AreaContext } from './area.ts';
import { describeStatus, header, isPetArray, nextPage, send, status } from './support.ts';

const PHASE = ['concurrency'] as const;

const checks: readonly CheckDef[] = [
  {
    id: 'concurrency.creates-distinct',
    level: 'must',
    profile: 'full',
    section: 'Resources and their fields › Pet',
    title: 'Creates sent at once get ids of their own: no two 201s carry the same id, nor an id this run was given before',
    needs: PHASE,
  },
  {
    id: 'concurrency.creates-kept',
    level: 'must',
    profile: 'full',
    section: `${SECTION.create}; ${SECTION.get}; ${SECTION.list}`,
    title: 'Every pet created at once with others is kept as sent: GET /pets/{id} and the list return it, none overwritten by another',
    needs: PHASE,
  },
  {
    id: 'concurrency.reads-whole',
    level: 'must',
    profile: 'full',
    section: `${SECTION.list}; Resources and their fields › Pets`,
    title: 'A list read while creates are in flight is a whole bare array of valid Pets: no page cut short, no partial pet, no id twice, at most limit',
    needs: PHASE,
  },
  {
    id: 'concurrency.burst-exact',
    level: 'must',
    profile: 'full',
    section: `${SECTION.exceeded}; ${SECTION.headers}`,
    title: 'A burst sent at once past the Remaining announced admits exactly that many, and each 429 says Remaining 0',
    needs: ['rate-limit-key', ...PHASE],
  },
  {
    id: 'concurrency.burst-remaining-distinct',
    level: 'must',
    profile: 'full',
    section: SECTION.headers,
    title: 'Requests admitted at once in one window never share an X-RateLimit-Remaining value, and each is below what the window had before',
    needs: PHASE,
  },
];

/**
 * The sizes of the two waves, largest first: creates of the first wave, and create-and-list pairs of
 * the second. At most as many creates at once as the kit's client keeps connections (transport.ts),
 * so all of them are in flight together; at least two, and one pair, to judge anything. Each size
 * costs 2 * creates + 2 * pairs + 1 requests with --api-key (the creates, the pairs, a read of each
 * first-wave pet, one page of the list): 13 at most, 7 at least.
 */
const SIZES: ReadonlyArray<{ creates: number; pairs: number }> = [
  { creates: 4, pairs: 2 },
  { creates: 4, pairs: 1 },
  { creates: 3, pairs: 1 },
  { creates: 2, pairs: 1 },
];
const cost = (size: (typeof SIZES)[number]) => 2 * size.creates + 2 * size.pairs + 1;
/** Requests past the allowance in the burst on --rate-limit-key: a racy limiter admits some of them. */
const OVER = 3;
const MAX_PAGES = 10;

// ---------------------------------------------------------------------------------------------
// The order-free judgement of answers sent at once (pure; concurrency.test.ts tables it).

/** What one answer says about the limit, and which operation it answered (limits per operation are left open). */
export interface Answer {
  operation: string;
  status: number;
  limit: number | null;
  remaining: number | null;
  reset: number | null;
}

/** A verdict that judged something, or why there was nothing to judge. */
export type Verdict = { judged: true; problems: string[] } | { judged: false; why: string };

/** What the key had left, and in which window, before the burst. */
export interface Before {
  remaining: number;
  reset: number;
}

export function answerOf(ex: Exchange): Answer {
  return {
    operation: ex.operationId,
    status: ex.response?.status ?? 0,
    limit: parseInteger(header(ex, 'x-ratelimit-limit')),
    remaining: parseInteger(header(ex, 'x-ratelimit-remaining')),
    reset: parseInteger(header(ex, 'x-ratelimit-reset')),
  };
}

const admitted = (a: Answer) => a.status >= 200 && a.status < 300;

/** The values, each once, in a fixed order (never the order of arrival). */
const distinct = <T extends string | number | null>(values: readonly T[]): T[] =>
  [...new Set(values)].sort((a, b) => String(a).localeCompare(String(b), 'en', { numeric: true }));

/**
 * Remaining among the answers admitted at once: within one window (one operation, Limit and Reset:
 * a sliding window that freed room, or a new window, announces another Reset) no value twice, and,
 * in the window `before` describes, every value below what it had then.
 */
export function judgeRemaining(answers: readonly Answer[], before?: Before): Verdict {
  const windows = new Map<string, { reset: number; values: number[] }>();
  for (const a of answers) {
    if (!admitted(a) || a.remaining === null || a.limit === null || a.reset === null) continue;
    const key = `${a.operation}, Limit ${a.limit}, Reset ${a.reset}`;
    const window = windows.get(key) ?? { reset: a.reset, values: [] };
    window.values.push(a.remaining);
    windows.set(key, window);
  }
  const problems: string[] = [];
  let judged = false;
  // In a fixed order, so that the verdict's words do not depend on the order the answers arrived in.
  for (const [key, { reset, values }] of [...windows].sort(([a], [b]) => a.localeCompare(b))) {
    if (values.length > 1) judged = true;
    const counts = new Map<number, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    for (const [v, n] of [...counts].sort(([x], [y]) => y - x)) if (n > 1) problems.push(`Remaining ${v} on ${n} answers admitted at once (${key})`);
    if (before && reset === before.reset) {
      judged = true;
      const high = [...counts.keys()].filter((v) => v >= before.remaining).sort((x, y) => y - x);
      if (high.length > 0) problems.push(`Remaining ${high.join(', ')} after a burst sent when the window had ${before.remaining} left (${key})`);
    }
  }
  if (!judged) return { judged: false, why: 'no two answers admitted at once carried Remaining in one window' };
  return { judged: true, problems };
}

/**
 * How many of a burst sent at once were admitted: when every answer is the limiter's (admitted or
 * refused) and in the window `before` describes, exactly min(Remaining, sent), and each refusal
 * says Remaining 0. Which answers are the admitted ones is left to the server: only counts are judged.
 */
export function judgeCount(answers: readonly Answer[], before: Before): Verdict {
  const undecided = answers.filter((a) => !admitted(a) && !isRefusalStatus(a.status));
  if (undecided.length > 0)
    return {
      judged: false,
      why: `${undecided.length} of the ${answers.length} answers were neither admitted nor refused (${distinct(undecided.map((a) => a.status || 'no answer')).join(', ')}): the window's count is not known`,
    };
  const unread = answers.filter((a) => a.reset === null || a.remaining === null);
  if (unread.length > 0)
    return { judged: false, why: `${unread.length} of the ${answers.length} answers lack integer X-RateLimit-Remaining/Reset (see headers.rate-limit)` };
  const resets = distinct(answers.map((a) => a.reset));
  if (resets.length !== 1 || resets[0] !== before.reset)
    return {
      judged: false,
      why: `the burst's answers name Reset ${resets.join(', ')}, not only the ${before.reset} of the window it was sent into: the window moved during the burst`,
    };
  const problems: string[] = [];
  const served = answers.filter(admitted).length;
  const expected = Math.min(before.remaining, answers.length);
  if (served !== expected)
    problems.push(
      `${served} of ${answers.length} requests sent at once were admitted when the window had ${before.remaining} left: ${served > expected ? 'over-admitted' : 'refused inside the allowance'}`,
    );
  const open = answers.filter((a) => !admitted(a) && a.remaining !== 0);
  if (open.length > 0) problems.push(`${open.length} refusal(s) of the burst announce Remaining ${distinct(open.map((a) => a.remaining)).join(', ')}, not 0`);
  return { judged: true, problems };
}

// ---------------------------------------------------------------------------------------------
// Sending at once, within the pacer and the budget.

/** Takes `n` requests from --max-requests, all or none. */
function reserve(ctx: AreaContext, n: number): boolean {
  if (ctx.budget.left < n) return false;
  for (let i = 0; i < n; i++) ctx.budget.take();
  return true;
}

/**
 * Requests of --api-key sent at once. The pacer makes room for all of them first; it learns their
 * answers in arrival order, which is not the order the server decided them, so it is told last the
 * answer that says least is left.
 */
async function atOnce(ctx: AreaContext, requests: readonly SendOptions[]): Promise<Exchange[]> {
  await ctx.pacer.ensure('key', requests.length, `${requests.length} requests sent at once`);
  const exchanges = await Promise.all(requests.map((r) => send(ctx, { ...r, phase: 'concurrency' })));
  const last = exchanges
    .filter((ex) => (status(ex) ?? 0) < 300 && parseInteger(header(ex, 'x-ratelimit-remaining')) !== null)
    .sort((a, b) => parseInteger(header(a, 'x-ratelimit-remaining'))! - parseInteger(header(b, 'x-ratelimit-remaining'))!)[0];
  if (last) await ctx.pacer.after(last);
  return exchanges;
}

function record(ctx: AreaContext, id: string, verdict: Verdict, evidence: Exchange[]): void {
  if (!verdict.judged) return ctx.ledger.notRun(id, verdict.why);
  if (verdict.problems.length === 0) ctx.ledger.pass(id);
  for (const problem of verdict.problems) ctx.ledger.fail(id, problem, evidence);
}

/** Remaining of a batch of --api-key: other clients of the key only make the values fall further, never repeat. */
function judgeBatch(ctx: AreaContext, exchanges: Exchange[]): void {
  record(ctx, 'concurrency.burst-remaining-distinct', judgeRemaining(exchanges.map(answerOf)), exchanges);
}

// ---------------------------------------------------------------------------------------------
// Overlapping creates, reads during creates, and what was kept.

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
 * The largest size the key's window has room for now, so that the pacer need not wait a window for
 * the phase (a default run leaves a pro key 10 to 35 requests of its minute); when none fits, the
 * pacer waits for the window, and the phase has its full size.
 */
async function sizeFor(ctx: AreaContext): Promise<(typeof SIZES)[number]> {
  const key = ctx.pacer.known('key');
  const fresh = key.resetAtMs !== null && key.resetAtMs <= ctx.clock.now();
  const room = key.remaining === null || fresh ? Infinity : key.remaining;
  const size = SIZES.find((s) => cost(s) <= room);
  if (size === undefined) await ctx.pacer.ensure('key', cost(SIZES[0]!), `the concurrency phase's ${cost(SIZES[0]!)} requests`);
  else if (size !== SIZES[0])
    ctx.ledger.note(
      'concurrency.creates-distinct',
      `${size.creates} creates at once, not ${SIZES[0]!.creates}: the key had ${room} requests left in its window`,
    );
  return size ?? SIZES[0]!;
}

async function creates(ctx: AreaContext): Promise<void> {
  const statuses = ctx.contract.petStatuses;
  const petStatus = statuses[statuses.length - 1] ?? 'available';
  const bodies = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({ name: `conformance-${ctx.token}-${tag}-${i + 1}`, categoryId: i + 1, status: petStatus }));

  const size = await sizeFor(ctx);
  if (!reserve(ctx, size.creates)) {
    const why = `--max-requests left ${ctx.budget.left} requests, not the ${size.creates} creates this needs`;
    for (const c of ['concurrency.creates-distinct', 'concurrency.creates-kept', 'concurrency.reads-whole']) ctx.ledger.notRun(c, why);
    return;
  }
  ctx.progress({ type: 'phase', name: `concurrency: ${size.creates} creates at once` });
  const first = bodies(size.creates, 'at-once');
  const wave = await atOnce(
    ctx,
    first.map((s) => createRequest(s, 'at once with others')),
  );
  judgeBatch(ctx, wave);
  const pets = created(first, wave);
  const readable = withId(pets);

  // Creates, lists and reads of the first wave's pets at once, creates and lists interleaved so
  // that the lists are read while creates are in flight.
  const { default: byDefault, maximum } = ctx.contract.listLimit;
  const second = bodies(size.pairs, 'while-listing');
  const lists = (
    [
      { query: { status: petStatus, limit: maximum }, limit: maximum },
      { query: {}, limit: byDefault },
    ] satisfies Array<{ query: Record<string, string | number>; limit: number }>
  ).slice(0, size.pairs);
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
    judgeBatch(ctx, mixed);
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
  if (withId(pets).length === 0) ctx.ledger.notRun('concurrency.creates-kept', 'no create sent at once was answered 201 with an id');
  else await judgeListed(ctx, withId(pets), petStatus);
}

// ---------------------------------------------------------------------------------------------
// A burst on --rate-limit-key at the edge of its allowance.

async function burst(ctx: AreaContext): Promise<void> {
  const key = ctx.options.rateLimitKey;
  if (!key) return;
  const id = 'concurrency.burst-exact';
  const verdict = ctx.facts.rateLimitVerdict;
  if (!verdict) return ctx.ledger.notRun(id, 'the rate-limit phase did not run (no ratelimit.* check is selected): nothing is known of the key');
  const authorization = ctx.http.bearer(key);
  const last = ctx.http.exchanges.filter((ex) => ex.request.headers.authorization === authorization).at(-1);
  const announced = last && parseInteger(header(last, 'x-ratelimit-remaining'));
  const reset = last && parseInteger(header(last, 'x-ratelimit-reset'));
  if (!last || (status(last) ?? 0) >= 300 || (status(last) ?? 0) < 200)
    return ctx.ledger.notRun(
      id,
      `the rate-limit phase left --rate-limit-key ${last ? `refused (${describeStatus(last)})` : 'unused'}${ctx.options.wait ? '' : ', and --no-wait keeps the kit from waiting for its window'}: no allowance to burst into`,
    );
  if (announced === null || announced === undefined || reset === null || reset === undefined)
    return ctx.ledger.notRun(id, 'the last answer to --rate-limit-key lacks integer X-RateLimit-Remaining/Reset');
  const total = Math.min(announced + OVER, ctx.options.maxRateLimitRequests);
  ctx.progress({ type: 'phase', name: `concurrency: ${total} requests at once on --rate-limit-key (Remaining ${announced})` });
  const exchanges = await Promise.all(
    Array.from({ length: total }, (_, i) =>
      send(ctx, {
        operationId: 'listPets',
        purpose: `burst request ${i + 1} of ${total}, sent at once when Remaining was ${announced}`,
        method: 'GET',
        path: '/pets',
        query: { limit: 1 },
        authorization,
        phase: 'concurrency',
      }),
    ),
  );
  // The one judge of the key's window: its rules report to the ratelimit.* checks.
  verdict.observeBatch(exchanges);
  const answers = exchanges.map(answerOf);
  const before = { remaining: announced, reset };
  const evidence = [last, ...exchanges.filter((ex) => isRefusalStatus(status(ex) ?? 0)).slice(0, 2), ...exchanges.slice(0, 2)];
  record(ctx, id, judgeCount(answers, before), evidence);
  const distinct = judgeRemaining(answers, before);
  if (distinct.judged) record(ctx, 'concurrency.burst-remaining-distinct', distinct, evidence);
  else ctx.ledger.note('concurrency.burst-remaining-distinct', `the burst on --rate-limit-key: ${distinct.why}`);
}

async function concurrency(ctx: AreaContext): Promise<void> {
  await creates(ctx);
  await burst(ctx);
  ctx.ledger.notRun('concurrency.burst-remaining-distinct', 'no requests were sent at once (--max-requests left no room: see concurrency.creates-distinct)');
}

export const concurrencyArea: Area = { name: 'concurrency', checks, phases: { concurrency } };
