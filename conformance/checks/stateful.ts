// Stateful sequences, as a client lives them: create a pet (one with each PetStatus from the
// description's example, and generated ones from the full schema), read it back by its id, then list
// with its status filter walking the pages Link rel="next" announces, until it turns up. Whatever the
// target accepted it must keep as sent; ids are never handed out twice.
import fc from 'fast-check';
import type { Json, JsonObject } from '../../lib/openapi.ts';
import { validVariants } from '../generate/schema.ts';
import { bodyArbitrary } from '../generate/arbitraries.ts';
import { baseBody } from '../generate/cases.ts';
import { type SendOptions } from '../http.ts';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import { type Area, type AreaContext } from './area.ts';
import { SECTION } from '../../judge/check-def.ts';
import { describeStatus, isPetArray, status } from '../../judge/answers.ts';
import { acceptsExtra, nextPage, send } from './support.ts';

const checks: readonly CheckDef[] = [
  {
    id: 'stateful.create-get',
    level: 'must',
    profile: 'full',
    section: SECTION.create,
    title: 'A created pet (one per PetStatus, and generated ones) comes back as sent with an id of its own, and GET /pets/{id} returns it unchanged',
    needs: ['stateful'],
  },
  {
    id: 'stateful.list-pages',
    level: 'must',
    profile: 'full',
    section: `${SECTION.list}; RFC 8288`,
    title:
      'Listing with its status filter, page after page (Link rel="next"), holds at most limit pets each, all of that status, none twice, and finds the created pet',
    needs: ['stateful'],
  },
];

/** How many generated pets go through the sequence besides one per status. */
const GENERATED_PETS = 3;
const MAX_PAGES = 25;

function differing(sent: Record<string, Json>, got: unknown): string[] {
  const body = (got ?? {}) as Record<string, unknown>;
  return Object.keys(sent).filter((k) => JSON.stringify(body[k]) !== JSON.stringify(sent[k]));
}

async function step(ctx: AreaContext, options: Omit<SendOptions, 'phase'>): Promise<Exchange | undefined> {
  if (!ctx.budget.take()) return undefined;
  return send(ctx, { ...options, phase: 'stateful' });
}

/** The fields NewPet describes, of what was sent: extra ones are the target's to ignore. */
function described(ctx: AreaContext, body: Record<string, Json>): Record<string, Json> {
  const names = Object.keys((ctx.contract.operations.get('createPet')!.requestSchema?.should.properties ?? {}) as object);
  return Object.fromEntries(Object.entries(body).filter(([k]) => names.includes(k)));
}

