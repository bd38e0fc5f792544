// createPet: 201 with the Pet, 400 for missing and invalid fields, and what a store must do with
// a created pet: echo it, keep it, give it its own id, list it.
import { type SendOptions } from '../http.ts';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import { createChecks } from '../../judge/checks/create.ts';
import type { AreaContext, LiveArea } from './area.ts';
import { describeStatus, header, isPetArray, status } from '../../judge/answers.ts';
import { expectResponse, nextPage, send } from './support.ts';

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
    ['create.400-invalid', 'create with categoryId as a numeric string (no coercion)', { name: `conformance-${ctx.token}-e`, categoryId: '3' }],
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
  ledger.assert('create.echo', differing.length === 0, `the 201 body differs from what was sent in ${differing.map(([k]) => k).join(', ')}`, [
    created.exchange,
  ]);

  const got =
    ctx.facts.getCreated ?? (await send(ctx, { operationId: 'getPet', purpose: `get created pet ${created.id}`, method: 'GET', path: `/pets/${created.id}` }));
  const gotBody = jsonBody(got) as Record<string, unknown> | undefined;
  const mismatched = Object.entries({ ...created.sent, id: created.id }).filter(([k, v]) => gotBody?.[k] !== v);
  const why =
    status(got) !== 200
      ? `GET of the created pet ${created.id} answered ${describeStatus(got)}`
      : `GET of the created pet returned different ${mismatched.map(([k]) => k).join(', ')}`;
  ledger.assert('create.retrievable', status(got) === 200 && mismatched.length === 0, why, [created.exchange, got]);

  const second = await send(ctx, {
    operationId: 'createPet',
    purpose: 'create a second pet',
    method: 'POST',
    path: '/pets',
    json: { ...created.sent, name: `${created.sent.name}-2` },
  });
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

/** A create carrying an id: an existing pet's, then one nobody has. Refused, or given an id of the server's; the existing pet unchanged. */
async function serverAssignsId(ctx: AreaContext, created: { sent: Record<string, unknown>; id: number }): Promise<void> {
  const { ledger } = ctx;
  const fresh = 7_000_000_000 + Math.floor(Math.random() * 1_000_000);
  for (const [clientId, which] of [
    [created.id, `the existing pet ${created.id}'s id`],
    [fresh, `a fresh id ${fresh}`],
  ] as const) {
    const json = { ...created.sent, name: `${String(created.sent.name)}-id${clientId === fresh ? 'f' : 'e'}`, id: clientId };
    const ex = await send(ctx, { operationId: 'createPet', purpose: `create carrying ${which}`, method: 'POST', path: '/pets', json });
    const body = jsonBody(ex) as Record<string, unknown> | undefined;
    if (status(ex) === 201) {
      ctx.facts.choices?.set('client-id', "ignore: 201 with an id of the server's");
      ledger.assert('create.server-assigns-id', body?.id !== clientId, `a create carrying ${which} was answered 201 with that id: the client chose it`, [ex]);
    } else if ((status(ex) ?? 0) >= 400 && (status(ex) ?? 0) < 500) {
      ctx.facts.choices?.set('client-id', `refuse: ${status(ex)}`);
    }
  }
  const got = await send(ctx, {
    operationId: 'getPet',
    purpose: `get pet ${created.id} after creates carrying its id`,
    method: 'GET',
    path: `/pets/${created.id}`,
  });
  const now = jsonBody(got) as Record<string, unknown> | undefined;
  ledger.assert(
    'create.server-assigns-id',
    status(got) === 200 && now?.name === created.sent.name,
    `pet ${created.id} was ${status(got) === 200 ? `overwritten: its name is now ${JSON.stringify(now?.name)}` : `lost: ${describeStatus(got)}`} after a create carried its id`,
    [got],
  );
}

