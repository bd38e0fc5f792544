// Concurrency: what only overlapping requests show. A store that reads its next id and writes it a
// few milliseconds apart, a list read while a create is half written, a limiter whose counter is
// read and written apart: each passes every sequential check. The phase sends creates at once,
// lists while creates are in flight, and (with --rate-limit-key) a burst past the allowance at
// once, --clients requests at a time. Answers arrive in another order than the server decided them,
// so every verdict here is order-free: ids as sets, and Remaining and counts as the window rules
// (spec/rules/window-rules.js) judge a batch, in the one order a correct limiter could have decided it.
import { parseInteger } from '../../spec/rules/fields.js';
import { DEFAULT_TOLERANCES, type Snapshot, type Tolerances } from '../../spec/rules/snapshot.js';
import { createWindowRules, type Kind, type Outcome, type Violation } from '../../spec/rules/window-rules.js';
import type { CheckDef } from '../catalogue.ts';
import { jsonBody, type Exchange, type SendOptions } from '../http.ts';
import { validateResponse } from '../openapi.ts';
import { SECTION, type Area, type AreaContext } from './area.ts';
import { snapshotOf } from './rate-limit-verdict.ts';
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

/** Requests past the allowance in the burst on --rate-limit-key: a racy limiter admits some of them. */
const OVER = 3;
const MAX_PAGES = 10;

// ---------------------------------------------------------------------------------------------
// Verdicts read from the window rules (spec/rules/window-rules.js), the one judge of a rate limit;
// pure, and concurrency.test.ts tables them in many arrival orders.

/** A verdict that judged something (the rules' violations that fail it), or why there was nothing to judge. */
export type Verdict = { judged: true; problems: Violation[] } | { judged: false; why: string };

/** What the key had left, and in which window, before the burst: its last answer. */
export interface Before {
  remaining: number;
  reset: number;
}

/** The rules concurrency.burst-exact reads, and concurrency.burst-remaining-distinct. */
const EXACT: readonly Kind[] = ['over_admitted', 'under_admitted', 'remaining_nonzero_on_429'];
const DISTINCT: readonly Kind[] = ['remaining_not_decremented', 'remaining_skipped'];

/** The violations of `kinds` on answers of the batch, and whether the rules judged `decisive` on any of them. */
function readOutcome(out: Outcome, batch: ReadonlySet<unknown>, kinds: readonly Kind[], decisive: Kind) {
  return {
    problems: out.violations.filter((v) => kinds.includes(v.kind) && v.refs.some((r) => batch.has(r))),
    judged: out.judged.some((j) => j.kind === decisive && batch.has(j.ref)),
  };
}

/** The values, each once, in a fixed order (never the order of arrival). */
const distinct = <T extends string | number | null>(values: readonly T[]): T[] =>
  [...new Set(values)].sort((a, b) => String(a).localeCompare(String(b), 'en', { numeric: true }));

/**
 * The burst's two verdicts, read from the window rules' Outcome on it (rateLimitVerdict.observeBatch,
 * which also reports it to the ratelimit.* checks). How many were admitted is judged where the rules
 * counted a refusal of the burst against its window (under_admitted judged on one): then exactly the
 * allowance was admitted unless a rule says otherwise. Remaining is judged where they compared an
 * admitted answer's Remaining with the one before it. `burst`: the snapshots the Outcome's refs name.
 */
export function judgeBurst(out: Outcome, burst: readonly Snapshot[], before: Before): { exact: Verdict; distinct: Verdict } {
  const refs = new Set(burst.map((s) => s.ref));
  const exact = readOutcome(out, refs, EXACT, 'under_admitted');
  const values = readOutcome(out, refs, DISTINCT, 'remaining_not_decremented');
  const undecided = burst.filter((s) => !s.admitted && !s.refused);
  const unread = burst.filter((s) => s.status !== 0 && s.malformed.length > 0);
  const resets = distinct(burst.map((s) => s.reset));
  const moved = resets.some((r) => r === null || Math.abs(r - before.reset) > DEFAULT_TOLERANCES.roundingSeconds);
  const why =
    undecided.length > 0
      ? `${undecided.length} of the ${burst.length} answers were neither admitted nor refused (${distinct(undecided.map((s) => s.status || 'no answer')).join(', ')}): the window's count is not known`
      : unread.length > 0
        ? `${unread.length} of the ${burst.length} answers lack integer X-RateLimit-Limit/Remaining/Reset (see headers.rate-limit)`
        : moved
          ? `the window moved during the burst: the key's last answer before it named Reset ${before.reset}, its answers name ${resets.join(', ')}, and no refusal could be counted against the window it was sent into`
          : `no answer of the burst was refused where the window rules could count its window (see ratelimit.*)`;
  return {
    // A request the server may or may not have counted leaves a refusal inside the allowance unproven.
    exact: exact.problems.length > 0 || (exact.judged && undecided.length === 0) ? { judged: true, problems: exact.problems } : { judged: false, why },
    distinct:
      values.problems.length > 0 || values.judged
        ? { judged: true, problems: values.problems }
        : {
            judged: false,
            why: burst.some((s) => s.admitted)
              ? `no admitted answer of the burst could be compared with the Remaining before it in one window${undecided.length > 0 || unread.length > 0 || moved ? ` (${why})` : ''}`
              : `none of the ${burst.length} answers was admitted`,
          },
  };
}