async function sequence(ctx: AreaContext, body: Record<string, Json>, limit: number, why: string): Promise<'done' | 'budget'> {
  const { ledger } = ctx;
  const created = await step(ctx, { operationId: 'createPet', purpose: `stateful: create ${why}`, method: 'POST', path: '/pets', json: body });
  if (!created) return 'budget';
  const pet = jsonBody(created) as Record<string, unknown> | undefined;
  if (status(created) !== 201 || typeof pet?.id !== 'number') {
    // A refusal is input.*'s to judge; without a pet there is no sequence.
    ledger.note('stateful.create-get', `create ${why} answered ${describeStatus(created)}: no sequence`);
    return 'done';
  }
  const id = pet.id;
  const ids = (ctx.facts.createdIds ??= new Map());
  const before = ids.get(id);
  ledger.assert('stateful.create-get', before === undefined, `pet ${id} was handed out twice`, before ? [before, created] : [created]);
  ids.set(id, created);
  const sent = described(ctx, body);
  const echoed = differing(sent, pet);
  ledger.assert('stateful.create-get', echoed.length === 0, `create ${why}: the 201 body differs from what was sent in ${echoed.join(', ')}`, [created]);

  const got = await step(ctx, { operationId: 'getPet', purpose: `stateful: get pet ${id}`, method: 'GET', path: `/pets/${id}` });
  if (!got) return 'budget';
  const again = differing({ ...sent, id }, jsonBody(got));
  ledger.assert(
    'stateful.create-get',
    status(got) === 200 && again.length === 0,
    status(got) !== 200 ? `GET /pets/${id} answered ${describeStatus(got)}` : `GET /pets/${id} returned different ${again.join(', ')}`,
    [created, got],
  );

  const petStatus = typeof pet.status === 'string' ? pet.status : undefined;
  if (petStatus === undefined) return 'done';
  let path = '/pets';
  let query: SendOptions['query'] = { status: petStatus, limit };
  const seenIds = new Map<unknown, Exchange>();
  const pages: Exchange[] = [];
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = await step(ctx, {
      operationId: 'listPets',
      purpose: `stateful: list status=${petStatus} limit=${limit}, page ${n + 1}, looking for pet ${id}`,
      method: 'GET',
      path,
      ...(query ? { query } : {}),
    });
    if (!page) return 'budget';
    pages.push(page);
    const list = jsonBody(page);
    if (status(page) !== 200 || !isPetArray(list)) {
      ledger.fail('stateful.list-pages', `page ${n + 1} answered ${describeStatus(page)}`, pages.slice(-2));
      return 'done';
    }
    const problems: string[] = [];
    if (list.length > limit) problems.push(`${list.length} pets on a page of limit ${limit}`);
    const others = list.filter((p) => p.status !== petStatus);
    if (others.length > 0)
      problems.push(
        `pets ${others
          .map((p) => String(p.id))
          .slice(0, 5)
          .join(', ')} have another status than ${petStatus}`,
      );
    const repeated = list.filter((p) => seenIds.has(p.id));
    if (repeated.length > 0)
      problems.push(
        `pets ${repeated
          .map((p) => String(p.id))
          .slice(0, 5)
          .join(', ')} were on an earlier page too`,
      );
    // A page is judged only as part of finding the pet: a pass says the created pet was found.
    if (problems.length > 0)
      ledger.fail('stateful.list-pages', `page ${n + 1} of status=${petStatus}: ${problems.join('; ')}`, [
        ...repeated.map((p) => seenIds.get(p.id)!).slice(0, 1),
        page,
      ]);
    for (const p of list) seenIds.set(p.id, page);
    if (list.some((p) => p.id === id)) {
      ledger.pass('stateful.list-pages');
      return 'done';
    }
    const next = nextPage(ctx, page);
    if ('none' in next) {
      if (next.elsewhere) ledger.notRun('stateful.list-pages', `pet ${id} is not on page ${n + 1}, and ${next.none}`);
      else if (list.length < limit || !next.none.startsWith('no Link'))
        ledger.fail('stateful.list-pages', `pet ${id} (${petStatus}) is not in the list of status=${petStatus}: ${next.none} after page ${n + 1}`, [
          created,
          page,
        ]);
      else ledger.notRun('stateful.list-pages', `pet ${id} is not on the first full page, and ${next.none} leads further`);
      return 'done';
    }
    path = next.url;
    query = undefined;
  }
  ledger.notRun('stateful.list-pages', `pet ${id} not found within ${MAX_PAGES} pages`);
  return 'done';
}

async function stateful(ctx: AreaContext): Promise<void> {
  const create = ctx.contract.operations.get('createPet')!;
  const base = baseBody(create);
  const schema = create.requestSchema;
  if (!base || !schema) return;
  const limitSchema = ctx.contract.operations.get('listPets')!.parameters.find((p) => p.name === 'limit')?.schema.should ?? {};
  const limits = fc.sample(fc.integer({ min: Math.max(Number(limitSchema.minimum ?? 1), 10), max: Number(limitSchema.maximum ?? 100) }), {
    seed: ctx.options.seed,
    numRuns: ctx.contract.petStatuses.length + GENERATED_PETS + 1,
  });
  // One pet with each status, named so that it is this run's.
  const bodies: Array<[Record<string, Json>, string]> = ctx.contract.petStatuses.map((s) => [
    { ...base, name: `${String(base.name)}-${ctx.token}-${s}`, status: s },
    `with status ${s}`,
  ]);
  // One pet at the upper edge of every property (the longest name, the largest categoryId): where a
  // store cuts or overflows.
  const edge: Record<string, Json> = { ...base };
  const properties = (schema.should.properties ?? {}) as Record<string, JsonObject>;
  const mustProperties = (schema.must.properties ?? {}) as Record<string, JsonObject>;
  for (const [name, should] of Object.entries(properties)) {
    const top = validVariants(should, mustProperties[name] ?? {}).find((v) => /^(maxLength|maximum) /.test(v.label));
    if (top) edge[name] = top.value;
  }
  bodies.push([edge, 'at the upper edge of every property']);
  const generated = fc.sample(bodyArbitrary(schema.should, schema.must, create.requestExamples, { extra: acceptsExtra(ctx) }), {
    seed: ctx.options.seed + 1,
    numRuns: GENERATED_PETS,
  });
  for (const g of generated) bodies.push([g.body, `a generated pet ${JSON.stringify(g.body)}`]);
  for (const [i, [body, why]] of bodies.entries()) {
    if ((await sequence(ctx, body, limits[i]!, why)) === 'budget') {
      ctx.progress({ type: 'note', text: `stateful: sequences left out (--max-requests ${ctx.options.maxRequests})` });
      return;
    }
  }
}

export const statefulArea: Area = { name: 'stateful', checks, phases: { stateful } };