/** The meaning of Location, where the target sends one: the address of the pet it created. */
async function location(ctx: AreaContext, created: { exchange: Exchange; id: number }): Promise<void> {
  const value = header(created.exchange, 'location');
  if (value === undefined) return ctx.ledger.notRun('create.location', 'the 201 carries no Location (the specification does not mention one)');
  let url: URL;
  try {
    url = new URL(value, created.exchange.request.url);
  } catch {
    return ctx.ledger.fail('create.location', `Location ${JSON.stringify(value)} is no URL`, [created.exchange]);
  }
  if (!ctx.http.sendsTo(url.toString())) {
    // Credentials stay with their origin: a Location elsewhere is judged as data, never requested.
    ctx.ledger.note('create.location', `Location ${value} names another origin (${url.origin}) than --base-url: not requested, with or without a key`);
    return ctx.ledger.notRun(
      'create.location',
      `Location ${value} is on another origin: whether it names pet ${created.id} cannot be seen without requesting it, and the kit sends requests, and its keys, only to the origin of --base-url`,
    );
  }
  const got = await send(ctx, { operationId: 'getPet', purpose: `follow Location ${value}`, method: 'GET', path: url.toString() });
  const body = jsonBody(got) as Record<string, unknown> | undefined;
  ctx.ledger.assert(
    'create.location',
    status(got) === 200 && body?.id === created.id,
    `Location ${value} of pet ${created.id} answered ${status(got) === 200 ? `pet ${String(body?.id)}` : describeStatus(got)}`,
    [created.exchange, got],
  );
}

/** A create with a property NewPet does not name: refused, or stored without it. */
async function extraProperty(ctx: AreaContext, created: { sent: Record<string, unknown> }): Promise<void> {
  const extra = `nickname${ctx.token}`;
  const ex = await send(ctx, {
    operationId: 'createPet',
    purpose: `create with a property Pet does not have (${extra})`,
    method: 'POST',
    path: '/pets',
    json: { ...created.sent, name: `${String(created.sent.name)}-x`, [extra]: 'Fluffy' },
  });
  const code = status(ex) ?? 0;
  if (code >= 400 && code < 500) ctx.facts.choices?.set('unknown-fields', `refuse: ${code}`);
  const id = (jsonBody(ex) as Record<string, unknown> | undefined)?.id;
  if (code !== 201 || typeof id !== 'number') return;
  ctx.facts.choices?.set('unknown-fields', 'ignore: 201');
  // The 201 and the stored pet are judged by inspect, like every other pet the run sees.
  await send(ctx, { operationId: 'getPet', purpose: `get pet ${id}, created with ${extra}`, method: 'GET', path: `/pets/${id}` });
}

/** What the contract phase's create answered, when it was not the 201 with a pet the behaviour checks need. */
function notCreated(exchange: Exchange): string {
  const code = status(exchange);
  if (code === undefined) return `the create got ${describeStatus(exchange)}`;
  const id = (jsonBody(exchange) as Record<string, unknown> | undefined)?.id;
  const pet = Number.isInteger(id) ? `its pet has id ${String(id)}` : 'with no pet with an integer id';
  return code === 201 ? `the create answered 201 ${pet}` : `the create answered ${code} where 201 is required${Number.isInteger(id) ? `; ${pet}` : `, ${pet}`}`;
}

async function behaviour(ctx: AreaContext): Promise<void> {
  const created = ctx.facts.created;
  if (!created || created.id === undefined || status(created.exchange) !== 201) {
    const why = created ? `${notCreated(created.exchange)} (create.201)` : 'the contract phase created no pet (create.201)';
    for (const id of ['create.echo', 'create.retrievable', 'create.unique-ids', 'create.listed', 'create.server-assigns-id'])
      ctx.ledger.notRun(id, why, created ? [created.exchange] : []);
    return;
  }
  const withId = { ...created, id: created.id };
  await stored(ctx, withId);
  await listed(ctx, withId.id, created.sent.status);
  await location(ctx, withId);
  await serverAssignsId(ctx, withId);
  await extraProperty(ctx, withId);
}

export const createArea: LiveArea = { ...createChecks, phases: { contract, behaviour } };