/** One answer of --api-key sent at once with others, and the operation it answered (limits per operation are left open). */
export interface Answered {
  operation: string;
  snapshot: Snapshot;
}

/**
 * Remaining among answers of --api-key sent at once. Each operation's answers are judged by window
 * rules of their own (a server may count creates and lists apart), after the last admitted answer
 * of that operation before the batch, when there is one: what the key had left. Only a Remaining
 * repeated or risen is a failure (remaining_not_decremented): other operations, and other clients of
 * the key, may share the counter and make the values fall by more than one.
 */
export function judgeAtOnce(batch: readonly Answered[], before: ReadonlyMap<string, Snapshot>, tolerances?: Partial<Tolerances>): Verdict {
  const problems: Violation[] = [];
  let judged = false;
  for (const operation of distinct(batch.map((a) => a.operation))) {
    const answers = batch.filter((a) => a.operation === operation).map((a) => a.snapshot);
    const prior = before.get(operation);
    if (!prior && answers.length < 2) continue;
    const rules = createWindowRules(tolerances ? { tolerances } : {});
    if (prior) rules.observe([prior]);
    const found = readOutcome(rules.observe(answers), new Set(answers.map((s) => s.ref)), ['remaining_not_decremented'], 'remaining_not_decremented');
    judged ||= found.judged;
    const context = `${operation}, ${answers.length} answer(s) sent at once${prior ? ` after one with Remaining ${prior.remaining ?? 'missing'}` : ''}`;
    problems.push(...found.problems.map((v) => ({ ...v, detail: `${v.detail} (${context})` })));
  }
  if (!judged && problems.length === 0)
    return { judged: false, why: 'no answer admitted at once could be compared with another of its operation in one window' };
  return { judged: true, problems };
}

// ---------------------------------------------------------------------------------------------
// Sending at once, within the pacer and the budget.

/** How big the two waves are: creates of the first wave, and create-and-list pairs of the second. */
interface Size {
  creates: number;
  pairs: number;
}

/** Requests of --api-key a size costs: the creates, the pairs, a read of each first-wave pet, one page of the list. */
const cost = (size: Size) => 2 * size.creates + 2 * size.pairs + 1;
/** The most requests of --api-key one wave of it needs in one window: the second (its pairs and the reads). */
const widest = (size: Size) => size.creates + 2 * size.pairs;

/**
 * The sizes for --clients `clients`, largest first: that many creates in the first wave and as many
 * creates and lists in the second; smaller, pairs go before creates. At least two creates and one
 * pair, to judge anything: 7 requests.
 */
function sizes(clients: number): Size[] {
  const ladder: Size[] = [];
  for (let creates = clients; creates >= 2; creates--)
    for (let pairs = Math.max(1, Math.floor(creates / 2)); pairs >= 1; pairs--) ladder.push({ creates, pairs });
  return ladder;
}

/** Takes `n` requests from --max-requests, all or none. */
function reserve(ctx: AreaContext, n: number): boolean {
  if (ctx.budget.left < n) return false;
  for (let i = 0; i < n; i++) ctx.budget.take();
  return true;
}

/** Runs `count` tasks with at most `n` in flight, each started as one before it is answered; the results in the tasks' order. */
async function inFlight<T>(n: number, count: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, count) }, worker));
  return results;
}

/**
 * Requests of --api-key sent at once, at most --clients in flight. The pacer makes room for all of
 * them first; it learns their answers in arrival order, which is not the order the server decided
 * them, so it is told last the answer that says least is left.
 */
async function atOnce(ctx: AreaContext, requests: readonly SendOptions[]): Promise<Exchange[]> {
  await ctx.pacer.ensure('key', requests.length, `${requests.length} requests sent at once`);
  const exchanges = await inFlight(ctx.options.clients, requests.length, (i) => send(ctx, { ...requests[i]!, phase: 'concurrency' }));
  const last = exchanges
    .filter((ex) => (status(ex) ?? 0) < 300 && parseInteger(header(ex, 'x-ratelimit-remaining')) !== null)
    .sort((a, b) => parseInteger(header(a, 'x-ratelimit-remaining'))! - parseInteger(header(b, 'x-ratelimit-remaining'))!)[0];
  if (last) await ctx.pacer.after(last);
  return exchanges;
}

