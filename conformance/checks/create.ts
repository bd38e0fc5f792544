// createPet: 201 with the Pet, 400 for missing and invalid fields, and what a store must do with
// a created pet: echo it, keep it, give it its own id, list it.
import type { CheckDef } from '../catalogue.ts';
import { jsonBody, type Exchange, type SendOptions } from '../http.ts';
import { SECTION, type Area, type AreaContext } from './area.ts';
import { describeStatus, expectResponse, isPetArray, nextPage, send, status } from './support.ts';

const checks: readonly CheckDef[] = [
  { id: 'create.201', level: 'must', profile: 'contract', section: SECTION.create, title: 'POST /pets with a valid NewPet answers 201 with a Pet' },
  { id: 'create.400-missing', level: 'must', profile: 'contract', section: SECTION.create, title: 'POST /pets without required fields answers 400 with an Error' },
  { id: 'create.400-invalid', level: 'must', profile: 'contract', section: SECTION.create, title: 'POST /pets with a wrongly typed categoryId or an unknown status answers 400' },
  { id: 'create.echo', level: 'must', profile: 'full', section: SECTION.create, title: 'The 201 body is the stored pet: the name, categoryId and status sent' },
  { id: 'create.retrievable', level: 'must', profile: 'full', section: SECTION.create, title: 'A created pet is returned by GET /pets/{id} with the same fields' },
  { id: 'create.unique-ids', level: 'must', profile: 'full', section: 'Resources and their fields › Pet', title: 'Two created pets get different ids' },
  { id: 'create.listed', level: 'must', profile: 'full', section: SECTION.list, title: 'A created pet appears in GET /pets filtered by its status' },
];

async function contract(ctx: AreaContext): Promise<void> {
  const statuses = ctx.contract.petStatuses;
  // Never the first status: a store that ignored the status sent and kept a default would pass.
  const sent = { name: `conformance-${ctx.token}`, categoryId: 3, status: statuses[1] ?? statuses[0] ?? 'available' };
  const created = await send(ctx, { operationId: 'createPet', purpose: 'create a valid pet', method: 'POST', path: '/pets', json: sent });
  const body = jsonBody(created) as Record<string, unknown> | undefined;
  ctx.facts.created = { sent, exchange: created };
  expectResponse(ctx, 'create.201', created, 201);
  if (status(created) === 201 && typeof body?.id === 'number') {
    ctx.facts.created.id = body.id;
    ctx.facts.knownId = body.id;
  }
  const invalid: Array<[string, string, unknown]> = [
    ['create.400-missing', 'create without name', { categoryId: 3 }],
    ['create.400-missing', 'create without categoryId', { name: `conformance-${ctx.token}-b` }],
    ['create.400-invalid', 'create with a string categoryId', { name: `conformance-${ctx.token}-c`, categoryId: 'three' }],
    ['create.400-invalid', 'create with a status outside PetStatus', { name: `conformance-${ctx.token}-d`, categoryId: 3, status: 'adopted' }],
  ];
  for (const [id, purpose, json] of invalid) {
    expectResponse(ctx, id, await send(ctx, { operationId: 'createPet', purpose, method: 'POST', path: '/pets', json }), 400);
  }
}

async function stored(ctx: AreaContext, created: Required<NonNullable<AreaContext['facts']['created']>>): Promise<void> {
  const { ledger } = ctx;
  const body = jsonBody(created.exchange) as Record<string, unknown>;
  const differing = Object.entries(created.sent).filter(([k, v]) => body[k] !== v);
  ledger.assert('create.echo', differing.length === 0, `the 201 body differs from what was sent in ${differing.map(([k]) => k).join(', ')}`, [created.exchange]);

  const got = ctx.facts.getCreated ?? (await send(ctx, { operationId: 'getPet', purpose: `get created pet ${created.id}`, method: 'GET', path: `/pets/${created.id}` }));
  const gotBody = jsonBody(got) as Record<string, unknown> | undefined;
  const mismatched = Object.entries({ ...created.sent, id: created.id }).filter(([k, v]) => gotBody?.[k] !== v);
  const why = status(got) !== 200 ? `GET of the created pet ${created.id} answered ${describeStatus(got)}` : `GET of the created pet returned different ${mismatched.map(([k]) => k).join(', ')}`;
  ledger.assert('create.retrievable', status(got) === 200 && mismatched.length === 0, why, [created.exchange, got]);

  const second = await send(ctx, { operationId: 'createPet', purpose: 'create a second pet', method: 'POST', path: '/pets', json: { ...created.sent, name: `${created.sent.name}-2` } });
  const secondId = (jsonBody(second) as Record<string, unknown> | undefined)?.id;
  const same = status(second) !== 201 ? `the second create answered ${describeStatus(second)}` : `both pets got id ${String(secondId)}`;
  ledger.assert('create.unique-ids', status(second) === 201 && typeof secondId === 'number' && secondId !== created.id, same, [created.exchange, second]);
}

/** Finds the created pet in the list of its status, following Link rel="next" if pages announce one. */
async function listed(ctx: AreaContext, id: number, petStatus: string): Promise<void> {
  const limit = ctx.contract.listLimit.maximum;
  const seen: Exchange[] = [];
  let path = '/pets';
  let query: SendOptions['query'] = { status: petStatus, limit };
  for (let page = 0; page < 10; page++) {
    const ex = await send(ctx, { operationId: 'listPets', purpose: `find created pet ${id} in the list`, method: 'GET', path, query });
    seen.push(ex);
    const body = jsonBody(ex);
    if (status(ex) !== 200 || !isPetArray(body)) return ctx.ledger.fail('create.listed', `listing answered ${describeStatus(ex)}`, [ex]);
    if (body.some((p) => p.id === id)) return ctx.ledger.pass('create.listed');
    const next = nextPage(ctx, ex);
    if ('none' in next) {
      if (body.length < limit) ctx.ledger.fail('create.listed', `pet ${id} is missing from the complete list of status=${petStatus}`, seen.slice(-2));
      else ctx.ledger.notRun('create.listed', `pet ${id} is not on the first full page, and ${next.none} leads further`);
      return;
    }
    path = next.url;
    query = undefined;
  }
  ctx.ledger.notRun('create.listed', `pet ${id} not found within 10 pages`);
}

async function behaviour(ctx: AreaContext): Promise<void> {
  const created = ctx.facts.created;
  if (!created || created.id === undefined || status(created.exchange) !== 201) {
    for (const id of ['create.echo', 'create.retrievable', 'create.unique-ids', 'create.listed']) ctx.ledger.notRun(id, 'create.201 did not return a pet with an id');
    return;
  }
  const withId = { ...created, id: created.id };
  await stored(ctx, withId);
  await listed(ctx, withId.id, created.sent.status);
}

export const createArea: Area = { name: 'create', checks, phases: { contract, behaviour } };