const refsOf = (v: Violation) => v.refs.filter((r): r is Exchange => typeof r === 'object' && r !== null);

/** A verdict into the ledger: `what` names the requests (no ": " in it), each violation's detail says what broke. */
function record(ctx: AreaContext, id: string, verdict: Verdict, what: string, evidence: Exchange[] = []): void {
  if (!verdict.judged) return ctx.ledger.notRun(id, verdict.why);
  if (verdict.problems.length === 0) return ctx.ledger.pass(id);
  for (const v of verdict.problems) ctx.ledger.fail(id, `${what}: ${v.detail}`, [...evidence, ...refsOf(v)], v.kind);
}

const isAdmitted = (ex: Exchange) => (status(ex) ?? 0) >= 200 && (status(ex) ?? 0) < 300;

/** Remaining of a batch of --api-key: other clients of the key only make the values fall further, never repeat. */
function judgeBatch(ctx: AreaContext, exchanges: Exchange[], what: string): void {
  const own = ctx.http.bearer();
  const first = Math.min(...exchanges.map((ex) => ex.seq));
  const before = new Map<string, Exchange>();
  for (const ex of ctx.http.exchanges) {
    if (ex.seq >= first || ex.request.headers.authorization !== own || !isAdmitted(ex)) continue;
    const known = before.get(ex.operationId);
    if (!known || known.seq < ex.seq) before.set(ex.operationId, ex);
  }
  const read = (ex: Exchange) => snapshotOf(ex, ctx.options.dateHeader);
  const verdict = judgeAtOnce(
    exchanges.map((ex) => ({ operation: ex.operationId, snapshot: read(ex) })),
    new Map([...before].map(([operation, ex]) => [operation, read(ex)])),
    { clockSkewSeconds: ctx.options.clockToleranceSeconds },
  );
  record(ctx, 'concurrency.burst-remaining-distinct', verdict, what);
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
 * The largest size the budget, the key's Limit and the room left in its window allow, so that the
 * pacer need not wait a window for the phase (a default run leaves a pro key 10 to 35 requests of its
 * minute); when no size fits that room, the pacer waits for the window, and the phase has the largest
 * size the budget and the Limit allow. Why it is smaller than --clients asks is noted; a reason
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

async function creates(ctx: AreaContext): Promise<void> {
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
  const clients = ctx.options.clients;
  const total = Math.min(announced + OVER, ctx.options.maxRateLimitRequests);
  ctx.progress({ type: 'phase', name: `concurrency: ${total} requests on --rate-limit-key, ${clients} at once (Remaining ${announced})` });
  const exchanges = await inFlight(clients, total, (i) =>
    send(ctx, {
      operationId: 'listPets',
      purpose: `burst request ${i + 1} of ${total}, at most ${clients} in flight, sent when Remaining was ${announced}`,
      method: 'GET',
      path: '/pets',
      query: { limit: 1 },
      authorization,
      phase: 'concurrency',
    }),
  );
  // The one judge of the key's window: its rules report to the ratelimit.* checks, and the
  // concurrency checks read their verdict on the burst from the same Outcome.
  const out = verdict.observeBatch(exchanges);
  const judged = judgeBurst(
    out,
    exchanges.map((ex) => snapshotOf(ex, ctx.options.dateHeader)),
    { remaining: announced, reset },
  );
  const what = `the burst of ${total} on --rate-limit-key (at most ${clients} in flight, sent when Remaining was ${announced})`;
  record(ctx, id, judged.exact, what, [last]);
  if (judged.distinct.judged) record(ctx, 'concurrency.burst-remaining-distinct', judged.distinct, what, [last]);
  else ctx.ledger.note('concurrency.burst-remaining-distinct', `the burst on --rate-limit-key was not judged here: ${judged.distinct.why}`);
}

async function concurrency(ctx: AreaContext): Promise<void> {
  if (ctx.options.clients === 1) {
    for (const c of checks) ctx.ledger.notRun(c.id, '--clients 1 sends nothing at once');
    return;
  }
  await creates(ctx);
  await burst(ctx);
  ctx.ledger.notRun('concurrency.burst-remaining-distinct', 'no requests were sent at once (--max-requests left no room: see concurrency.creates-distinct)');
}

export const concurrencyArea: Area = { name: 'concurrency', checks, phases: { concurrency } };
